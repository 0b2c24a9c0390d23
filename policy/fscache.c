/* A memo in front of an fs_view for the length of one fit(): the same
 * path is resolved by several lists (writable, readable, executable, the
 * /run and /tmp views) and "/" is listed once per tree granted around
 * /dev; each lookup is a handful of syscalls.  Pure: it only forwards to
 * the view it wraps. */
#include "fscache.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Strings are offsets into the arena (it moves when it grows). */
struct fsc_list {
	int rc;
	struct strvec names;
	enum fs_kind *kinds;
};

struct fsc_entry {
	uint32_t path;         /* key: offset in the arena */
	uint32_t hash;         /* hash(path): growing the index rehashes nothing */
	uint32_t canon;        /* resolve()'s answer when rc == 0 (== path when the same) */
	int rc;                /* resolve(): 0, -errno, or 1 (not asked yet) */
	enum fs_kind kind;
	int lk_rc;             /* lkind(): 1 not asked yet, else 0 or -errno */
	enum fs_kind lk_kind;
	struct fsc_list *list; /* list() answer, NULL until asked */
};

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Copy `s` into the arena; its offset. */
static uint32_t intern(struct fs_cache *c, const char *s)
{
	size_t n = strlen(s) + 1;
	if (c->clen + n > c->ccap) {
		c->ccap = (c->clen + n) * 2 > 4096 ? (c->clen + n) * 2 : 4096;
		c->chars = xrealloc(c->chars, c->ccap);
	}
	memcpy(c->chars + c->clen, s, n);
	c->clen += n;
	return (uint32_t)(c->clen - n);
}

static uint32_t *find(const struct fs_cache *c, const char *path, uint32_t h)
{
	size_t mask = c->icap - 1;
	for (size_t j = h & mask;; j = (j + 1) & mask) {
		uint32_t *x = &c->idx[j];
		if (!*x || (c->e[*x - 1].hash == h && strcmp(c->chars + c->e[*x - 1].path, path) == 0))
			return x;
	}
}

/* The entry of `path`, made (not resolved yet) when new.  The pointer is
 * valid until the next slot() call. */
static struct fsc_entry *slot(struct fs_cache *c, const char *path)
{
	if ((c->n + 1) * 2 > c->icap) {
		size_t ocap = c->icap;
		uint32_t *old = c->idx;
		c->icap = ocap ? ocap * 2 : 256;
		c->idx = xcalloc(c->icap, sizeof *c->idx);
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j])
				continue;
			size_t k = c->e[old[j] - 1].hash & (c->icap - 1);
			while (c->idx[k])
				k = (k + 1) & (c->icap - 1);
			c->idx[k] = old[j];
		}
		free(old);
	}
	uint32_t h = hash(path);
	uint32_t *x = find(c, path, h);
	if (!*x) {
		c->e = xgrow(c->e, c->n, sizeof *c->e);
		c->e[c->n] = (struct fsc_entry){intern(c, path), h, 0, 1, FS_MISSING, 1, FS_MISSING, NULL};
		*x = (uint32_t)++c->n;
	}
	return &c->e[*x - 1];
}

static int cached_resolve(void *ctx, const char *path, char *out, size_t n,
			  enum fs_kind *kind)
{
	struct fs_cache *c = ctx;
	struct fsc_entry *e = slot(c, path);
	if (e->rc == 1) {
		char buf[4096];
		int rc = c->inner->resolve(c->inner->ctx, path, buf, sizeof buf, &e->kind);
		e->rc = rc;
		if (rc == 0) {
			/* (intern may move the arena, not the entries) */
			uint32_t k = strcmp(buf, c->chars + e->path) == 0 ? e->path : intern(c, buf);
			e->canon = k;
		}
	}
	if (e->rc)
		return e->rc;
	const char *canon = c->chars + e->canon;
	size_t len = strlen(canon);
	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(out, canon, len + 1);
	*kind = e->kind;
	return 0;
}

/* The protect list, the git routes and the mount plan each ask about
 * the same names (a workspace's .git, .gitmodules, .envrc, ... up to
 * three times each): one lstat per path and fit(), like resolve(). */
static int cached_lkind(void *ctx, const char *path, enum fs_kind *kind)
{
	struct fs_cache *c = ctx;
	struct fsc_entry *e = slot(c, path);
	if (e->lk_rc == 1)
		e->lk_rc = c->inner->lkind(c->inner->ctx, path, &e->lk_kind);
	if (e->lk_rc == 0)
		*kind = e->lk_kind;
	return e->lk_rc;
}

struct collect {
	struct fsc_list *l;
	size_t cap;
};

static int collect_entry(void *arg, const char *name, enum fs_kind kind)
{
	struct collect *k = arg;
	if (k->l->names.n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 32;
		k->l->kinds = xrealloc(k->l->kinds, k->cap * sizeof *k->l->kinds);
	}
	k->l->kinds[k->l->names.n] = kind;
	sv_push(&k->l->names, name);
	return 0;
}

static int cached_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	struct fs_cache *c = ctx;
	struct fsc_entry *e = slot(c, dir);
	if (!e->list) {
		struct fsc_list *l = xcalloc(1, sizeof *l);
		struct collect k = {l, 0};
		l->rc = c->inner->list(c->inner->ctx, dir, collect_entry, &k);
		e->list = l;
	}
	/* The callback may look up other paths, and a lookup may grow the
	 * entries and move `e`: keep only the list, which never moves. */
	const struct fsc_list *l = e->list;
	for (size_t i = 0; i < l->names.n; i++) {
		int r = cb(arg, l->names.v[i], l->kinds[i]);
		if (r)
			return r;
	}
	return l->rc;
}

/* Not cached: each file is read once per fit() anyway. */
static int cached_read(void *ctx, const char *path, char *buf, size_t n,
		       size_t *len, bool *truncated)
{
	struct fs_cache *c = ctx;
	if (!c->inner->read) {
		*len = 0;
		*truncated = false;
		return -ENOSYS;
	}
	return c->inner->read(c->inner->ctx, path, buf, n, len, truncated);
}

struct fs_view fs_cache_view(struct fs_cache *c, const struct fs_view *inner)
{
	memset(c, 0, sizeof *c);
	c->inner = inner;
	return (struct fs_view){cached_resolve, cached_lkind, cached_list, cached_read, c};
}

void fs_cache_free(struct fs_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!c->e[i].list)
			continue;
		sv_free(&c->e[i].list->names);
		free(c->e[i].list->kinds);
		free(c->e[i].list);
	}
	free(c->idx);
	free(c->e);
	free(c->chars);
	memset(c, 0, sizeof *c);
}

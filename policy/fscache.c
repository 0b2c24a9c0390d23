/* A memo in front of an fs_view for the length of one fit(): the same
 * path is resolved by several lists (writable, readable, executable, the
 * /run and /tmp views) and "/" is listed once per tree granted around
 * /dev; each lookup is a handful of syscalls.  Pure: it only forwards to
 * the view it wraps. */
#include "fscache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct fsc_entry {
	char *path;        /* key; NULL: empty slot */
	int rc;            /* resolve(): 0 or -errno */
	char *canon;       /* resolve()'s answer when rc == 0 */
	enum fs_kind kind;
	int lk_rc;         /* lkind(): 1 not asked yet, else 0 or -errno */
	enum fs_kind lk_kind;
	bool listed;       /* list() answer cached below */
	int list_rc;
	struct strvec names;
	enum fs_kind *kinds;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct fsc_entry *slot(struct fs_cache *c, const char *path)
{
	if (c->used * 2 >= c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct fsc_entry *ne = xcalloc(ncap, sizeof *ne);
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->e[i].path)
				continue;
			size_t j = hash(c->e[i].path) & (ncap - 1);
			while (ne[j].path)
				j = (j + 1) & (ncap - 1);
			ne[j] = c->e[i];
		}
		free(c->e);
		c->e = ne;
		c->cap = ncap;
	}
	size_t j = hash(path) & (c->cap - 1);
	while (c->e[j].path && strcmp(c->e[j].path, path) != 0)
		j = (j + 1) & (c->cap - 1);
	if (!c->e[j].path) {
		c->e[j].path = xstrdup(path);
		c->e[j].rc = 1; /* not resolved yet */
		c->e[j].lk_rc = 1;
		c->used++;
	}
	return &c->e[j];
}

static int cached_resolve(void *ctx, const char *path, char *out, size_t n,
			  enum fs_kind *kind)
{
	struct fs_cache *c = ctx;
	struct fsc_entry *e = slot(c, path);
	if (e->rc == 1) {
		char buf[4096];
		e->rc = c->inner->resolve(c->inner->ctx, path, buf, sizeof buf, &e->kind);
		if (e->rc == 0)
			e->canon = xstrdup(buf);
	}
	if (e->rc)
		return e->rc;
	if (strlen(e->canon) >= n)
		return -36; /* ENAMETOOLONG */
	strcpy(out, e->canon);
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
	struct fsc_entry *e;
	size_t cap;
};

static int collect_entry(void *arg, const char *name, enum fs_kind kind)
{
	struct collect *k = arg;
	if (k->e->names.n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 32;
		k->e->kinds = xrealloc(k->e->kinds, k->cap * sizeof *k->e->kinds);
	}
	k->e->kinds[k->e->names.n] = kind;
	sv_push(&k->e->names, name);
	return 0;
}

static int cached_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	struct fs_cache *c = ctx;
	struct fsc_entry *e = slot(c, dir);
	if (!e->listed) {
		struct collect k = {e, 0};
		e->list_rc = c->inner->list(c->inner->ctx, dir, collect_entry, &k);
		e->listed = true;
	}
	/* The callback may look up other paths, and a lookup may grow the
	 * table and move `e`: keep only the arrays, which never move once
	 * listed. */
	char *const *names = e->names.v;
	const enum fs_kind *kinds = e->kinds;
	size_t n = e->names.n;
	int list_rc = e->list_rc;
	for (size_t i = 0; i < n; i++) {
		int r = cb(arg, names[i], kinds[i]);
		if (r)
			return r;
	}
	return list_rc;
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
	for (size_t i = 0; i < c->cap; i++) {
		free(c->e[i].path);
		free(c->e[i].canon);
		sv_free(&c->e[i].names);
		free(c->e[i].kinds);
	}
	free(c->e);
	memset(c, 0, sizeof *c);
}

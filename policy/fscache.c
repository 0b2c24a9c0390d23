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

/* The entry of path number i (c->paths) is c->e[i]: 24 bytes, one per
 * path of a profile of 10,000. */
struct fsc_entry {
	const char *canon; /* resolve()'s answer when rc == 0: in c->paths' arena, or NULL: the path itself */
	int32_t fd;        /* inner's kept() after resolve(), -1: none */
	int16_t rc;        /* resolve(): 0, -errno, or 1 (not asked yet) */
	int16_t lk_rc;     /* lkind(): 1 not asked yet, else 0 or -errno */
	uint8_t kind;      /* enum fs_kind */
	uint8_t lk_kind;   /* enum fs_kind */
	uint32_t list;     /* list(): c->lists[list - 1], 0 until asked */
};

/* The entry of `path` (lent: kept by the index itself, not copied),
 * made (not resolved yet) when new; its number in *i when asked.  The
 * pointer is valid until the next slot() call. */
static struct fsc_entry *slot(struct fs_cache *c, const char *path, bool lent, size_t *i)
{
	bool added;
	size_t k = lent ? si_add_lent(&c->paths, path, &added) : si_add(&c->paths, path, &added);
	if (added) {
		c->e = xgrow(c->e, k, sizeof *c->e);
		c->e[k] = (struct fsc_entry){NULL, -1, 1, 1, FS_MISSING, FS_MISSING, 0};
	}
	if (i)
		*i = k;
	return &c->e[k];
}

static int resolve_in(struct fs_cache *c, const char *path, bool lent, char *out, size_t n,
		      enum fs_kind *kind)
{
	size_t i;
	struct fsc_entry *e = slot(c, path, lent, &i);
	c->last_kept = -1;
	if (e->rc == 1) {
		char buf[4096];
		enum fs_kind k = FS_MISSING;
		int rc = c->inner->resolve(c->inner->ctx, path, buf, sizeof buf, &k);
		e->rc = rc16(rc);
		e->kind = (uint8_t)k;
		if (rc == 0) {
			e->fd = fs_view_kept(c->inner);
			e->canon = strcmp(buf, path) == 0 ? NULL : si_intern(&c->paths, buf);
		}
	}
	if (e->rc)
		return e->rc;
	const char *canon = e->canon ? e->canon : c->paths.str[i];
	size_t len = strlen(canon);
	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(out, canon, len + 1);
	*kind = (enum fs_kind)e->kind;
	c->last_kept = e->fd;
	return 0;
}

static int cached_resolve(void *ctx, const char *path, char *out, size_t n,
			  enum fs_kind *kind)
{
	return resolve_in(ctx, path, false, out, n, kind);
}

int fs_cache_resolve_lent(struct fs_cache *c, const char *path, char *out, size_t n,
			  enum fs_kind *kind)
{
	return resolve_in(c, path, true, out, n, kind);
}

static int cached_kept(void *ctx)
{
	const struct fs_cache *c = ctx;
	return c->last_kept;
}

/* The protect list, the git routes and the mount plan each ask about
 * the same names (a workspace's .git, .gitmodules, .envrc, ... up to
 * three times each): one lstat per path and fit(), like resolve(). */
static int cached_lkind(void *ctx, const char *path, enum fs_kind *kind)
{
	struct fs_cache *c = ctx;
	struct fsc_entry *e = slot(c, path, false, NULL);
	if (e->lk_rc == 1) {
		enum fs_kind k = FS_MISSING;
		e->lk_rc = rc16(c->inner->lkind(c->inner->ctx, path, &k));
		e->lk_kind = (uint8_t)k;
	}
	if (e->lk_rc == 0)
		*kind = (enum fs_kind)e->lk_kind;
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
	struct fsc_entry *e = slot(c, dir, false, NULL);
	if (!e->list) {
		struct fsc_list *l = xcalloc(1, sizeof *l);
		struct collect k = {l, 0};
		l->rc = c->inner->list(c->inner->ctx, dir, collect_entry, &k);
		c->lists = xgrow(c->lists, c->nlists, sizeof *c->lists);
		c->lists[c->nlists++] = l;
		e->list = (uint32_t)c->nlists;
	}
	/* The callback may look up other paths, and a lookup may grow the
	 * entries and move `e`: keep only the list, which never moves. */
	const struct fsc_list *l = c->lists[e->list - 1];
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
	c->last_kept = -1;
	c->view = (struct fs_view){cached_resolve, cached_lkind, cached_list, cached_read, c, cached_kept};
	return c->view;
}

void fs_cache_free(struct fs_cache *c)
{
	for (size_t i = 0; i < c->nlists; i++) {
		sv_free(&c->lists[i]->names);
		free(c->lists[i]->kinds);
		free(c->lists[i]);
	}
	free(c->lists);
	si_free(&c->paths);
	free(c->e);
	memset(c, 0, sizeof *c);
}

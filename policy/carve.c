/* Sibling expansion: grant a tree while going around paths inside it
 * (DESIGN.md "Filesystem", option 2).  Landlock only adds rights down a
 * tree, so "everything under P except X" becomes a rule on every sibling
 * along the path from P to X, plus listing (read_dir) on the directories
 * along the way; new entries cannot be created directly in those. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

/* dir/name with one '/' between, also when dir is "/" (malloc'd). */
static char *join(const char *dir, const char *name)
{
	return strcmp(dir, "/") == 0 ? xasprintf("/%s", name)
				      : xasprintf("%s/%s", dir, name);
}

struct carve_ctx {
	struct plan *pl;
	const struct fs_view *fs;
	const char *dir;
	uint64_t access;
	const char *where;
	const struct strvec *excluded;
	struct sb_err *err;
	int rc;
};

static int carve_entry(void *arg, const char *name, enum fs_kind kind)
{
	struct carve_ctx *c = arg;
	char *child = join(c->dir, name);
	/* A symlink grants nothing by itself: what it points to is checked
	 * against its own path.  Skipping it keeps a link such as /lib →
	 * usr/lib from granting an excluded tree through the back door. */
	if (kind != FS_SYMLINK && !sv_has(c->excluded, child))
		c->rc = carve_grant(c->pl, c->fs, child, kind, c->access,
				    c->where, c->excluded, c->err);
	free(child);
	return c->rc;
}

int carve_grant(struct plan *pl, const struct fs_view *fs, const char *path,
		enum fs_kind kind, uint64_t access, const char *where,
		const struct strvec *excluded, struct sb_err *err)
{
	bool is_dir = kind == FS_DIR;
	const char *around = NULL; /* an excluded path strictly inside */
	if (is_dir)
		for (size_t i = 0; i < excluded->n && !around; i++)
			if (strcmp(excluded->v[i], path) != 0 && path_within(excluded->v[i], path))
				around = excluded->v[i];
	if (!around) {
		plan_add_rule(pl, path, where, access, is_dir);
		return 0;
	}
	/* Listing the directories along the way stays possible (documented). */
	plan_add_rule(pl, path, where, access & LL_FS_READ_DIR, true);
	if (!sv_has(&pl->expanded, path))
		sv_push(&pl->expanded, path);
	struct carve_ctx c = {pl, fs, path, access, where, excluded, err, 0};
	int r = fs->list(fs->ctx, path, carve_entry, &c);
	if (c.rc)
		return c.rc;
	if (r < 0)
		return sb_fail(err, where, path, "cannot list it to grant around %s: %s",
			       around, strerror(-r));
	return 0;
}

/* ---- mount mode: the mount rules of one carve-out ---- */

static int op_rank(enum mount_op op)
{
	switch (op) {
	case MNT_PIN: return 0;
	case MNT_RO_BIND: return 1;
	default: return 2; /* masks, occupy, view, keep replace what is there */
	}
}

void plan_add_mount(struct plan *pl, enum mount_op op, const char *path,
		    const char *where, bool is_dir)
{
	for (size_t i = 0; i < pl->nmounts; i++) {
		struct mount_rule *m = &pl->mounts[i];
		if (strcmp(m->path, path) != 0)
			continue;
		/* one rule per path: the strongest wins */
		if (op_rank(op) > op_rank(m->op)) {
			m->op = op;
			m->is_dir = is_dir;
			free(m->where);
			m->where = xstrdup(where);
		}
		return;
	}
	pl->mounts = xgrow(pl->mounts, pl->nmounts, sizeof *pl->mounts);
	pl->mounts[pl->nmounts++] = (struct mount_rule){op, xstrdup(path), xstrdup(where), is_dir, NULL};
}

/* Append the `k` bytes of one name at `name` to absolute path `path`
 * (a buffer of `n` bytes).  0, or -ENAMETOOLONG (path unchanged). */
static int append_name(char *path, size_t n, const char *name, size_t k)
{
	if (strlen(path) + k + 2 > n)
		return -ENAMETOOLONG;
	if (strcmp(path, "/") != 0)
		strcat(path, "/");
	strncat(path, name, k);
	return 0;
}

int carve_cut(const struct fs_view *fs, const char *tree, const char *rel,
	      char *cut, size_t n, enum fs_kind *kind)
{
	const char *p = rel;
	snprintf(cut, n, "%s", tree);
	*kind = FS_DIR;
	while (*p) {
		size_t k = strcspn(p, "/");
		if (append_name(cut, n, p, k))
			return -ENAMETOOLONG;
		int r = fs->lkind(fs->ctx, cut, kind);
		if (r < 0)
			return r;
		if (*kind != FS_DIR)
			return 0;
		p += k;
		while (*p == '/')
			p++;
	}
	return 0;
}

int carve_mounts(struct plan *pl, const struct fs_view *fs, const char *tree,
		 const char *rel, bool hidden, bool want_dir, const char *where,
		 struct sb_err *err)
{
	char cur[4096];
	const char *p = rel;
	snprintf(cur, sizeof cur, "%s", tree);
	while (*p) {
		size_t n = strcspn(p, "/");
		bool last = p[n] == 0;
		if (append_name(cur, sizeof cur, p, n)) {
			/* the whole absolute path, as the user can find it */
			char *abs = join(tree, rel);
			sb_fail(err, where, abs, "path too long");
			free(abs);
			return -1;
		}
		enum fs_kind k;
		int r = fs->lkind(fs->ctx, cur, &k);
		if (r < 0)
			return sb_fail(err, where, cur, "%s", strerror(-r));
		if (k == FS_MISSING) {
			/* nothing to mount on: a placeholder keeps the name; a
			 * directory where the name is one (on the way, or a
			 * trailing '/'), so tools outside later find what they
			 * expect there */
			plan_add_mount(pl, MNT_OCCUPY, cur, where, !last || want_dir);
			/* git follows $GIT_DIR/commondir to another config and
			 * hooks, and dies on an empty one: "." names the git dir
			 * itself, which is what a missing one means. */
			const char *base = strrchr(cur, '/');
			if (last && !want_dir && base && strcmp(base, "/commondir") == 0)
				pl->mounts[pl->nmounts - 1].content = ".\n";
			return 0;
		}
		if (k == FS_SYMLINK) {
			/* never followed: the command could have aimed it at a
			 * decoy; covering the link itself keeps it in place */
			plan_add_mount(pl, MNT_MASK_FILE, cur, where, false);
			return 0;
		}
		if (k != FS_DIR || last) {
			if (hidden)
				plan_add_mount(pl, k == FS_DIR ? MNT_MASK_DIR : MNT_MASK_FILE, cur, where, k == FS_DIR);
			else
				plan_add_mount(pl, MNT_RO_BIND, cur, where, k == FS_DIR);
			return 0;
		}
		/* a directory on the way: pinned so it cannot be renamed away
		 * and replaced (rename of a directory holding mounts is allowed) */
		plan_add_mount(pl, MNT_PIN, cur, where, true);
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

static size_t depth(const char *p)
{
	size_t d = 0;
	for (; *p; p++)
		d += *p == '/';
	return d;
}

static int by_depth(const void *a, const void *b)
{
	const struct mount_rule *x = a, *y = b;
	size_t dx = depth(x->path), dy = depth(y->path);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->path, y->path);
}

void carve_mounts_finish(struct plan *pl)
{
	/* parents before children, so a child's mount lands on top */
	qsort(pl->mounts, pl->nmounts, sizeof *pl->mounts, by_depth);
	/* nothing to do under a mask: the path no longer exists there */
	size_t out = 0;
	for (size_t i = 0; i < pl->nmounts; i++) {
		bool covered = false;
		for (size_t j = 0; j < out && !covered; j++) {
			const struct mount_rule *m = &pl->mounts[j];
			covered = (m->op == MNT_MASK_DIR || m->op == MNT_MASK_FILE || m->op == MNT_OCCUPY) &&
				  strcmp(m->path, pl->mounts[i].path) != 0 &&
				  path_within(pl->mounts[i].path, m->path);
		}
		if (covered) {
			free(pl->mounts[i].path);
			free(pl->mounts[i].where);
			continue;
		}
		pl->mounts[out++] = pl->mounts[i];
	}
	pl->nmounts = out;
}

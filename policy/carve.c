/* Sibling expansion: grant a tree while going around paths inside it
 * (DESIGN.md "Filesystem", option 2).  Landlock only adds rights down a
 * tree, so "everything under P except X" becomes a rule on every sibling
 * along the path from P to X, plus listing (read_dir) on the directories
 * along the way; new entries cannot be created directly in those. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carve.h"
#include "landlock_abi.h"

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
		c->rc = carve_grant(c->pl, c->fs, child, false, -1, kind, c->access,
				    c->where, c->excluded, c->err);
	free(child);
	return c->rc;
}

int carve_grant(struct plan *pl, const struct fs_view *fs, const char *path, bool lent, int fd,
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
		plan_add_rule_kept(pl, path, lent, fd, where, access, is_dir);
		return 0;
	}
	/* Listing the directories along the way stays possible (documented). */
	plan_add_rule_kept(pl, path, lent, fd, where, access & LL_FS_READ_DIR, true);
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
		 const char *rel, bool hidden, const char *where,
		 char *missing, size_t n, struct sb_err *err)
{
	char cut[4096];
	enum fs_kind k;
	int r = carve_cut(fs, tree, rel, cut, sizeof cut, &k);
	if (r == -ENAMETOOLONG) {
		/* the whole absolute path, as the user can find it */
		char *abs = join(tree, rel);
		sb_fail(err, where, abs, "path too long");
		free(abs);
		return -1;
	}
	if (r < 0)
		return sb_fail(err, where, cut, "%s", strerror(-r));
	if (k == FS_MISSING) {
		/* nothing to mount on, and nothing is created to make one
		 * (DESIGN.md: no placeholders); the caller says so */
		snprintf(missing, n, "%s", cut);
		return 1;
	}
	/* directories on the way: pinned so they cannot be renamed away and
	 * replaced (rename of a directory holding mounts is allowed) */
	size_t tl = strcmp(tree, "/") == 0 ? 0 : strlen(tree);
	for (char *s = cut + tl + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = 0;
		plan_add_mount(pl, MNT_PIN, cut, where, true);
		*s = '/';
	}
	if (k == FS_SYMLINK)
		/* never followed: the command could have aimed it at a decoy;
		 * covering the link itself keeps it in place */
		plan_add_mount(pl, MNT_MASK_FILE, cut, where, false);
	else if (hidden)
		plan_add_mount(pl, k == FS_DIR ? MNT_MASK_DIR : MNT_MASK_FILE, cut, where, k == FS_DIR);
	else
		plan_add_mount(pl, MNT_RO_BIND, cut, where, k == FS_DIR);
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

static bool replaces(enum mount_op op)
{
	return op == MNT_VIEW || op == MNT_TMP;
}

/* True when rule i's path no longer exists in the final tree: under a
 * mask, or under a view / private tmpfs with no kept tree around it. */
static bool covered(const struct mount_rule *m, size_t n, size_t i)
{
	const struct mount_rule *r = &m[i];
	for (size_t j = 0; j < n; j++) {
		const struct mount_rule *c = &m[j];
		if (j == i || strcmp(c->path, r->path) == 0 || !path_within(r->path, c->path))
			continue;
		if (c->op == MNT_MASK_DIR || c->op == MNT_MASK_FILE)
			return true;
		if (!replaces(c->op) || r->op == MNT_KEEP)
			continue;
		bool kept = false;
		for (size_t k = 0; k < n && !kept; k++)
			kept = m[k].op == MNT_KEEP && path_within(r->path, m[k].path) &&
			       path_within(m[k].path, c->path);
		if (!kept)
			return true;
	}
	return false;
}

void carve_mounts_finish(struct plan *pl)
{
	/* parents before children, so a child's mount lands on top */
	qsort(pl->mounts, pl->nmounts, sizeof *pl->mounts, by_depth);
	bool *drop = xcalloc(pl->nmounts + 1, sizeof *drop);
	for (size_t i = 0; i < pl->nmounts; i++)
		drop[i] = covered(pl->mounts, pl->nmounts, i);
	size_t out = 0;
	for (size_t i = 0; i < pl->nmounts; i++) {
		if (drop[i]) {
			free(pl->mounts[i].path);
			free(pl->mounts[i].where);
			continue;
		}
		pl->mounts[out++] = pl->mounts[i];
	}
	pl->nmounts = out;
	free(drop);
}

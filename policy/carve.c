/* Sibling expansion: grant a tree while going around paths inside it
 * (DESIGN.md "Filesystem", option 2).  Landlock only adds rights down a
 * tree, so "everything under P except X" becomes a rule on every sibling
 * along the path from P to X, plus listing (read_dir) on the directories
 * along the way; new entries cannot be created directly in those. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

/* True if `inner` is `outer` or lies below it (component-wise). */
static bool path_within(const char *inner, const char *outer)
{
	size_t n = strlen(outer);
	if (strcmp(outer, "/") == 0)
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == 0 || inner[n] == '/');
}

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

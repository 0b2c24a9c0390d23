/* Carve-outs: "deny inside allow" (DESIGN.md "Filesystem").  Landlock
 * only adds rights down a tree, so a read-only or hidden path inside a
 * granted tree is made either by sibling expansion (Landlock alone) or by
 * mount rules in a private mount namespace.  Pure: the filesystem is only
 * looked at through `fs` (read-only). */
#ifndef SB_CARVE_H
#define SB_CARVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsview.h"
#include "plan.h"

/* Add the rules granting `access` on canonical `path` (of `kind`), going
 * around every path in `excluded` strictly inside it by sibling expansion.
 * `lent` and `fd` go to the rule on `path` itself (plan_add_rule_kept:
 * the profile's string, the descriptor resolve() kept; false and -1 for
 * none).  Lists directories through `fs`.  Returns 0, or -1 with `err`
 * (listing failed: fail closed). */
int carve_grant(struct plan *pl, const struct fs_view *fs, const char *path, bool lent, int fd,
		enum fs_kind kind, uint64_t access, const char *where,
		const struct strvec *excluded, struct sb_err *err);

/* Mount mode: the rules protecting `rel` (relative, no "..") inside
 * canonical writable tree `tree`: directories on the way pinned, the end
 * bound read-only (or masked when `hidden`), a symlink on the way covered
 * rather than followed.  lkind() only.  Nothing is ever created: returns
 * 1 (no rule added) when a component is missing, its path in missing[n];
 * 0 when the rules were added; -1 with `err` (lkind failed, too long). */
int carve_mounts(struct plan *pl, const struct fs_view *fs, const char *tree,
		 const char *rel, bool hidden, const char *where,
		 char *missing, size_t n, struct sb_err *err);
/* The first component of tree/rel that is not a directory (missing, a
 * file, a symlink — not followed), into cut[n] with its kind; the whole
 * path with FS_DIR when every component is one.  0 or -errno. */
int carve_cut(const struct fs_view *fs, const char *tree, const char *rel,
	      char *cut, size_t n, enum fs_kind *kind);
/* Order mount rules parents first; drop those under a mask, and those
 * under a view or a private tmpfs that no kept tree brings back (the path
 * does not exist there: nothing to cover). */
void carve_mounts_finish(struct plan *pl);

#endif

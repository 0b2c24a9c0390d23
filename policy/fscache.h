/* A memo of resolve(), lkind() and list() answers in front of an
 * fs_view, for the length of one fit() (a plan is made from one look at
 * the tree; the shim opens every path again race-free when it applies
 * the plan: shim/resolve.c). */
#ifndef SB_FSCACHE_H
#define SB_FSCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "fsview.h"

struct fsc_entry;

/* Owns its entries (fs_cache_free); borrows `inner`. */
struct fs_cache {
	const struct fs_view *inner;
	struct fsc_entry *e;
	size_t cap, used;
};

/* Start an empty cache over `inner` and return the view to use: it gives
 * `inner`'s answers (0 or a negative errno), asking `inner` once per path
 * for resolve(), lkind() and list(); a cached name longer than the caller's buffer
 * is -ENAMETOOLONG, as from the real view.  The view points at `c`, which
 * must outlive it. */
struct fs_view fs_cache_view(struct fs_cache *c, const struct fs_view *inner);
/* Free every cached answer and zero `c`; the view made from it must not be
 * used afterwards. */
void fs_cache_free(struct fs_cache *c);

#endif

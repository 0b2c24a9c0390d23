/* A memo of resolve(), lkind() and list() answers in front of an
 * fs_view, for the length of one fit() (a plan is made from one look at
 * the tree; the shim applies it with the descriptors its view kept, or
 * opens a path again race-free: shim/fsview.c, shim/resolve.c). */
#ifndef SB_FSCACHE_H
#define SB_FSCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "fsview.h"
#include "util.h"

struct fsc_entry;

/* Owns its entries (fs_cache_free); borrows `inner`.  Sized for profiles
 * of 10,000 paths: a strindex of the paths asked (a profile's own
 * strings lent, not copied: fs_cache_resolve_lent), the entries dense in
 * lookup order, a canonical name that differs from its path in the
 * index's arena — no allocation per path, and a canonical answer equal
 * to its path not stored at all. */
struct fs_cache {
	const struct fs_view *inner;
	struct strindex paths;  /* the paths asked about, numbered; canonical names in its arena */
	struct fsc_entry *e;    /* per path number */
	struct fsc_list **lists; /* list() answers; an entry names its own by number + 1 */
	size_t nlists;
	int last_kept;          /* kept(): the descriptor of the last resolve() answered */
	struct fs_view view;    /* the view over it, as fs_cache_view() returned it */
};

/* Start an empty cache over `inner` and return the view to use: it gives
 * `inner`'s answers (0 or a negative errno), asking `inner` once per path
 * for resolve(), lkind() and list(); a cached name longer than the caller's buffer
 * is -ENAMETOOLONG, as from the real view.  Its kept() gives the
 * descriptor `inner` kept when it resolved the path (-1 for none).  The view points at `c`, which
 * must outlive it. */
struct fs_view fs_cache_view(struct fs_cache *c, const struct fs_view *inner);
/* The view's resolve() for a `path` that outlives the cache (a string of
 * the profile fit() plans from): its entry keeps `path` itself instead of
 * a copy.  The same answer, from the same one look, as resolve(). */
int fs_cache_resolve_lent(struct fs_cache *c, const char *path, char *out, size_t n,
			  enum fs_kind *kind);
/* Free every cached answer and zero `c`; the view made from it must not be
 * used afterwards. */
void fs_cache_free(struct fs_cache *c);

#endif

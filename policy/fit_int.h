/* Internal to fit: the state the fitting steps share (policy/fit.c,
 * policy/fitns.c).  Not for shim/. */
#ifndef SB_FIT_INT_H
#define SB_FIT_INT_H

#include "fit.h"

/* One carve-out: a path to keep read-only or hidden inside what is
 * otherwise granted.  Strings owned (fitctx_free). */
struct carve {
	char *tree;  /* canonical writable tree, NULL when outside all */
	char *rel;   /* inside tree */
	char *abs;   /* tree/rel, or the canonical path outside */
	char *cut;   /* inside a tree: the first component that is not a directory (or abs) */
	enum fs_kind cut_kind;
	bool hidden;
	bool builtin;  /* from the built-in protect list (never costs function) */
	bool exists;
	bool dir;
	unsigned part; /* the unenforced name that may leave it out (expansion) */
	char where[512];
};

/* resolve() of one entry of a profile path list, asked once per fit()
 * (8 bytes: one per entry of lists of 10,000). */
struct fit_canon {
	int32_t fd;          /* rc == 0: the view's kept() descriptor, -1: none */
	int16_t rc;          /* 0 or resolve()'s negative errno (errno values are below 4096) */
	unsigned char kind;  /* enum fs_kind */
	unsigned char state; /* 0: not asked; 1: the entry is its own canonical name; 2: see fit_memo.copy */
};

/* The memo of fit_entry() for writable, readable, executable and caches
 * (in that order), one slot per entry; owned by fit().  copy[k][i]: the
 * canonical name of entry i when it differs from the entry (malloc'd),
 * the array made only when one does. */
struct fit_memo {
	struct fit_canon *v[4];
	char **copy[4];
};

/* Everything the steps of fit() share; owned by fit(), freed by
 * fitctx_free().  `p`, `h`, `fs`, `pl` are borrowed. */
struct fitctx {
	const struct profile *p;
	const struct host *h;
	const struct fs_view *fs;
	struct plan *pl;
	char **wcanon;          /* canonical writable trees (NULL: missing), p->writable.v.n of them */
	struct carve *cv;
	size_t ncv;
	enum net_mode net;      /* effective network mode ("loopback" → "off" without a namespace) */
	bool views;             /* /run views hide pathname sockets (mount mode, ABI < 9) */
	bool shm;               /* a private /dev/shm is mounted: grant it */
	struct strvec priv_tmp; /* /tmp, /var/tmp made private: granted writable */
	struct strvec home_view; /* an ungranted $HOME shown empty: listable */
	struct strvec excl_r;   /* trees go around these (expansion): /dev, hidden */
	struct strvec excl_w;   /* writable trees also go around read-only carve-outs */
	struct strvec ro_read;  /* existing read-only carve-outs: readable again (expansion) */
	char why[320];          /* why there is no mount namespace */
	struct fit_memo *memo;  /* fit_entry()'s answers (mutable behind a const fitctx) */
	struct fs_cache *cache; /* behind `fs`: list entries are looked up with their own strings lent */
};

void fitctx_free(struct fitctx *fc);
/* resolve() of entry i of list `l` — one of the profile's writable,
 * readable, executable, caches — through fc->fs, asked once per fit():
 * those lists are walked once per view, carve-out, keep and grant, and
 * at 10,000 entries a lookup in the fs cache for each entry of each walk
 * was most of fit()'s own time.  Asked through the fs cache, so an
 * entry named twice (in one list or two, or by a carve-out or the git
 * routes) gets one answer from one look; the default executable list is the
 * readable then the writable entries (profile_parse), so its entries
 * share their answers.  0 with *canon (borrowed until fitctx_free) and
 * *kind, or the negative errno.  Any other list is a programming error
 * (abort). */
int fit_entry(const struct fitctx *fc, const struct pathlist *l, size_t i,
	      const char **canon, enum fs_kind *kind);
/* The descriptor the view kept when fit_entry() resolved that entry
 * (fs_view.kept; the view's owner's), or -1: none, or not resolved. */
int fit_entry_kept(const struct fitctx *fc, const struct pathlist *l, size_t i);
/* A part the host cannot enforce: left out (noted) when the profile allows
 * it through `part` (an enum unenforced_part bit, 0: only best_effort),
 * else recorded as refused.  Never fails. */
void fit_gap(struct fitctx *fc, unsigned part, const char *where,
	     const char *what, const char *reason);
/* Namespaces and carve-outs (policy/fitns.c): mounts where a namespace
 * can be had, Landlock expansion otherwise.  0 or -1 with `err`. */
int fit_ns(struct fitctx *fc, struct sb_err *err);
/* Lexically normalise absolute `in` (collapse "//" and "/./"); refuse
 * "..".  0 or -1 with `err` naming `where`. */
int fit_normalise(const char *in, char *out, size_t n, const char *where,
		  struct sb_err *err);
/* The path within a granted-readable list (readable, writable, caches,
 * tmp, private /tmp) that holds canonical `path`: true when readable. */
bool fit_readable(const struct fitctx *fc, const char *path);
/* The canonical writable tree holding `path` strictly inside it, compared
 * lexically with the profile's and the canonical spelling of each tree;
 * *rel gets the rest of `path` (borrowed from it).  NULL if none. */
const char *fit_in_writable(const struct fitctx *fc, const char *path, const char **rel);
/* Record a carve-out of `abs` (= tree/rel inside canonical writable tree
 * `tree`, or tree NULL for a path outside every tree), looking at it
 * through lkind() (exists, directory) and carve_cut().  Strings copied.
 * Returns the new entry, valid until the next call (the array grows). */
struct carve *fit_carve_add(struct fitctx *fc, const char *tree, const char *rel,
			    const char *abs, bool hidden, unsigned part, const char *where);
/* The HOME the command will see (env.set: *set true; else the shim's own
 * unless unset or cleared), borrowed.  NULL when none. */
const char *fit_command_home(const struct fitctx *fc, bool *set);
/* Git's own routes to code run later (policy/fitgit.c): the repositories
 * each writable tree holds or lies in, resolved as git resolves them
 * (gitfiles, commondir, core.hooksPath, include and includeIf, linked
 * worktrees, submodules), and the home files that run code later, added
 * as built-in carve-outs where they lie inside a writable tree.  Reads
 * through fc->fs only.  Never fails: what it cannot read it remarks. */
void fit_git_routes(struct fitctx *fc);

#endif

/* Small shared helpers for policy/ and shim/: string vectors, the error
 * record every stage fills, and allocation that cannot return NULL. */
#ifndef SB_UTIL_H
#define SB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable array of owned, NUL-terminated strings.  `v` is NULL-terminated
 * whenever n > 0 so it can be handed to execve() as is. */
struct strvec {
	char **v;
	size_t n, cap;
};

/* Append a copy of `s`.  Aborts on out-of-memory (a sandbox that cannot
 * allocate a few bytes before exec has nothing sensible left to do). */
void sv_push(struct strvec *sv, const char *s);
/* Append `s`, taking ownership of it (must come from malloc). */
void sv_push_own(struct strvec *sv, char *s);
/* True if an element equals `s`. */
bool sv_has(const struct strvec *sv, const char *s);
/* Free every element and the array; leaves an empty vector. */
void sv_free(struct strvec *sv);
/* Drop every element equal to an earlier one, keeping the first of each
 * in its place: O(n log n), where sv_has before every push is O(n^2)
 * (thousands of names with hundreds of writable trees). */
void sv_dedupe(struct strvec *sv);
/* For each of s[0..n): true when it is not NULL and no earlier element
 * equals it.  O(n log n) (a sort of the places).  The array is the
 * caller's (free). */
bool *first_of_each(const char *const *s, size_t n);

/* Allocation that cannot fail: on out-of-memory they print one line
 * ("__sandbox: out of memory") and _Exit(125), as no layer has been
 * applied yet that could be left half done.  Sizes in bytes; a size of 0
 * still returns a unique pointer (malloc may return NULL for 0).  The
 * caller owns the result (free()).
 * xmalloc: n bytes, uninitialised. */
void *xmalloc(size_t n);
/* xcalloc: n elements of m bytes, zeroed (calloc checks n * m for
 * overflow). */
void *xcalloc(size_t n, size_t m);
/* xrealloc: resize `p` (NULL: allocate) to n bytes; returns the (moved)
 * block, `p` is no longer valid. */
void *xrealloc(void *p, size_t n);
/* xstrdup: a copy of NUL-terminated `s`. */
char *xstrdup(const char *s);
/* Make room for element `n` of array `p` (holding `n` elements of `size`
 * bytes): capacity doubles (8, 16, 32, ...), so appending stays amortised
 * O(1) — one realloc per element copied the whole array each time, which
 * the fuzzer found slow on long lists.  Returns the (moved) array. */
void *xgrow(void *p, size_t n, size_t size);

/* Copies of strings that live as long as the arena: packed into chunks
 * of 4 KiB doubling to 64 KiB (a longer string gets a chunk of its own) that never move,
 * so a pointer stays valid until str_arena_free().  One malloc per chunk
 * instead of one per string: the plan's rules hold two strings each, and
 * a profile of 10,000 paths makes 20,000 rules.  Zeroed: empty. */
struct str_arena {
	char **chunk;
	size_t n;          /* chunks */
	size_t used, cap;  /* of the last one */
};
/* A copy of `s` in `a` (owned by the arena: never free() it). */
char *str_arena_dup(struct str_arena *a, const char *s);
/* Free every chunk; `a` is empty again. */
void str_arena_free(struct str_arena *a);
/* Strings numbered 0, 1, ... in the order first added, found through a
 * hash index (FNV-1a, open addressing, at most three quarters full).
 * A string is copied into the index's arena, or lent (si_add_lent: the
 * caller's, which outlives the index — a profile's path looked up while
 * the profile stands): no allocation per string, and a profile of
 * 10,000 paths is not held twice.  Growing the index rehashes nothing
 * (the hashes are kept).  Owns its memory (si_free); zero-initialised
 * is empty.  Numbers fit 32 bits. */
struct strindex {
	const char **str;       /* per number: its string (the arena's, or lent) */
	uint32_t *hash;         /* per number: its hash */
	size_t n;               /* numbers given */
	uint32_t *idx;          /* number + 1; 0: empty */
	size_t icap;            /* a power of two, 0 before the first add */
	struct str_arena arena; /* the copies */
};
/* The number of `s`, or -1 when it was never added. */
long si_find(const struct strindex *x, const char *s);
/* The number of `s`; when new it gets the next one (x->n - 1 after), a
 * copy of `s` is kept, and *added is set. */
size_t si_add(struct strindex *x, const char *s, bool *added);
/* The same, keeping `s` itself when new: it must outlive the index. */
size_t si_add_lent(struct strindex *x, const char *s, bool *added);
/* `s` copied into the arena, unnumbered (stable until si_free). */
const char *si_intern(struct strindex *x, const char *s);
/* Free everything; leaves it empty. */
void si_free(struct strindex *x);
/* The JSON location ".key[i]" of entry i of list `key` into buf[n]
 * (truncated to fit; n >= 1), without printf: fit() names each of a
 * profile's 10,000 paths.  Returns buf. */
char *loc_entry(char *buf, size_t n, const char *key, size_t i);
/* A system call's answer (0 or -errno) kept in 16 bits, as the fs cache
 * and fit's memo store it: errno values are below 4096; anything past
 * that (never seen) is kept as -EIO. */
int16_t rc16(int rc);
/* malloc'd printf; aborts on out-of-memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True if absolute path `inner` is `outer` or lies below it, component
 * by component ("/a/bc" is not within "/a/b"); every path is within "/".
 * Lexical only — no symlink is followed, no "." or ".." interpreted — so
 * callers pass canonical or normalised paths (fit's resolve(), the plan's
 * rules and mounts). */
bool path_within(const char *inner, const char *outer);
/* Lexically normalise `in` as an absolute path into out[n]: "//" and "."
 * dropped; ".." takes the previous component (never above "/") when
 * `up`, else is refused.  0, -EINVAL (".." without `up`) or
 * -ENAMETOOLONG. */
int path_lexical(const char *in, char *out, size_t n, bool up);

/* True if environment entry `entry` ("NAME=VALUE") sets the variable whose
 * name is the first `n` bytes of `name`.  An entry without '=' sets
 * nothing and never matches. */
bool env_entry_is(const char *entry, const char *name, size_t n);
/* True if environment entry `entry` ("NAME=VALUE", or a bare NAME) is
 * kept by one of `pats`: a name, or "PREFIX*". */
bool env_keeps(const struct strvec *pats, const char *entry);

/* "Did you mean": which of a fixed set of names (the keys of one JSON
 * object level) a mistyped `word` is closest to.  Feed every candidate
 * through sb_near_add(); distance is optimal string alignment (Levenshtein
 * plus adjacent transpositions, as git's "did you mean"), case ignored.
 * A candidate counts only when it is at most len/3 edits away, clamped to
 * 1..2 (so "tpm" finds "tmp", "writeable" finds "writable", "foo" finds
 * nothing).  Fixed size, no allocation: words longer than SB_NEAR_MAX
 * match nothing.  `all` collects every candidate, comma-separated, for an
 * "expected a, b, c" list. */
#define SB_NEAR_MAX 64
struct sb_near {
	const char *word;  /* the unknown name (borrowed) */
	unsigned best;     /* distance of m[]; above any threshold while none */
	unsigned nbest;    /* candidates at that distance (m[] holds two) */
	const char *m[2];  /* the nearest candidates (borrowed) */
	char all[512];     /* "a, b, c": every candidate added */
};
void sb_near_init(struct sb_near *n, const char *word);
void sb_near_add(struct sb_near *n, const char *cand);
/* Render the suggestion, `"a"` or `"a" or "b"`, into buf; false (and buf
 * "") when no candidate was close enough or more than two tie. */
bool sb_near_format(const struct sb_near *n, char *buf, size_t len);

/* The one error shape of the project: what failed, where in the user's
 * input (JSON location such as ".writable[1]", may be empty), which path
 * (may be empty), and why.  Rendered by sb_err_line() as
 *   profile .writable[1] "/srv/x": No such file or directory
 * Only main() prints it. */
struct sb_err {
	char where[128]; /* JSON location, "" if none */
	char path[512];  /* the user's path, "" if none */
	char why[1536];  /* the reason, human readable (a refusal lists every part) */
};

/* Fill `e` (if non-NULL); returns -1 so callers can `return sb_fail(...)`. */
int sb_fail(struct sb_err *e, const char *where, const char *path,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Render "profile WHERE \"PATH\": WHY" (parts omitted when empty) into buf. */
void sb_err_line(const struct sb_err *e, char *buf, size_t n);

#endif

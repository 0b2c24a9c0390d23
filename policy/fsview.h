/* The only window policy/ has on the filesystem: read-only resolution,
 * directory listing and reading small files (git's configuration) through function pointers, so unit tests can feed fake
 * trees.  shim/fsview.c is the real implementation. */
#ifndef SB_FSVIEW_H
#define SB_FSVIEW_H

#include <stdbool.h>
#include <stddef.h>

enum fs_kind { FS_MISSING = 0, FS_DIR, FS_FILE, FS_SYMLINK, FS_OTHER };

/* Called once per directory entry (never "." or ".."); return non-zero to
 * stop listing. */
typedef int (*fs_entry_cb)(void *arg, const char *name, enum fs_kind kind);

struct fs_view {
	/* Canonicalise absolute `path` (symlinks followed, like realpath(3))
	 * into out[outsz] and report the kind of what it names.  Returns 0 or
	 * a negative errno (-ENOENT, -EACCES, -ENAMETOOLONG, ...). */
	int (*resolve)(void *ctx, const char *path, char *out, size_t outsz,
		       enum fs_kind *kind);
	/* Kind of `path` itself, symlinks not followed (lstat).  Returns 0
	 * and sets *kind (FS_MISSING when absent), or a negative errno other
	 * than -ENOENT. */
	int (*lkind)(void *ctx, const char *path, enum fs_kind *kind);
	/* List canonical directory `dir`.  Returns 0 or a negative errno. */
	int (*list)(void *ctx, const char *dir, fs_entry_cb cb, void *arg);
	/* Read the regular file `path` (symlinks followed, as git follows
	 * them) into buf[bufsz]: at most bufsz-1 bytes, NUL-terminated, the
	 * count in *len; *truncated when the file holds more (the caller
	 * parses the part it got and says so).  Never blocks: anything but a
	 * regular file (a FIFO, a device) is -EINVAL.  0 or a negative errno
	 * (-ENOENT, -EACCES, -EISDIR, -EINVAL, ...).  Read-only. */
	int (*read)(void *ctx, const char *path, char *buf, size_t bufsz,
		    size_t *len, bool *truncated);
	void *ctx;
	/* The descriptor the view keeps open for the path of the last
	 * resolve() (O_PATH, owned by whoever owns the view: valid until it
	 * is released, shim/fsview.c; a Landlock rule on that very path
	 * may be added with it instead of a second lookup), or -1 when that
	 * call failed or kept none.  NULL: a view that keeps none (tests'
	 * fakes). */
	int (*kept)(void *ctx);
};

/* fs->kept() of a view that may keep none: -1 then. */
static inline int fs_view_kept(const struct fs_view *fs)
{
	return fs->kept ? fs->kept(fs->ctx) : -1;
}

#endif

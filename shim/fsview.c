/* The real filesystem view handed to fit(): read-only lookups only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

static enum fs_kind kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return FS_DIR;
	if (S_ISLNK(m))
		return FS_SYMLINK;
	if (S_ISREG(m))
		return FS_FILE;
	return FS_OTHER;
}

/* Canonical name of `path` (symlinks followed) into buf[PATH_MAX] and its
 * stat, for a path that goes through a symlink (or is not spelled
 * canonically, or openat2 is missing).  One open and the kernel's own
 * name for the open file (/proc/self/fd/N): the path is walked once.
 * musl's realpath(3) reads every prefix of the path as a link, walking
 * ever longer prefixes.  realpath when /proc is not mounted (or the name
 * it gives is not a plain path). */
static int canonical(const char *path, char *buf, struct stat *st)
{
	/* No O_CLOEXEC: closed below before anything can exec (the shim is
	 * single-threaded), and musl follows O_CLOEXEC with an fcntl for
	 * kernels older than 2.6.23 — one more syscall per path. */
	int fd = open(path, O_PATH);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	char link[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, buf, PATH_MAX);
	close(fd);
	/* d_path marks unreachable or deleted names ("(deleted)", not
	 * starting with '/' outside the root): let realpath decide */
	if (len > 0 && len < PATH_MAX && buf[0] == '/') {
		buf[len] = 0;
		if (!strstr(buf, " (deleted)"))
			return 0;
	}
	if (!realpath(path, buf))
		return -errno;
	return stat(buf, st) < 0 ? -errno : 0;
}

/* True when absolute `p` is spelled as resolve() answers: no empty, "."
 * or ".." component, no trailing '/' (but "/" itself).  Then a lookup
 * that met no symlink names exactly `p` (RESOLVE_NO_SYMLINKS does not
 * refuse ".."; this does). */
static bool spelled_canonical(const char *p)
{
	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (const char *c = p + 1;; ) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[n])
			return true;
		c += n + 1;
	}
}

static enum fs_kind landlock_kind(mode_t m)
{
	enum fs_kind k = kind_of(m);
	/* character and block devices are files for Landlock's purposes */
	return k == FS_OTHER ? FS_FILE : k;
}

/* ---- descriptors kept from resolve() for the Landlock rules ---- */

/* Descriptors above this number are not kept: what the rest of the set-up
 * opens at once (mount sources, the denial report, the pipes of
 * no_survivors) stays within RLIMIT_NOFILE. */
#define FSR_RESERVE 256

/* Room below RLIMIT_NOFILE for descriptor `fd` plus the reserve: the soft
 * limit is raised toward the hard one (doubling, so a profile of 10,000
 * paths costs a handful of prlimit calls), once remembered for
 * fsview_release() to put back.  True when `fd` may be kept. */
static bool fsr_room(struct fs_real *s, int fd)
{
	struct rlimit now;
	if (!s->limit_known) {
		if (prlimit(0, RLIMIT_NOFILE, NULL, &s->limit0) < 0)
			return false;
		s->limit_known = true;
		s->limit = s->limit0.rlim_cur;
	}
	if ((rlim_t)fd + FSR_RESERVE < s->limit)
		return true;
	if (s->limit >= s->limit0.rlim_max)
		return false;
	now = s->limit0;
	now.rlim_cur = s->limit * 2 < s->limit0.rlim_max ? s->limit * 2 : s->limit0.rlim_max;
	if (prlimit(0, RLIMIT_NOFILE, &now, NULL) < 0)
		return false;
	s->limit = now.rlim_cur;
	s->raised = true;
	return (rlim_t)fd + FSR_RESERVE < s->limit;
}

/* Keep `fd` for the Landlock rule on the path just resolved (kept()),
 * or close it when RLIMIT_NOFILE has no room for it. */
static void fsr_put(struct fs_real *s, int fd)
{
	if (!fsr_room(s, fd)) {
		close(fd);
		return;
	}
	s->fds = xgrow(s->fds, s->nkept, sizeof *s->fds);
	s->fds[s->nkept++] = fd;
	s->last = fd;
}

void close_set(const int *fd, size_t n)
{
	if (!n)
		return;
	int lo = fd[0], hi = fd[0];
	for (size_t i = 1; i < n; i++) {
		lo = fd[i] < lo ? fd[i] : lo;
		hi = fd[i] > hi ? fd[i] : hi;
	}
	size_t span = (size_t)(hi - lo) + 1;
	unsigned char *mine = xcalloc(span, 1);
	for (size_t i = 0; i < n; i++)
		mine[fd[i] - lo] = 1;
	for (size_t a = 0; a < span;) {
		if (!mine[a]) {
			a++;
			continue;
		}
		size_t b = a;
		while (b + 1 < span && mine[b + 1])
			b++;
		if (sb_close_range((unsigned)(lo + (int)a), (unsigned)(lo + (int)b), 0) < 0)
			for (size_t f = a; f <= b; f++)
				close(lo + (int)f);
		a = b + 1;
	}
	free(mine);
}

void fsview_release(struct fs_real *s)
{
	close_set(s->fds, s->nkept);
	/* the command gets the limit the shim was started with */
	if (s->raised)
		prlimit(0, RLIMIT_NOFILE, &s->limit0, NULL);
	free(s->fds);
	memset(s, 0, sizeof *s);
	s->last = -1;
}

/* One openat2 that follows no symlink at all (nor a magic link): -errno
 * or the O_PATH descriptor, *kind set.  O_DIRECTORY first — profile
 * paths are mostly directories, and then no fstat is needed for the
 * kind; ENOTDIR on the last component means a file (devices count as
 * files for Landlock), opened again without it. */
static int open_plain(const char *path, enum fs_kind *kind)
{
	struct sb_open_how how = {O_PATH | O_CLOEXEC | O_DIRECTORY, 0,
				  SB_RESOLVE_NO_SYMLINKS | SB_RESOLVE_NO_MAGICLINKS};
	int fd = sb_openat2(AT_FDCWD, path, &how);
	if (fd >= 0) {
		*kind = FS_DIR;
		return fd;
	}
	if (errno != ENOTDIR)
		return -errno;
	how.flags = O_PATH | O_CLOEXEC;
	fd = sb_openat2(AT_FDCWD, path, &how);
	if (fd < 0)
		return -errno;
	*kind = FS_FILE;
	return fd;
}

/* resolve(): one openat2 that follows no symlink at all proves a path
 * spelled canonically to be its own canonical name (no readlink of
 * /proc/self/fd), and tells a directory by O_DIRECTORY: one system call
 * for a directory, two for a file.  With `s` keeping, the O_PATH
 * descriptor stays open for the Landlock rule on that path (kept()), so
 * the path is never looked up again.  Anything else (a symlink on the
 * way: ELOOP; no openat2 before Linux 5.6 or under a filter that hides
 * it: ENOSYS, EPERM; EINVAL, E2BIG: flags this kernel does not know)
 * takes the one-walk canonical() above. */
static int resolve_in(struct fs_real *s, const char *path, char *out, size_t n,
		      enum fs_kind *kind)
{
	char buf[PATH_MAX];
	struct stat st;
	bool plain = spelled_canonical(path);
	if (s)
		s->last = -1;
	if (plain) {
		int fd = open_plain(path, kind);
		if (fd >= 0 && strlen(path) >= n) {
			close(fd);
			return -ENAMETOOLONG;
		}
		if (fd >= 0) {
			if (s)
				fsr_put(s, fd);
			else
				close(fd);
			strcpy(out, path);
			return 0;
		}
		if (fd != -ELOOP && fd != -ENOSYS && fd != -EPERM && fd != -EINVAL && fd != -E2BIG)
			return fd;
	}
	int rc = canonical(path, buf, &st);
	if (rc)
		return rc;
	if (strlen(buf) >= n)
		return -ENAMETOOLONG;
	strcpy(out, buf);
	*kind = landlock_kind(st.st_mode);
	return 0;
}

static int real_resolve(void *ctx, const char *path, char *out, size_t n,
			enum fs_kind *kind)
{
	return resolve_in(ctx, path, out, n, kind);
}

static int real_lkind(void *ctx, const char *path, enum fs_kind *kind)
{
	(void)ctx;
	struct stat st;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		*kind = FS_MISSING;
		return 0;
	}
	*kind = landlock_kind(st.st_mode);
	return 0;
}

static int real_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	(void)ctx;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	struct dirent *de;
	int rc = 0;
	errno = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		enum fs_kind k;
		switch (de->d_type) {
		case DT_DIR: k = FS_DIR; break;
		case DT_LNK: k = FS_SYMLINK; break;
		case DT_REG: k = FS_FILE; break;
		case DT_UNKNOWN: {
			/* some filesystems do not fill d_type */
			struct stat st;
			if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			k = kind_of(st.st_mode);
			if (k == FS_OTHER)
				k = FS_FILE;
			break;
		}
		default: k = FS_FILE;
		}
		if ((rc = cb(arg, de->d_name, k)))
			break;
		errno = 0;
	}
	if (!de && errno && !rc)
		rc = -errno;
	closedir(d);
	return rc > 0 ? 0 : rc;
}

static int real_read(void *ctx, const char *path, char *buf, size_t n,
		     size_t *len, bool *truncated)
{
	(void)ctx;
	*len = 0;
	*truncated = false;
	if (n == 0)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO planted in place of a config file must not
	 * hang the shim before it is checked below */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	while (rc == 0 && *len < n - 1) {
		ssize_t r = read(fd, buf + *len, n - 1 - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rc = -errno;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	char extra;
	if (rc == 0 && *len == n - 1 && read(fd, &extra, 1) == 1)
		*truncated = true;
	close(fd);
	buf[*len] = 0;
	return rc;
}

static int real_kept(void *ctx)
{
	const struct fs_real *s = ctx;
	return s ? s->last : -1;
}

const struct fs_view fsview_real = {real_resolve, real_lkind, real_list, real_read, NULL, real_kept};

struct fs_view fsview_keeping(struct fs_real *s)
{
	memset(s, 0, sizeof *s);
	s->last = -1;
	return (struct fs_view){real_resolve, real_lkind, real_list, real_read, s, real_kept};
}

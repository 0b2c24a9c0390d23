/* The real filesystem view handed to fit(): read-only lookups only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"

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
 * stat.  One open and the kernel's own name for the open file
 * (/proc/self/fd/N): the path is walked once.  musl's realpath(3) reads
 * every prefix of the path as a link, walking ever longer prefixes — most
 * of the time fit() took on a profile of thousands of paths.  realpath
 * when /proc is not mounted (or the name it gives is not a plain path). */
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

static int real_resolve(void *ctx, const char *path, char *out, size_t n,
			enum fs_kind *kind)
{
	(void)ctx;
	char buf[PATH_MAX];
	struct stat st;
	int rc = canonical(path, buf, &st);
	if (rc)
		return rc;
	if (strlen(buf) >= n)
		return -ENAMETOOLONG;
	strcpy(out, buf);
	*kind = kind_of(st.st_mode);
	/* character and block devices are files for Landlock's purposes */
	if (*kind == FS_OTHER)
		*kind = FS_FILE;
	return 0;
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
	*kind = kind_of(st.st_mode);
	if (*kind == FS_OTHER)
		*kind = FS_FILE;
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

const struct fs_view fsview_real = {real_resolve, real_lkind, real_list, real_read, NULL};

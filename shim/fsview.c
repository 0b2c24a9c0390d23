/* The real filesystem view handed to fit(): read-only lookups only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

static int real_resolve(void *ctx, const char *path, char *out, size_t n,
			enum fs_kind *kind)
{
	(void)ctx;
	char buf[PATH_MAX];
	struct stat st;
	if (!realpath(path, buf))
		return -errno;
	if (strlen(buf) >= n)
		return -ENAMETOOLONG;
	if (stat(buf, &st) < 0)
		return -errno;
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

const struct fs_view fsview_real = {real_resolve, real_lkind, real_list, NULL};

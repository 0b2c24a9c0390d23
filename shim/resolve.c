/* Opening profile paths race-free (issue 10, class 4): fit() checked that
 * no path goes through a symlink inside a writable tree, but a concurrent
 * process (an earlier sandboxed run still going, in the same workspace)
 * can swap a directory for a symlink between that check and the shim's
 * mount or Landlock rule.  So every path is opened here, once, as an
 * O_PATH descriptor that follows no symlink inside those trees, and the
 * mounts, rules and chdir use that descriptor: what was checked is what
 * is used, or the run is refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

/* True when directory `dir` (canonical) lies in one of `trees`: a link in
 * it is one the command could have planted. */
static bool in_tree(const struct strvec *trees, const char *dir)
{
	for (size_t i = 0; i < trees->n; i++)
		if (path_within(dir, trees->v[i]))
			return true;
	return false;
}

/* The walk of open_path() for a path that goes through a symlink (or
 * without openat2): component by component, O_PATH|O_NOFOLLOW, keeping
 * the canonical path of the directory reached so far.  A symlink in a
 * directory inside a tree ends it (-ELOOP, its path in link[n]); one
 * elsewhere is read and resolution goes on from its target (at most 40,
 * as the kernel's own limit). */
static int walk(const struct strvec *trees, const char *path, int flags,
		char *link, size_t n)
{
	char rest[8192], cur[4096] = "/";
	int hops = 0;
	int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	snprintf(rest, sizeof rest, "%s", path);
	char *q = rest;
	for (;;) {
		while (*q == '/')
			q++;
		if (!*q)
			break;
		size_t k = strcspn(q, "/");
		char comp[256];
		if (k >= sizeof comp) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, q, k);
		comp[k] = 0;
		q += k;
		bool last = q[strspn(q, "/")] == 0;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			/* only from a link's target (profile paths have none) */
			int up = openat(dfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			close(dfd);
			if (up < 0)
				return -errno;
			dfd = up;
			char *s = strrchr(cur, '/');
			if (s && s != cur)
				*s = 0;
			else
				snprintf(cur, sizeof cur, "/");
			continue;
		}
		int fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			close(dfd);
			return -e;
		}
		if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
			char target[4096];
			ssize_t tl = readlinkat(fd, "", target, sizeof target - 1);
			int e = errno;
			close(fd);
			if (in_tree(trees, cur)) {
				snprintf(link, n, "%s%s%s", cur, strcmp(cur, "/") ? "/" : "", comp);
				close(dfd);
				return -ELOOP;
			}
			if (tl < 0 || ++hops > 40 || (size_t)tl + strlen(q) + 2 > sizeof rest) {
				close(dfd);
				return tl < 0 ? -e : -ELOOP;
			}
			target[tl] = 0;
			/* the target, then what was left of the path */
			char tmp[8192];
			snprintf(tmp, sizeof tmp, "%s/%s", target, q);
			memcpy(rest, tmp, sizeof rest);
			q = rest;
			if (target[0] == '/') {
				close(dfd);
				if ((dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
					return -errno;
				snprintf(cur, sizeof cur, "/");
			}
			continue;
		}
		if (!last && !S_ISDIR(st.st_mode)) {
			close(fd);
			close(dfd);
			return -ENOTDIR;
		}
		close(dfd);
		dfd = fd;
		if (strlen(cur) + k + 2 > sizeof cur) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		snprintf(cur + strlen(cur), sizeof cur - strlen(cur), "%s%s", strcmp(cur, "/") ? "/" : "", comp);
	}
	struct stat st;
	if ((flags & O_DIRECTORY) && (fstat(dfd, &st) < 0 || !S_ISDIR(st.st_mode))) {
		close(dfd);
		return -ENOTDIR;
	}
	return dfd;
}

int open_path(const struct strvec *trees, const char *path, int flags,
	      char *link, size_t n)
{
	link[0] = 0;
	/* Most paths are canonical (fit() resolved them): one openat2 that
	 * refuses every symlink opens them.  ELOOP: a symlink somewhere,
	 * walked to see whether it lies inside a tree; ENOSYS before Linux
	 * 5.6 or under a seccomp filter that hides it (another sandbox),
	 * EINVAL/E2BIG for flags this kernel does not know: walked too. */
	struct sb_open_how how = {(uint64_t)(flags | O_PATH | O_CLOEXEC), 0,
				  SB_RESOLVE_NO_SYMLINKS | SB_RESOLVE_NO_MAGICLINKS};
	int fd = sb_openat2(AT_FDCWD, path, &how);
	if (fd >= 0)
		return fd;
	if (errno != ELOOP && errno != ENOSYS && errno != EINVAL && errno != E2BIG && errno != EPERM)
		return -errno;
	return walk(trees, path, flags, link, n);
}

int open_path_fail(struct sb_err *err, const char *where, const char *path,
		   int e, const char *link)
{
	if (e == ELOOP && link[0])
		return sb_fail(err, where, path, "the symlink %s inside a writable tree appeared after the profile was checked (a concurrent process swapping it in?); refusing to follow it",
			       link);
	return sb_fail(err, where, path, "%s", strerror(e));
}

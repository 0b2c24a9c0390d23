/* libFuzzer target for policy/: profile_parse() on arbitrary bytes, then,
 * for every document it accepts, fit() on a few hosts (Landlock ABI 0 to
 * beyond the newest known, seccomp missing, capabilities held or not) over
 * a fake filesystem, then plan_json().  Everything is freed, so
 * LeakSanitizer sees any leak.  No syscall beyond what the allocator does:
 * policy/ is pure, and the filesystem is the table below.
 *
 * Built by `make fuzz` (clang -fsanitize=fuzzer,address,undefined) and, with
 * tests/fuzz/replay.c as main(), by `make check-asan` to replay
 * tests/fuzz/regressions/ (every input that once crashed). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../policy/fit.h"
#include "../../policy/fsview.h"
#include "../../policy/plan.h"
#include "../../policy/profile.h"
#include "../../policy/util.h"

/* ---- fake filesystem ---------------------------------------------- */

struct fent {
	const char *path;
	enum fs_kind kind;
	const char *target; /* FS_SYMLINK: absolute target */
};

/* A small host: the default devices, a workspace, symlinks into /dev and
 * around it, a loop.  Paths not in the table are made up from their name
 * (see fake_kind) so fuzzed paths get past resolution and reach fit's
 * later checks instead of all stopping at ENOENT. */
static const struct fent table[] = {
	{"/", FS_DIR, NULL},
	{"/dev", FS_DIR, NULL},
	{"/dev/null", FS_FILE, NULL},
	{"/dev/zero", FS_FILE, NULL},
	{"/dev/full", FS_FILE, NULL},
	{"/dev/random", FS_FILE, NULL},
	{"/dev/urandom", FS_FILE, NULL},
	{"/dev/tty", FS_FILE, NULL},
	{"/dev/ptmx", FS_FILE, NULL},
	{"/dev/pts", FS_DIR, NULL},
	{"/dev/shm", FS_DIR, NULL},
	{"/dev/fd", FS_SYMLINK, "/proc/self/fd"},
	{"/dev/stdin", FS_SYMLINK, "/proc/self/fd/0"},
	{"/etc", FS_DIR, NULL},
	{"/etc/passwd", FS_FILE, NULL},
	{"/etc/resolv.conf", FS_SYMLINK, "/run/resolv.conf"},
	{"/usr", FS_DIR, NULL},
	{"/usr/bin", FS_DIR, NULL},
	{"/usr/lib", FS_DIR, NULL},
	{"/lib", FS_SYMLINK, "/usr/lib"},
	{"/bin", FS_SYMLINK, "usr/bin"}, /* relative, as on Debian */
	{"/tmp", FS_DIR, NULL},
	{"/run", FS_DIR, NULL},
	{"/var", FS_DIR, NULL},
	{"/var/run", FS_SYMLINK, "/run"},
	{"/home", FS_DIR, NULL},
	{"/home/u", FS_DIR, NULL},
	{"/home/u/ws", FS_DIR, NULL},
	{"/home/u/ws/.git", FS_DIR, NULL},
	{"/home/u/ws/to-dev", FS_SYMLINK, "/dev"},
	{"/home/u/ws/to-tty", FS_SYMLINK, "/dev/tty"},
	{"/home/u/ws/to-root", FS_SYMLINK, "/"},
	{"/home/u/ws/loop", FS_SYMLINK, "/home/u/ws/loop"},
	{"/proc", FS_DIR, NULL},
	{NULL, FS_MISSING, NULL},
};

static const struct fent *find(const char *path)
{
	for (size_t i = 0; table[i].path; i++)
		if (strcmp(table[i].path, path) == 0)
			return &table[i];
	return NULL;
}

/* Lexically normalise absolute `in` into out[n] ("//" and "." dropped,
 * ".." pops).  -ENAMETOOLONG when it does not fit. */
static int normalise(const char *in, char *out, size_t n)
{
	size_t len = 0;
	if (n < 2)
		return -ENAMETOOLONG;
	out[0] = '/';
	out[1] = 0;
	len = 1;
	const char *s = in;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = strchr(s, '/');
		size_t cl = e ? (size_t)(e - s) : strlen(s);
		if (cl == 1 && s[0] == '.') {
			/* nothing */
		} else if (cl == 2 && s[0] == '.' && s[1] == '.') {
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			out[len] = 0;
		} else {
			size_t need = len + (len > 1) + cl + 1;
			if (need > n)
				return -ENAMETOOLONG;
			if (len > 1)
				out[len++] = '/';
			memcpy(out + len, s, cl);
			len += cl;
			out[len] = 0;
		}
		s += cl;
	}
	return 0;
}

/* Kind of a path not in the table, from its last component: "missing"
 * → ENOENT, "denied" → EACCES, a '.' in it → a file, else a directory. */
static int fake_kind(const char *path, enum fs_kind *kind)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strstr(base, "missing"))
		return -ENOENT;
	if (strstr(base, "denied"))
		return -EACCES;
	*kind = strchr(base, '.') ? FS_FILE : FS_DIR;
	return 0;
}

static int fake_resolve(void *ctx, const char *path, char *out, size_t outsz,
			enum fs_kind *kind)
{
	(void)ctx;
	char cur[4096], next[8192];
	int r = normalise(path, cur, sizeof cur);
	if (r)
		return r;
	/* Follow symlinks on every prefix, like realpath(3), 40 hops at most. */
	for (int hops = 0; hops < 40; hops++) {
		const struct fent *hit = NULL;
		size_t plen = 0;
		for (size_t i = 1; cur[i - 1]; i++) {
			if (cur[i] != '/' && cur[i] != 0)
				continue;
			char save = cur[i];
			cur[i] = 0;
			const struct fent *e = find(cur);
			cur[i] = save;
			if (e && e->kind == FS_SYMLINK) {
				hit = e;
				plen = i;
				break;
			}
		}
		if (!hit) {
			const struct fent *e = find(cur);
			if (e) {
				*kind = e->kind;
			} else if ((r = fake_kind(cur, kind))) {
				return r;
			}
			if (strlen(cur) >= outsz)
				return -ENAMETOOLONG;
			strcpy(out, cur);
			return 0;
		}
		const char *rest = cur + plen;
		if (hit->target[0] == '/') {
			snprintf(next, sizeof next, "%s%s", hit->target, rest);
		} else {
			/* relative to the link's directory */
			char dir[4096];
			snprintf(dir, sizeof dir, "%.*s", (int)plen, cur);
			char *slash = strrchr(dir, '/');
			if (slash)
				slash[slash == dir ? 1 : 0] = 0;
			snprintf(next, sizeof next, "%s/%s%s", dir, hit->target, rest);
		}
		if ((r = normalise(next, cur, sizeof cur)))
			return r;
	}
	return -ELOOP;
}

static int fake_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	(void)ctx;
	size_t dl = strlen(dir);
	int any = 0;
	for (size_t i = 0; table[i].path; i++) {
		const char *p = table[i].path;
		if (strcmp(p, "/") == 0)
			continue;
		const char *name;
		if (strcmp(dir, "/") == 0)
			name = p + 1;
		else if (strncmp(p, dir, dl) == 0 && p[dl] == '/')
			name = p + dl + 1;
		else
			continue;
		if (strchr(name, '/'))
			continue;
		any = 1;
		if (cb(arg, name, table[i].kind))
			return 0;
	}
	if (!any && strstr(dir, "denied"))
		return -EACCES;
	return 0;
}

/* lstat(2)-like: the table's own kind, symlinks not followed; made-up
 * paths as in fake_kind, except that missing ones are FS_MISSING. */
static int fake_lkind(void *ctx, const char *path, enum fs_kind *kind)
{
	(void)ctx;
	char cur[4096];
	int r = normalise(path, cur, sizeof cur);
	if (r)
		return r;
	const struct fent *e = find(cur);
	if (e) {
		*kind = e->kind;
		return 0;
	}
	r = fake_kind(cur, kind);
	if (r == -ENOENT) {
		*kind = FS_MISSING;
		return 0;
	}
	return r;
}

/* The workspace's repository configuration, so fit() follows git's
 * routes (policy/fitgit.c) on every fuzzed profile writing there: a
 * hooks path, an include that includes itself, a gitfile. */
static int fake_read(void *ctx, const char *path, char *buf, size_t n, size_t *len, bool *trunc)
{
	(void)ctx;
	static const struct { const char *path, *text; } files[] = {
		{"/home/u/ws/.git/config", "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../x.inc\n"
					   "[includeIf \"gitdir:~/\"]\n\tpath = ~/g.inc\n"},
		{"/home/u/ws/x.inc", "[include]\n\tpath = x.inc\n[core]\n\tworktree = ..\n"},
		{"/home/u/ws/.gitmodules", "[submodule \"s\"]\n\tpath = ../../..\n"},
	};
	*len = 0;
	*trunc = false;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		if (strcmp(files[i].path, path) == 0) {
			size_t l = strlen(files[i].text);
			*len = l < n - 1 ? l : n - 1;
			*trunc = l > *len;
			memcpy(buf, files[i].text, *len);
			buf[*len] = 0;
			return 0;
		}
	return -ENOENT;
}

static const struct fs_view fake_fs = {
	.resolve = fake_resolve, .lkind = fake_lkind, .list = fake_list, .read = fake_read};

/* ---- hosts ---------------------------------------------------------- */

static struct host mkhost(int abi, int ll_errno, int seccomp, uint64_t caps)
{
	struct host h;
	memset(&h, 0, sizeof h);
	h.ll_abi = abi;
	h.ll_errno = abi ? 0 : ll_errno;
	h.seccomp = seccomp;
	h.seccomp_errno = seccomp ? 0 : EINVAL;
	h.cap_permitted = caps;
	h.persona = 0;
	strcpy(h.release, "fuzz");
	return h;
}

/* One document is fitted on hosts chosen by a cheap hash of its bytes,
 * plus ABI 2 and the newest known ABI every time (the matrix's two ends):
 * the filter table makes fit() the costly part, so not every host runs on
 * every input, but every host runs on many. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct sb_err err;
	if (profile_parse((const char *)data, size, &p, &err))
		return 0;
	static const int abis[] = {0, 0, 1, 3, 4, 5, 6, 7, 8, 9, 11, 64};
	uint32_t hsh = 2166136261u;
	for (size_t i = 0; i < size; i++)
		hsh = (hsh ^ data[i]) * 16777619u;
	size_t n = sizeof abis / sizeof abis[0];
	size_t k = hsh % n;
	struct host hosts[3] = {
		mkhost(2, 0, 1, 0),
		mkhost(LL_ABI_KNOWN, 0, 1, ~0ULL),
		mkhost(abis[k], (hsh >> 8) & 1 ? EOPNOTSUPP : ENOSYS, (hsh >> 9) % 4 != 0,
		       (hsh >> 10) & 1 ? ~0ULL : 1ULL << 10),
	};
	for (size_t i = 0; i < 3; i++) {
		struct plan pl;
		/* 1: parts refused, the plan kept (--check prints it too) */
		if (fit(&p, &hosts[i], &fake_fs, &pl, &err) < 0)
			continue;
		char *js = plan_json(&pl);
		if (!js)
			abort(); /* plan_json must render every plan it is given */
		free(js);
		plan_free(&pl);
	}
	profile_free(&p);
	return 0;
}

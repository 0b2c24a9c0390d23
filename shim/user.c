/* User layer (container entrypoints): resolve `user` from the image's own
 * /etc/passwd and /etc/group — parsed here, strictly, without NSS, so the
 * static binary needs nothing from the image — then switch to it.
 * Not musl's getpwnam_r/getgrnam_r/getgrouplist (tried): musl reads an
 * empty or overflowing uid/gid field as 0 (root), skips lines it cannot
 * parse (so a malformed line can hide a duplicate with uid 0), and its
 * getgrouplist asks nscd over /var/run/nscd/socket; guarding all of that
 * took as many lines as this parser (tests/user/user.t, "musl:" cases).
 *
 * user_resolve() runs before fit (nothing is changed; --check runs it
 * too); user_switch() runs after the namespaces and mounts (which need
 * root) and before env, parent death (a uid change clears PDEATHSIG) and
 * the capability layer.  capabilities(7): setresuid() from uid 0 clears
 * the permitted set unless PR_SET_KEEPCAPS is set; it is set across the
 * switch so caps_apply() still holds CAP_SETPCAP to drop the bounding set
 * and lock the securebits, and can keep the profile's capabilities for
 * the new user through the ambient set. */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "shim.h"

#define DB_MAX (16u << 20) /* 16 MiB: far beyond any real passwd/group file */
#define GROUPS_MAX 65536   /* NGROUPS_MAX since Linux 2.6.4 */

/* Read `path` whole into a NUL-terminated buffer (malloc'd).  Returns 0,
 * or a negative errno: open(2)'s or read(2)'s, -EFBIG for a file of
 * DB_MAX - 1 bytes or more, -EINVAL on a NUL byte (lines are parsed as C strings: one would be
 * cut short). */
static int read_db(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	char *buf;
	size_t n;
	/* DB_MAX - 1: the buffer, its NUL included, stays below DB_MAX */
	int rc = read_fd_all(fd, DB_MAX - 1, &buf, &n);
	close(fd);
	if (rc < 0)
		return rc;
	if (strlen(buf) != n) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

/* Split `line` in place at ':' into exactly `n` fields.  False if the
 * count differs. */
static bool split(char *line, char **f, int n)
{
	int k = 0;
	f[k++] = line;
	for (char *c = line; *c; c++)
		if (*c == ':') {
			if (k == n)
				return false;
			*c = 0;
			f[k++] = c + 1;
		}
	return k == n;
}

/* A decimal id 0..4294967294 (4294967295 is (uid_t)-1, "no change" to
 * setresuid): digits only, no sign, no blanks. */
static bool parse_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > 0xfffffffeULL)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* Call `fn` for each line of `db` split into `nf` fields; blank lines and
 * '#' comments are skipped (busybox and shadow-utils tolerate both); any
 * other line without exactly `nf` fields, or with an empty name, is an
 * error naming file and line: a file the shim cannot read exactly is not
 * guessed at.  `fn` returns 0 to go on, 1 to stop, -1 on an error it
 * filled.  Returns 0, or -1 with `err`. */
static int each_line(char *db, const char *path, int nf,
		     int (*fn)(char **f, unsigned line, void *arg), void *arg,
		     struct sb_err *err)
{
	unsigned line = 0;
	for (char *s = db, *next; s && *s; s = next) {
		char *nl = strchr(s, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		line++;
		if (!*s || *s == '#')
			continue;
		char *f[7];
		if (!split(s, f, nf) || !*f[0])
			return sb_fail(err, ".user", path, "line %u is not a valid entry (expected %d fields separated by ':')", line, nf);
		int r = fn(f, line, arg);
		if (r)
			return r < 0 ? -1 : 0;
	}
	return 0;
}

struct pw_find {
	const char *name;
	const char *path;
	unsigned found_line;
	uint32_t uid, gid;
	struct sb_err *err;
};

/* name:password:uid:gid:gecos:home:shell */
static int pw_line(char **f, unsigned line, void *arg)
{
	struct pw_find *q = arg;
	if (strcmp(f[0], q->name) != 0)
		return 0;
	/* two entries for one name: which one a libc would take depends on
	 * the libc; refuse rather than pick */
	if (q->found_line)
		return sb_fail(q->err, ".user.name", q->path, "user \"%s\" is listed twice (lines %u and %u)",
			       q->name, q->found_line, line);
	if (!parse_id(f[2], &q->uid) || !parse_id(f[3], &q->gid))
		return sb_fail(q->err, ".user.name", q->path, "line %u: user \"%s\" has no valid numeric uid and gid", line, q->name);
	q->found_line = line;
	return 0;
}

struct gr_find {
	const char *name;
	const char *path;
	uint32_t *groups;
	size_t n;
	struct sb_err *err;
};

/* name:password:gid:member,member,... — the groups listing `name` */
static int gr_line(char **f, unsigned line, void *arg)
{
	struct gr_find *q = arg;
	bool member = false;
	for (char *m = f[3], *end; m && *m; m = end ? end + 1 : NULL) {
		end = strchr(m, ',');
		size_t len = end ? (size_t)(end - m) : strlen(m);
		if (len == strlen(q->name) && strncmp(m, q->name, len) == 0)
			member = true;
	}
	if (!member)
		return 0;
	uint32_t gid;
	if (!parse_id(f[2], &gid))
		return sb_fail(q->err, ".user.name", q->path, "line %u: group \"%s\" has no valid numeric gid", line, f[0]);
	for (size_t i = 0; i < q->n; i++)
		if (q->groups[i] == gid)
			return 0;
	if (q->n == GROUPS_MAX)
		return sb_fail(q->err, ".user.name", q->path, "user \"%s\" is in more than %d groups", q->name, GROUPS_MAX);
	q->groups = xrealloc(q->groups, (q->n + 1) * sizeof *q->groups);
	q->groups[q->n++] = gid;
	return 0;
}

int user_resolve(struct profile *p, const struct host *h, struct sb_err *err)
{
	struct user_rule *u = &p->user;
	if (!u->set || u->resolved)
		return 0;
	/* Switching needs root: CAP_SETUID and CAP_SETGID (uid 0 of a user
	 * namespace counts).  Refused otherwise, never ignored. */
	const uint64_t need = (1ULL << CAP_SETUID) | (1ULL << CAP_SETGID);
	if (geteuid() != 0 || (h->cap_permitted & need) != need)
		return sb_fail(err, ".user", NULL, "switching user needs the shim to start as root (with CAP_SETUID and CAP_SETGID); it runs as uid %u%s",
			       (unsigned)geteuid(), geteuid() == 0 ? " without them" : "");
	if (u->name) {
		const char *pwf = "/etc/passwd", *grf = "/etc/group";
		char *db;
		int rc = read_db(pwf, &db);
		if (rc < 0)
			return sb_fail(err, ".user.name", pwf, "cannot read the user database: %s", strerror(-rc));
		struct pw_find q = {.name = u->name, .path = pwf, .err = err};
		rc = each_line(db, pwf, 7, pw_line, &q, err);
		free(db);
		if (rc)
			return -1;
		if (!q.found_line)
			return sb_fail(err, ".user.name", pwf, "no user \"%s\"", u->name);
		u->uid = q.uid;
		u->gid = q.gid;
		if (!u->groups_set) {
			/* An image without /etc/group has no supplementary
			 * groups to give. */
			rc = read_db(grf, &db);
			if (rc == -ENOENT) {
				u->groups_set = true;
			} else if (rc < 0) {
				return sb_fail(err, ".user.name", grf, "cannot read the group database: %s", strerror(-rc));
			} else {
				struct gr_find g = {.name = u->name, .path = grf, .err = err};
				rc = each_line(db, grf, 4, gr_line, &g, err);
				free(db);
				if (rc) {
					free(g.groups);
					return -1;
				}
				free(u->groups);
				u->groups = g.groups;
				u->ngroups = g.n;
				u->groups_set = true;
			}
		}
	}
	u->resolved = true;
	return 0;
}

_Static_assert(sizeof(gid_t) == sizeof(uint32_t), "gid_t is 32 bits on Linux");

/* True if this process's supplementary groups are exactly the set `g`
 * (order and repeats aside). */
static bool same_groups(const uint32_t *g, size_t n)
{
	int cur = getgroups(0, NULL);
	if (cur < 0 || (size_t)cur > GROUPS_MAX)
		return false;
	gid_t *have = xcalloc((size_t)cur + 1, sizeof *have);
	bool same = getgroups(cur, have) == cur;
	for (int i = 0; same && i < cur; i++) {
		bool found = false;
		for (size_t k = 0; k < n && !found; k++)
			found = have[i] == g[k];
		same = found;
	}
	for (size_t k = 0; same && k < n; k++) {
		bool found = false;
		for (int i = 0; i < cur && !found; i++)
			found = have[i] == g[k];
		same = found;
	}
	free(have);
	return same;
}

int user_switch(struct run *r, struct sb_err *err)
{
	const struct user_rule *u = &r->prof->user;
	if (!u->set)
		return 0;
	if (!u->resolved)
		return sb_fail(err, ".user", NULL, "internal error: the user was not resolved before the switch");
	/* Kept across the uid change: the permitted set (not the effective
	 * one, raised again below) — see the top of this file. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return sb_fail(err, ".user", NULL, "PR_SET_KEEPCAPS failed: %s", strerror(errno));
	/* Groups first: setgroups and setresgid need CAP_SETGID, which goes
	 * from the effective set with the uid change.  setgroups is skipped
	 * when the groups already are exactly these: a user namespace made
	 * with setgroups "deny" (unshare -r) refuses even a no-op. */
	if (!same_groups(u->groups, u->ngroups) &&
	    setgroups(u->ngroups, (const gid_t *)u->groups) < 0)
		return sb_fail(err, ".user.groups", NULL, "setting %zu supplementary groups failed: %s%s", u->ngroups, strerror(errno),
			       errno == EPERM ? " (a user namespace whose /proc/self/setgroups says deny refuses it)" : "");
	if (setresgid(u->gid, u->gid, u->gid) < 0)
		return sb_fail(err, ".user", NULL, "switching to gid %u failed: %s%s", (unsigned)u->gid, strerror(errno),
			       errno == EINVAL ? " (gid not mapped in this user namespace)" : "");
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return sb_fail(err, ".user", NULL, "switching to uid %u failed: %s%s", (unsigned)u->uid, strerror(errno),
			       errno == EINVAL ? " (uid not mapped in this user namespace)" : "");
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return sb_fail(err, ".user", NULL, "PR_SET_KEEPCAPS failed: %s", strerror(errno));
	/* Paranoia: the ids really are the target ones, all three. */
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    ru != u->uid || eu != u->uid || su != u->uid ||
	    rg != u->gid || eg != u->gid || sg != u->gid)
		return sb_fail(err, ".user", NULL, "the switch to uid %u gid %u did not take effect", (unsigned)u->uid, (unsigned)u->gid);
	/* Effective = permitted again, so caps_apply() can use CAP_SETPCAP. */
	if (capng_get_caps_process() < 0)
		return sb_fail(err, ".user", NULL, "reading this process's capabilities failed");
	for (unsigned c = 0; c <= CAP_LAST_CAP; c++)
		if (capng_have_capability(CAPNG_PERMITTED, c) &&
		    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE, c) < 0)
			return sb_fail(err, ".user", NULL, "raising capability %u failed", c);
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return sb_fail(err, ".user", NULL, "raising capabilities after the switch failed: %s", strerror(errno));
	return 0;
}

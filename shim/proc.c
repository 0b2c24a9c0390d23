/* Process layer: tmp directory, rlimits, environment, parent death and
 * session, inherited descriptors, working directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

extern char **environ;

/* The checks on tmp's descriptor `fd` (an fstat): a real directory owned
 * by `owner`, not world writable.  0 or -1 with `err`. */
static int tmp_check(int fd, const char *t, uid_t owner, struct stat *st, struct sb_err *err)
{
	/* a symlink planted here could point the command's temporary files
	 * anywhere; another owner or world write access would let someone
	 * else swap files under it */
	if (fstat(fd, st) < 0)
		return sb_fail(err, ".tmp", t, "%s", strerror(errno));
	if (S_ISLNK(st->st_mode))
		return sb_fail(err, ".tmp", t, "is a symbolic link; refusing it as a private temporary directory");
	if (!S_ISDIR(st->st_mode))
		return sb_fail(err, ".tmp", t, "is not a directory");
	if (st->st_uid != owner)
		return sb_fail(err, ".tmp", t, "is owned by uid %u, not by uid %u running the command",
			       (unsigned)st->st_uid, (unsigned)owner);
	/* Group write on a directory the user owns is what umask 002 gives
	 * (speccoder creates tmp that way): accepted.  World write is not:
	 * anyone could have planted entries there. */
	if (st->st_mode & 002)
		return sb_fail(err, ".tmp", t, "is world writable (mode %04o); a private temporary directory must not be",
			       (unsigned)(st->st_mode & 07777));
	return 0;
}

int proc_tmp_prepare(struct run *r, struct sb_err *err)
{
	const char *t = r->prof->tmp;
	if (!t)
		return 0;
	/* The command runs as the final user (`user`, resolved before). */
	const struct user_rule *u = &r->prof->user;
	uid_t owner = u->set ? u->uid : geteuid();
	char parent[4096], link[4096];
	const char *base = strrchr(t, '/');
	if (!base || !base[1] || (size_t)(base - t) >= sizeof parent)
		return sb_fail(err, ".tmp", t, "needs a directory name");
	snprintf(parent, sizeof parent, "%.*s", base == t ? 1 : (int)(base - t), t);
	base++;
	int pfd = open_path(&r->plan->trees, parent, O_DIRECTORY, link, sizeof link);
	if (pfd == -ELOOP && link[0])
		return open_path_fail(err, ".tmp", t, -pfd, link);
	if (pfd < 0)
		return sb_fail(err, ".tmp", t, "cannot create it: %s", strerror(-pfd));
	bool made = mkdirat(pfd, base, 0700) == 0;
	if (!made && errno != EEXIST) {
		int e = errno;
		close(pfd);
		return sb_fail(err, ".tmp", t, "cannot create it: %s", strerror(e));
	}
	/* made by root for the user switched to below: handed over through a
	 * descriptor (O_NOFOLLOW: a name swapped meanwhile is not followed) */
	int how = made && u->set ? O_RDONLY : O_PATH;
	int fd = openat(pfd, base, how | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	struct stat ls;
	/* (O_PATH|O_NOFOLLOW|O_DIRECTORY on a symlink: ENOTDIR) */
	bool link_there = fd < 0 && fstatat(pfd, base, &ls, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(ls.st_mode);
	close(pfd);
	if (link_there || (fd < 0 && e == ELOOP))
		return sb_fail(err, ".tmp", t, "is a symbolic link; refusing it as a private temporary directory");
	if (fd < 0)
		return sb_fail(err, ".tmp", t, "%s", strerror(e));
	if (made && u->set && fchown(fd, u->uid, u->gid) < 0) {
		e = errno;
		close(fd);
		return sb_fail(err, ".tmp", t, "cannot give it to uid %u: %s", (unsigned)u->uid, strerror(e));
	}
	struct stat st = {0};
	int rc = tmp_check(fd, t, owner, &st, err);
	close(fd);
	r->tmp_known = rc == 0;
	r->tmp_dev = st.st_dev;
	r->tmp_ino = st.st_ino;
	return rc;
}

int proc_tmp_open(const struct run *r, const char *t, const char *where, int flags,
		  struct sb_err *err)
{
	char link[4096];
	struct stat st;
	int fd = open_path(&r->plan->trees, t, flags | O_NOFOLLOW, link, sizeof link);
	if (fd < 0)
		return open_path_fail(err, where, t, -fd, link);
	if (r->tmp_known && (fstat(fd, &st) < 0 || st.st_dev != r->tmp_dev || st.st_ino != r->tmp_ino)) {
		close(fd);
		return sb_fail(err, where, t, "is not the directory checked a moment ago (replaced while the sandbox was set up); refusing it");
	}
	return fd;
}

int proc_rlimits(struct run *r, struct sb_err *err)
{
	for (size_t i = 0; i < r->prof->nrlimits; i++) {
		const struct rlimit_rule *rl = &r->prof->rlimits[i];
		struct rlimit v = {
			rl->soft >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)rl->soft,
			rl->hard >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)rl->hard};
		if (setrlimit(rl->resource, &v) < 0) {
			char where[64];
			snprintf(where, sizeof where, ".rlimits.%s", rl->name);
			return sb_fail(err, where, NULL, "setting it failed: %s%s", strerror(errno),
				       errno == EPERM ? " (raising a hard limit needs privilege)" : "");
		}
	}
	return 0;
}

/* Remove NAME from vector `env`. */
static void env_drop(struct strvec *env, const char *name, size_t n)
{
	for (size_t i = 0; i < env->n;) {
		if (env_entry_is(env->v[i], name, n)) {
			free(env->v[i]);
			memmove(&env->v[i], &env->v[i + 1], (env->n - i) * sizeof *env->v);
			env->n--;
		} else {
			i++;
		}
	}
}

static void env_put(struct strvec *env, const char *entry)
{
	env_drop(env, entry, strcspn(entry, "="));
	sv_push(env, entry);
}

int proc_env(struct run *r, struct sb_err *err)
{
	(void)err;
	const struct env_rules *e = &r->prof->env;
	struct strvec *env = &r->env;
	for (char **p = environ; p && *p; p++)
		if (!e->clear || env_keeps(&e->keep, *p))
			sv_push(env, *p);
	for (size_t i = 0; i < e->unset.n; i++)
		env_drop(env, e->unset.v[i], strlen(e->unset.v[i]));
	if (r->prof->tmp) {
		static const char *const names[] = {"TMPDIR", "TMP", "TEMP"};
		for (int i = 0; i < 3; i++) {
			char *s = xasprintf("%s=%s", names[i], r->prof->tmp);
			env_put(env, s);
			free(s);
		}
	}
	for (size_t i = 0; i < e->set.n; i++)
		env_put(env, e->set.v[i]);
	/* fit() points an ungranted HOME at tmp when no empty view of it
	 * can be mounted (it then never comes from env.set) */
	if (r->plan->home) {
		char *s = xasprintf("HOME=%s", r->plan->home);
		env_put(env, s);
		free(s);
	}
	return 0;
}

int proc_session(struct run *r, struct sb_err *err)
{
	const struct profile *p = r->prof;
	if (p->new_session && setsid() < 0) {
		/* EPERM: already a process group leader (a job-control shell,
		 * script(1), setsid(1) started it).  What the option is for is
		 * no controlling terminal: give it up instead (TIOCNOTTY, tty(4):
		 * for a process that does not lead its session it only detaches
		 * this process).  A session leader keeps its session; there the
		 * terminal stays unreachable through /dev/tty unless the
		 * command's stdio is one (fit), and TIOCSTI is refused. */
		if (errno != EPERM)
			return sb_fail(err, ".new_session", NULL, "setsid failed: %s", strerror(errno));
		if (getsid(0) != getpid()) {
			int t = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
			if (t >= 0) {
				int rc = ioctl(t, TIOCNOTTY);
				int e = errno;
				close(t);
				if (rc < 0)
					return sb_fail(err, ".new_session", NULL, "giving up the controlling terminal (TIOCNOTTY) failed: %s", strerror(e));
			}
		}
	}
	return life_watch(r, err);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int proc_fds_check(const struct profile *p, struct sb_err *err)
{
	/* Only here, before the shim opens anything of its own: later the
	 * lowest free numbers hold its own descriptors (the Landlock ruleset
	 * until restrict_self, mount trees, rule paths), and a kept number
	 * the caller never opened would pass as open, then be closed by the
	 * shim before exec — the command finding its descriptor missing. */
	for (size_t i = 0; i < p->nkeep_fds; i++)
		if (fcntl(p->keep_fds[i], F_GETFD) < 0) {
			char where[64];
			snprintf(where, sizeof where, ".keep_fds[%zu]", i);
			return sb_fail(err, where, NULL, "descriptor %d is not open: %s", p->keep_fds[i], strerror(errno));
		}
	return 0;
}

/* Mark every inherited descriptor above 2 close-on-exec but the kept ones:
 * an inherited socket or file opened outside would go around every rule.
 * The kept ones were found open by proc_fds_check() at start; the shim
 * never closes an inherited descriptor, so they still are. */
int proc_fds(struct run *r, struct sb_err *err)
{
	const struct profile *p = r->prof;
	int *keep = xcalloc(p->nkeep_fds + 1, sizeof *keep);
	for (size_t i = 0; i < p->nkeep_fds; i++)
		keep[i] = p->keep_fds[i];
	qsort(keep, p->nkeep_fds, sizeof *keep, cmp_int);
	unsigned from = 3;
	int rc = 0;
	for (size_t i = 0; i < p->nkeep_fds && !rc; i++) {
		unsigned k = (unsigned)keep[i];
		if (k > from)
			rc = sb_close_range(from, k - 1, CLOSE_RANGE_CLOEXEC);
		if (k + 1 > from)
			from = k + 1;
		/* a kept descriptor must survive execve */
		int fl = fcntl(keep[i], F_GETFD);
		if (fl >= 0 && (fl & FD_CLOEXEC))
			fcntl(keep[i], F_SETFD, fl & ~FD_CLOEXEC);
	}
	if (!rc)
		rc = sb_close_range(from, ~0U, CLOSE_RANGE_CLOEXEC);
	if (rc < 0) {
		/* close_range(CLOEXEC) needs Linux 5.11: walk /proc/self/fd. */
		DIR *d = opendir("/proc/self/fd");
		if (!d) {
			free(keep);
			return sb_fail(err, ".keep_fds", NULL, "cannot close inherited descriptors (close_range: %s; /proc/self/fd: %s)",
				       strerror(ENOSYS), strerror(errno));
		}
		int self = dirfd(d);
		struct dirent *de;
		while ((de = readdir(d))) {
			int fd = atoi(de->d_name);
			if (fd <= 2 || fd == self || bsearch(&fd, keep, p->nkeep_fds, sizeof *keep, cmp_int))
				continue;
			fcntl(fd, F_SETFD, FD_CLOEXEC);
		}
		closedir(d);
	}
	free(keep);
	return 0;
}

int proc_cwd(struct run *r, struct sb_err *err)
{
	char link[4096];
	const char *c = r->prof->cwd;
	if (!c)
		return 0;
	int fd = open_path(&r->plan->trees, c, O_DIRECTORY, link, sizeof link);
	if (fd < 0)
		return open_path_fail(err, ".cwd", c, -fd, link);
	int rc = fchdir(fd) < 0 ? sb_fail(err, ".cwd", c, "%s", strerror(errno)) : 0;
	close(fd);
	return rc;
}

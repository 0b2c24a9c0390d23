/* Namespace layer: a private mount namespace (through an unprivileged
 * user namespace when not root) for carve-outs and unix socket views, and
 * a network namespace with lo up for network "loopback".
 * Mounts use the new mount API (open_tree/move_mount: Linux 5.2,
 * mount_setattr: 5.12) so a symlink can be covered without following it
 * and masks come from a detached tmpfs that is never visible anywhere. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int e = n < 0 ? errno : 0;
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -(e ? e : EIO);
}

int ns_enter(struct run *r, struct sb_err *err)
{
	const struct plan *pl = r->plan;
	if (!pl->mount_ns && !pl->net_ns)
		return 0;
	int flags = (pl->mount_ns ? CLONE_NEWNS : 0) | (pl->net_ns ? CLONE_NEWNET : 0);
	/* Root (CAP_SYS_ADMIN) makes the namespaces directly; anyone else
	 * through a user namespace mapping only their own uid and gid, so
	 * files keep their owners and the command sees its own ids. */
	bool admin = !r->host.mounts_via_userns;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (!admin)
		flags |= CLONE_NEWUSER;
	if (unshare(flags) < 0) {
		r->ns_errno = errno;
		return 1; /* nothing changed: the caller may plan without */
	}
	/* Until a mount is made, a failure leaves this process in fresh,
	 * empty namespaces that confine nothing and loosen nothing: the
	 * caller can still plan without them (e.g. an LSM that lets
	 * unshare(CLONE_NEWUSER) through but denies the capabilities in it,
	 * as Ubuntu's apparmor_restrict_unprivileged_userns does). */
	if (!admin) {
		char map[64];
		int e;
		/* setgroups must be denied before an unprivileged gid_map
		 * (user_namespaces(7)) */
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		if ((e = write_file("/proc/self/setgroups", "deny")) < 0 ||
		    (e = write_file("/proc/self/uid_map", map)) < 0) {
			r->ns_errno = -e;
			return 1;
		}
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		if ((e = write_file("/proc/self/gid_map", map)) < 0) {
			r->ns_errno = -e;
			return 1;
		}
	}
	/* Private propagation first: nothing done below reaches the host's
	 * mount table, and nothing the host mounts later reaches in. */
	if (pl->mount_ns && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		r->ns_errno = errno;
		return 1;
	}
	if (pl->net_ns) {
		int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct ifreq ifr;
		memset(&ifr, 0, sizeof ifr);
		strcpy(ifr.ifr_name, "lo");
		if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
		    (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
			int e = errno;
			if (s >= 0)
				close(s);
			return sb_fail(err, ".network", NULL, "bringing up lo in the new network namespace failed: %s", strerror(e));
		}
		close(s);
	}
	return 0;
}

/* A new, detached tmpfs whose root has `mode` (octal string), mounted
 * with MOUNT_ATTR_* `attr`.  Returns the mount fd or -errno. */
static int detached_tmpfs(const char *mode, unsigned attr)
{
	int fs = sb_fsopen("tmpfs", SB_FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	int m = -1;
	if (sb_fsconfig(fs, SB_FSCONFIG_SET_STRING, "mode", mode, 0) == 0 &&
	    sb_fsconfig(fs, SB_FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		m = sb_fsmount(fs, SB_FSMOUNT_CLOEXEC, attr);
	int e = errno;
	close(fs);
	return m < 0 ? -e : m;
}

/* A detached tmpfs holding "d" (empty directory, 0555) and "f" (empty
 * file, 0000): the source of every mask.  Returns its fd or -errno. */
static int mask_source(void)
{
	int m = detached_tmpfs("0555", 0);
	if (m < 0)
		return m;
	int f = openat(m, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
	if (f < 0 || mkdirat(m, "d", 0555) < 0 || fchmod(f, 0) < 0) {
		int e = errno;
		if (f >= 0)
			close(f);
		close(m);
		return -e;
	}
	close(f);
	return m;
}

static int set_ro(int tree, bool recursive)
{
	struct sb_mount_attr a = {SB_MOUNT_ATTR_RDONLY | SB_MOUNT_ATTR_NOSUID | SB_MOUNT_ATTR_NODEV, 0, 0, 0};
	return sb_mount_setattr(tree, "", SB_AT_EMPTY_PATH | (recursive ? SB_AT_RECURSIVE : 0), &a);
}

/* Attach detached tree `tree` on `path` without following a symlink
 * there (a covered symlink stays where it is: unlink/rename → EBUSY). */
static int attach(int tree, const char *path)
{
	int t = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (t < 0)
		return -errno;
	int rc = sb_move_mount(tree, "", t, "", SB_MOVE_MOUNT_F_EMPTY_PATH | SB_MOVE_MOUNT_T_EMPTY_PATH);
	int e = errno;
	close(t);
	return rc < 0 ? -e : 0;
}

/* Inside view mount `view` (of directory `vpath`), create the path of
 * `keep` (directories, and the last component as a file when !is_dir). */
static int skeleton(int view, const char *vpath, const char *keep, bool is_dir)
{
	const char *rel = keep + strlen(vpath);
	char buf[4096];
	while (*rel == '/')
		rel++;
	snprintf(buf, sizeof buf, "%s", rel);
	for (char *p = buf; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdirat(view, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (is_dir) {
		if (mkdirat(view, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
	} else {
		int f = openat(view, buf, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (f < 0)
			return -errno;
		close(f);
	}
	return 0;
}

static int view_mount(const struct plan *pl, size_t vi, const int *keepfd, struct sb_err *err)
{
	const struct mount_rule *v = &pl->mounts[vi];
	int m = detached_tmpfs("0755", 0);
	if (m < 0)
		return sb_fail(err, v->where, v->path, "empty view: tmpfs: %s", strerror(-m));
	for (size_t k = 0; k < pl->nmounts; k++) {
		const struct mount_rule *kr = &pl->mounts[k];
		if (kr->op != MNT_KEEP || keepfd[k] < 0 || strncmp(kr->path, v->path, strlen(v->path)) != 0 ||
		    kr->path[strlen(v->path)] != '/')
			continue;
		int r = skeleton(m, v->path, kr->path, kr->is_dir);
		if (r < 0) {
			close(m);
			return sb_fail(err, kr->where, kr->path, "keeping it inside the view of %s: %s", v->path, strerror(-r));
		}
	}
	int r = set_ro(m, false) < 0 ? -errno : attach(m, v->path);
	close(m);
	if (r < 0)
		return sb_fail(err, v->where, v->path, "empty view: %s", strerror(-r));
	return 0;
}

/* Clone one read-only mask per mask rule into fds[i].  Before Linux 6.15
 * open_tree() refuses to clone from a mount that was never attached
 * (EINVAL: seen on 6.1 and 6.12), so the detached mask tmpfs is attached
 * for a moment on a directory every system has — in this private
 * namespace only — each mask cloned from there, and the staging mount
 * detached again.  Returns 0 or an errno (nothing left mounted). */
/* keepfd[] value of a rule with nothing to do (see ns_mounts) */
#define SKIP (-2)

static bool is_mask(const struct mount_rule *m)
{
	return m->op == MNT_MASK_DIR || m->op == MNT_MASK_FILE;
}

/* Clone one read-only mask per mask rule into fds[i], from directory
 * `dfd` holding "d" and "f".  Returns 0 or an errno. */
static int clone_each_mask(const struct plan *pl, int dfd, int *fds)
{
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct mount_rule *m = &pl->mounts[i];
		if (!is_mask(m))
			continue;
		fds[i] = sb_open_tree(dfd, m->op == MNT_MASK_DIR ? "d" : "f",
				      SB_OPEN_TREE_CLONE | SB_OPEN_TREE_CLOEXEC);
		if (fds[i] < 0 || set_ro(fds[i], false) < 0)
			return errno;
	}
	return 0;
}

static int clone_masks(const struct plan *pl, int mask, int *fds)
{
	/* Linux 6.15+ clones straight from the detached mount. */
	int probe = sb_open_tree(mask, "f", SB_OPEN_TREE_CLONE | SB_OPEN_TREE_CLOEXEC);
	if (probe >= 0) {
		close(probe);
		return clone_each_mask(pl, mask, fds);
	}
	/* Older kernels: stage it on a directory that exists here (a
	 * minimal container root may have none of the usual ones: then a
	 * directory a rule pins or binds, or one holding a placeholder). */
	const char *stages[8] = {"/proc", "/dev", "/tmp", "/run", "/mnt"};
	size_t ns = 5;
	char parent[4096];
	for (size_t i = 0; i < pl->nmounts && ns < 7; i++)
		if ((pl->mounts[i].op == MNT_PIN || pl->mounts[i].op == MNT_RO_BIND) && pl->mounts[i].is_dir)
			stages[ns++] = pl->mounts[i].path;
	for (size_t i = 0; i < pl->nmounts; i++) {
		const char *slash = strrchr(pl->mounts[i].path, '/');
		if (is_mask(&pl->mounts[i]) && slash && slash != pl->mounts[i].path) {
			snprintf(parent, sizeof parent, "%.*s", (int)(slash - pl->mounts[i].path), pl->mounts[i].path);
			stages[ns++] = parent;
			break;
		}
	}
	const char *stage = NULL;
	int e = ENOENT;
	for (size_t s = 0; s < ns && !stage; s++) {
		struct stat st;
		if (lstat(stages[s], &st) == 0 && S_ISDIR(st.st_mode)) {
			int a = attach(mask, stages[s]);
			if (a == 0)
				stage = stages[s];
			else
				e = -a;
		}
	}
	if (!stage)
		return e;
	int dfd = open(stage, O_PATH | O_DIRECTORY | O_CLOEXEC);
	e = dfd < 0 ? errno : clone_each_mask(pl, dfd, fds);
	if (dfd >= 0)
		close(dfd);
	if (umount2(stage, MNT_DETACH) < 0 && !e)
		e = errno;
	return e;
}

/* Make the placeholder of an MNT_OCCUPY rule: an empty directory (0755)
 * or a file (0644) holding m->content, owned by the running uid — a mount
 * needs an existing name, and this one must be harmless to whatever finds
 * it outside later.  Returns 0, 1 when it need not exist (the command
 * cannot create the name either: the directory is not writable by this
 * uid and not owned by it, so not chmod-able), or -errno. */
static int placeholder(const struct mount_rule *m)
{
	int f = m->is_dir ? mkdir(m->path, 0755)
			  : open(m->path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f < 0) {
		int e = errno;
		if (e == EEXIST)
			return 0;
		if (e == EACCES || e == EPERM || e == EROFS) {
			char dir[4096];
			struct stat st;
			const char *slash = strrchr(m->path, '/');
			snprintf(dir, sizeof dir, "%.*s", slash && slash != m->path ? (int)(slash - m->path) : 1, m->path);
			if (stat(dir, &st) == 0 && st.st_uid != geteuid())
				return 1;
		}
		return -e;
	}
	if (!m->is_dir) {
		size_t n = m->content ? strlen(m->content) : 0;
		ssize_t w = n ? write(f, m->content, n) : 0;
		int e = errno;
		close(f);
		if (w < 0 || (size_t)w != n)
			return -(w < 0 ? e : EIO);
	}
	return 0;
}

/* A new devpts instance on /dev/pts (devpts(5) newinstance): only the
 * pseudo-terminals made inside exist there; its ptmx is bound on
 * /dev/ptmx when that is a device node (a symlink to pts/ptmx already
 * points at it).  Returns 0 or an errno. */
static int private_devpts(void)
{
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") < 0)
		return errno;
	struct stat st;
	if (lstat("/dev/ptmx", &st) == 0 && S_ISCHR(st.st_mode) &&
	    mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) < 0)
		return errno;
	return 0;
}

int ns_mounts(struct run *r, struct sb_err *err)
{
	const struct plan *pl = r->plan;
	if (!pl->mount_ns || !pl->nmounts)
		return 0;
	int rc = -1, mask = -1;
	size_t attached = 0; /* mounts made so far: none → a failure may fall back */
	int *keepfd = xcalloc(pl->nmounts, sizeof *keepfd);
	bool need_mask = false;
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct mount_rule *m = &pl->mounts[i];
		keepfd[i] = -1;
		if (m->op == MNT_OCCUPY) {
			int rr = placeholder(m);
			if (rr == 1) {
				sb_say("notice: %s \"%s\": no placeholder: the directory is neither writable by nor owned by uid %u, so the name cannot be created inside either",
				       m->where, m->path, (unsigned)geteuid());
				keepfd[i] = SKIP;
				continue;
			}
			if (rr < 0) {
				sb_fail(err, m->where, m->path, "cannot create the placeholder that keeps this name: %s", strerror(-rr));
				goto out;
			}
		}
		if (m->op == MNT_MASK_DIR || m->op == MNT_MASK_FILE)
			need_mask = true;
		/* Trees to bring back into views are cloned before any view
		 * covers them. */
		if (m->op == MNT_KEEP) {
			keepfd[i] = sb_open_tree(AT_FDCWD, m->path, SB_OPEN_TREE_CLONE | SB_OPEN_TREE_CLOEXEC | SB_AT_RECURSIVE);
			if (keepfd[i] < 0) {
				if (errno == ENOENT) /* e.g. a writable tree that was skipped */
					continue;
				sb_fail(err, m->where, m->path, "cannot keep it inside the view: %s", strerror(errno));
				goto out;
			}
		}
	}
	if (need_mask && (mask = mask_source()) < 0) {
		/* nothing mounted yet: plan again without mounts */
		r->ns_errno = -mask;
		rc = 1;
		goto out;
	}
	if (need_mask) {
		int e = clone_masks(pl, mask, keepfd);
		if (e) {
			/* nothing left mounted (the staging mount is gone): plan
			 * again without mounts */
			r->ns_errno = e;
			rc = 1;
			goto out;
		}
	}
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct mount_rule *m = &pl->mounts[i];
		int t = -1, e = 0;
		const char *what = "";
		switch (m->op) {
		case MNT_OCCUPY:
			if (keepfd[i] == SKIP)
				continue;
			/* the placeholder itself, bound read-only */
			__attribute__((fallthrough));
		case MNT_PIN:
		case MNT_RO_BIND:
			what = m->op == MNT_PIN ? "pinning it" : "binding it read-only";
			t = sb_open_tree(AT_FDCWD, m->path, SB_OPEN_TREE_CLONE | SB_OPEN_TREE_CLOEXEC |
					 SB_AT_RECURSIVE | SB_AT_SYMLINK_NOFOLLOW);
			if (t >= 0 && m->op != MNT_PIN && set_ro(t, true) < 0)
				e = errno;
			break;
		case MNT_MASK_DIR:
		case MNT_MASK_FILE:
			what = "covering it";
			if (keepfd[i] == SKIP)
				continue;
			t = keepfd[i]; /* cloned and made read-only by clone_masks() */
			keepfd[i] = -1;
			break;
		case MNT_VIEW:
			if (view_mount(pl, i, keepfd, err)) {
				if (!attached) { /* nothing mounted yet */
					r->ns_errno = EPERM;
					rc = 1;
				}
				goto out;
			}
			attached++;
			continue;
		case MNT_SHM:
			what = "a private tmpfs";
			t = detached_tmpfs("1777", SB_MOUNT_ATTR_NOSUID | SB_MOUNT_ATTR_NODEV | SB_MOUNT_ATTR_NOEXEC);
			if (t < 0)
				e = -t;
			break;
		case MNT_DEVPTS:
			if ((e = private_devpts()) == 0)
				attached++;
			else if (!attached) {
				r->ns_errno = e;
				rc = 1;
				goto out;
			} else {
				sb_fail(err, m->where, m->path, "mount namespace: a private /dev/pts failed: %s", strerror(e));
				goto out;
			}
			continue;
		case MNT_KEEP:
			if (keepfd[i] < 0)
				continue;
			what = "keeping it inside the view";
			t = keepfd[i];
			keepfd[i] = -1;
			break;
		}
		if (t < 0 && !e)
			e = errno;
		if (!e) {
			int a = attach(t, m->path);
			if (a < 0)
				e = -a;
		}
		if (t >= 0)
			close(t);
		if (e && !attached) {
			/* the first mount failed (e.g. mount_setattr before Linux
			 * 5.12): nothing changed yet, plan again without mounts */
			r->ns_errno = e;
			rc = 1;
			goto out;
		}
		if (e) {
			sb_fail(err, m->where, m->path, "mount namespace: %s failed: %s", what, strerror(e));
			goto out;
		}
		attached++;
	}
	rc = 0;
out:
	for (size_t i = 0; i < pl->nmounts; i++)
		if (keepfd[i] >= 0)
			close(keepfd[i]);
	free(keepfd);
	if (mask >= 0)
		close(mask);
	return rc;
}

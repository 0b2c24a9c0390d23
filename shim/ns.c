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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
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

/* In a new user namespace: map only the caller's own uid and gid, so
 * files keep their owners and the command sees its own ids; setgroups
 * must be denied before an unprivileged gid_map (user_namespaces(7)).
 * Until a mount is made, a failure leaves this process in fresh, empty
 * namespaces that confine nothing and loosen nothing, so the caller can
 * still plan without them (e.g. an LSM that lets unshare(CLONE_NEWUSER)
 * through but denies the capabilities in it, as Ubuntu's
 * apparmor_restrict_unprivileged_userns does).  `pid`: the process in
 * that namespace, 0 for this one.  Returns 0, or 1 with r->ns_errno and
 * r->ns_why set. */
static int map_ids(struct run *r, pid_t pid, uid_t uid, gid_t gid)
{
	char map[64], f[64];
	int e;
	char proc[32];
	if (pid)
		snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	else
		snprintf(proc, sizeof proc, "/proc/self");
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	snprintf(f, sizeof f, "%s/setgroups", proc);
	if ((e = write_file(f, "deny")) < 0 ||
	    (snprintf(f, sizeof f, "%s/uid_map", proc), e = write_file(f, map)) < 0) {
		r->ns_errno = -e;
		snprintf(r->ns_why, sizeof r->ns_why, "user namespace uid_map: %s", strerror(-e));
		return 1;
	}
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	snprintf(f, sizeof f, "%s/gid_map", proc);
	if ((e = write_file(f, map)) < 0) {
		r->ns_errno = -e;
		snprintf(r->ns_why, sizeof r->ns_why, "user namespace gid_map: %s", strerror(-e));
		return 1;
	}
	return 0;
}

/* ---- the network namespace made ahead (ns_ahead_start) ---- */

#define AHEAD_MAP (16 * 1024) /* bytes: struct ahead and the helper's stack */

/* What the helper needs, in its own mapping. */
struct ahead {
	long flags;            /* CLONE_NEWNET, | CLONE_NEWUSER when not root */
	int ready_w, ready_r;  /* it writes its unshare() answer (int) on ready_w */
	int hold_r, hold_w;    /* and stays, holding the namespaces, until EOF on hold_r */
};

/* Beside the shim, in its memory: raw system calls only (shim/sys.h). */
SB_BESIDE static int ahead_helper(void *arg)
{
	const struct ahead *a = arg;
	sb_raw(__NR_close, a->ready_r, 0, 0, 0, 0);
	sb_raw(__NR_close, a->hold_w, 0, 0, 0, 0);
	int v = (int)sb_raw(__NR_unshare, a->flags, 0, 0, 0, 0);
	sb_raw(__NR_write, a->ready_w, (long)&v, sizeof v, 0, 0);
	char b;
	while (sb_raw(__NR_read, a->hold_r, (long)&b, 1, 0, 0) == -EINTR)
		;
	return 0;
}

void ns_ahead_start(struct run *r, const struct profile *p)
{
	struct ns_ahead *n = &r->ahead;
	*n = (struct ns_ahead){0, -1, -1, -1, false, NULL};
	/* fit's choice, asked before fit: a run assumes the namespaces can
	 * be had */
	if (!fit_wants_net_ns(p))
		return;
	int rp[2], hp[2];
	if (pipe2(rp, O_CLOEXEC) < 0)
		return;
	if (pipe2(hp, O_CLOEXEC) < 0) {
		close(rp[0]);
		close(rp[1]);
		return;
	}
	char *map = mmap(NULL, AHEAD_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t pid = -1;
	bool userns = r->host.mounts_via_userns;
	if (map != MAP_FAILED) {
		struct ahead *a = (struct ahead *)(void *)map;
		*a = (struct ahead){CLONE_NEWNET | (userns ? CLONE_NEWUSER : 0), rp[1], rp[0], hp[0], hp[1]};
		pid = clone(ahead_helper, map + AHEAD_MAP, CLONE_VM | SIGCHLD, a);
	}
	close(rp[1]);
	close(hp[0]);
	if (pid < 0) {
		close(rp[0]);
		close(hp[1]);
		if (map != MAP_FAILED)
			munmap(map, AHEAD_MAP);
		return;
	}
	*n = (struct ns_ahead){pid, sb_pidfd_open(pid, 0), rp[0], hp[1], userns, map};
}

/* Let the helper go (it exits at EOF); reaped by ns_ahead_reap(). */
static void ahead_release(struct ns_ahead *n)
{
	if (n->ready >= 0)
		close(n->ready);
	if (n->hold >= 0)
		close(n->hold);
	if (n->pidfd >= 0)
		close(n->pidfd);
	n->ready = n->hold = n->pidfd = -1;
}

/* Join the helper's namespaces: its network namespace, and its user
 * namespace (given our uid and gid first) when not root — one setns of
 * both through its pidfd (Linux 5.8), all or nothing.  0, or -1 with
 * nothing joined (the caller makes its own). */
static int ahead_join(struct run *r, uid_t uid, gid_t gid)
{
	struct ns_ahead *n = &r->ahead;
	int v = -1;
	ssize_t got;
	while ((got = read(n->ready, &v, sizeof v)) < 0 && errno == EINTR)
		;
	int rc = -1;
	if (got == (ssize_t)sizeof v && v == 0 && n->pidfd >= 0 &&
	    (!n->userns || map_ids(r, n->pid, uid, gid) == 0) &&
	    setns(n->pidfd, CLONE_NEWNET | (n->userns ? CLONE_NEWUSER : 0)) == 0)
		rc = 0;
	ahead_release(n);
	return rc;
}

void ns_ahead_reap(struct run *r)
{
	struct ns_ahead *n = &r->ahead;
	if (n->pid <= 0)
		return;
	ahead_release(n);
	while (waitpid(n->pid, NULL, 0) < 0 && errno == EINTR)
		;
	munmap(n->map, AHEAD_MAP);
	n->pid = 0;
	n->map = NULL;
}

int ns_enter(struct run *r, struct sb_err *err)
{
	const struct plan *pl = r->plan;
	if (!pl->mount_ns && !pl->net_ns)
		return 0;
	/* With the mount namespace comes a private IPC namespace: SysV shared
	 * memory, semaphores and message queues of the host (a root-owned
	 * 0600 segment included) are out of reach. */
	int flags = (pl->mount_ns ? CLONE_NEWNS | CLONE_NEWIPC : 0) | (pl->net_ns ? CLONE_NEWNET : 0);
	/* Root (CAP_SYS_ADMIN) makes the namespaces directly; anyone else
	 * through a user namespace mapping only their own uid and gid, so
	 * files keep their owners and the command sees its own ids. */
	bool admin = !r->host.mounts_via_userns;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (!admin)
		flags |= CLONE_NEWUSER;
	/* the network (and user) namespace made ahead, if it was: joined,
	 * then only the mount and IPC namespaces are left to make */
	bool joined = false;
	if (r->ahead.pid > 0) {
		if (pl->net_ns && r->ahead.userns == !admin && ahead_join(r, uid, gid) == 0) {
			joined = true;
			flags &= ~(CLONE_NEWNET | CLONE_NEWUSER);
		}
		ahead_release(&r->ahead);
	}
	if (flags && unshare(flags) < 0) {
		r->ns_errno = errno;
		ns_describe(r->ns_why, sizeof r->ns_why, (unsigned long)flags, false, errno);
		return 1; /* nothing changed: the caller may plan without */
	}
	if (!admin && !joined && map_ids(r, 0, uid, gid))
		return 1;
	/* Private propagation first: nothing done below reaches the host's
	 * mount table, and nothing the host mounts later reaches in. */
	if (pl->mount_ns && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		r->ns_errno = errno;
		ns_describe(r->ns_why, sizeof r->ns_why, 0, true, errno);
		return 1;
	}
	/* Last, inside the user namespace (whose CAP_SYS_ADMIN it needs):
	 * the PID namespace the next child will be pid 1 of.  A refusal
	 * leaves fresh namespaces that confine nothing: plan without. */
	if (pl->pid_ns) {
		if (unshare(CLONE_NEWPID) < 0) {
			r->ns_errno = errno;
			snprintf(r->ns_why, sizeof r->ns_why, "PID namespace: unshare(CLONE_NEWPID): %s", strerror(errno));
			return 1;
		}
		r->host.pidns_made = true;
	}
	/* lo up only for "loopback": under "off" no AF_INET or AF_INET6
	 * socket can be made (seccomp), so an up lo would serve nothing,
	 * and bringing it up (IPv6 addrconf included) costs about 50 us of
	 * every start.  The namespace itself is for the abstract unix names. */
	if (pl->net_ns && pl->network == NET_LOOPBACK) {
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
 * there (a covered symlink stays where it is: unlink/rename → EBUSY),
 * nor one inside a writable tree on the way (open_path(): a link swapped
 * in since fit() looked; its path in link[n]). */
static int attach(const struct plan *pl, int tree, const char *path, char *link, size_t n)
{
	int t = open_path(&pl->trees, path, O_NOFOLLOW, link, n);
	if (t < 0)
		return t;
	int rc = sb_move_mount(tree, "", t, "", SB_MOVE_MOUNT_F_EMPTY_PATH | SB_MOVE_MOUNT_T_EMPTY_PATH);
	int e = errno;
	close(t);
	return rc < 0 ? -e : 0;
}

/* A recursive clone of the tree at `path` (flags: SB_AT_SYMLINK_NOFOLLOW
 * to clone a final symlink itself), opened by open_path() so what is
 * cloned is what fit() checked.  Returns the detached mount's fd or
 * -errno (-ELOOP with link[n]). */
static int clone_at(const struct plan *pl, const char *path, unsigned flags, char *link, size_t n)
{
	int fd = open_path(&pl->trees, path, flags & SB_AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0, link, n);
	if (fd < 0)
		return fd;
	int t = sb_open_tree(fd, "", SB_OPEN_TREE_CLONE | SB_OPEN_TREE_CLOEXEC | SB_AT_RECURSIVE | SB_AT_EMPTY_PATH);
	int e = errno;
	close(fd);
	return t < 0 ? -e : t;
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

/* Clone one read-only mask per mask rule into fds[i].  Before Linux 6.15
 * open_tree() refuses to clone from a mount that was never attached
 * (EINVAL: seen on 6.1 and 6.12), so the detached mask tmpfs is attached
 * for a moment on a directory every system has — in this private
 * namespace only — each mask cloned from there, and the staging mount
 * detached again.  Returns 0 or an errno (nothing left mounted). */
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
	 * directory a rule pins or binds, or the parent of a mask). */
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
	char link[4096];
	for (size_t s = 0; s < ns && !stage; s++) {
		struct stat st;
		if (lstat(stages[s], &st) == 0 && S_ISDIR(st.st_mode)) {
			int a = attach(pl, mask, stages[s], link, sizeof link);
			if (a == 0)
				stage = stages[s];
			else
				e = -a;
		}
	}
	if (!stage)
		return e;
	int dfd = open_path(&pl->trees, stage, O_DIRECTORY, link, sizeof link);
	e = dfd < 0 ? -dfd : clone_each_mask(pl, dfd, fds);
	/* detached through the descriptor where /proc is there, so a name
	 * swapped meanwhile cannot make it detach something else */
	char via[64];
	if (dfd >= 0)
		snprintf(via, sizeof via, "/proc/self/fd/%d", dfd);
	if ((dfd < 0 || umount2(via, MNT_DETACH) < 0) && umount2(stage, MNT_DETACH) < 0 && !e)
		e = errno;
	if (dfd >= 0)
		close(dfd);
	return e;
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

/* A replaced directory (MNT_VIEW: an empty read-only tmpfs; MNT_TMP: a
 * writable tmpfs, mode 1777) holding the skeleton of the KEEP rules inside
 * it, or for MNT_TMP with a source the clone of that directory (taken
 * from keepfd[vi]), into *tree (the caller owns it).  Returns 0, an
 * errno, or -1 with `err` when the skeleton could not be made. */
static int replacement(const struct plan *pl, size_t vi, int *keepfd, int *tree,
		       struct sb_err *err)
{
	const struct mount_rule *v = &pl->mounts[vi];
	if (v->op == MNT_TMP && keepfd[vi] >= 0) {
		*tree = keepfd[vi];
		keepfd[vi] = -1;
		struct sb_mount_attr a = {SB_MOUNT_ATTR_NOSUID | SB_MOUNT_ATTR_NODEV, 0, 0, 0};
		return sb_mount_setattr(*tree, "", SB_AT_EMPTY_PATH | SB_AT_RECURSIVE, &a) < 0 ? errno : 0;
	}
	int m = v->op == MNT_TMP
		? detached_tmpfs("1777", SB_MOUNT_ATTR_NOSUID | SB_MOUNT_ATTR_NODEV)
		: detached_tmpfs("0755", 0);
	if (m < 0)
		return -m;
	*tree = m;
	size_t vl = strlen(v->path);
	for (size_t k = 0; k < pl->nmounts; k++) {
		const struct mount_rule *kr = &pl->mounts[k];
		if (kr->op != MNT_KEEP || keepfd[k] < 0 || strncmp(kr->path, v->path, vl) != 0 ||
		    kr->path[vl] != '/')
			continue;
		int r = skeleton(m, v->path, kr->path, kr->is_dir);
		if (r < 0)
			return sb_fail(err, kr->where, kr->path, "keeping it inside %s: %s", v->path, strerror(-r));
	}
	return v->op == MNT_VIEW && set_ro(m, false) < 0 ? errno : 0;
}

/* Before any mount: clone what will be brought back (KEEP trees, the
 * source of a private /tmp) while it is still visible.  A KEEP source
 * that is gone (a writable tree that was skipped) is skipped.  Returns 0
 * or -1 with `err`. */
static int clone_sources(const struct run *r, int *keepfd, struct sb_err *err)
{
	const struct plan *pl = r->plan;
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct mount_rule *m = &pl->mounts[i];
		const char *src = m->op == MNT_KEEP || m->op == MNT_RW ? m->path : m->op == MNT_TMP ? m->content : NULL;
		char link[4096] = "";
		if (!src)
			continue;
		if (m->op == MNT_TMP || strcmp(m->where, ".tmp") == 0) {
			/* tmp: the very directory proc_tmp_prepare() checked */
			int fd = proc_tmp_open(r, src, m->where, O_DIRECTORY, err);
			if (fd < 0)
				return -1;
			keepfd[i] = sb_open_tree(fd, "", SB_OPEN_TREE_CLONE | SB_OPEN_TREE_CLOEXEC | SB_AT_RECURSIVE | SB_AT_EMPTY_PATH);
			int e = errno;
			close(fd);
			if (keepfd[i] < 0)
				return sb_fail(err, m->where, src, "cannot bring it into the sandbox: %s", strerror(e));
			continue;
		}
		keepfd[i] = clone_at(pl, src, 0, link, sizeof link);
		if (keepfd[i] >= 0)
			continue;
		int e = -keepfd[i];
		keepfd[i] = -1;
		if (e == ELOOP && link[0])
			return open_path_fail(err, m->where, src, e, link);
		if (e == ENOENT)
			continue;
		return sb_fail(err, m->where, src, "cannot bring it into the sandbox: %s", strerror(e));
	}
	return 0;
}

/* The detached tree to attach for rule i (ownership passes to the
 * caller: *t), or an errno; `what` names the step for messages.  MNT_DEVPTS
 * mounts in place (*t stays -1).  Returns 0 or an errno; -1 with `err`
 * already filled. */
static int source_of(const struct plan *pl, size_t i, int *keepfd, int *t,
		     const char **what, char *link, size_t n, struct sb_err *err)
{
	const struct mount_rule *m = &pl->mounts[i];
	*t = -1;
	switch (m->op) {
	case MNT_PIN:
	case MNT_RO_BIND:
		*what = m->op == MNT_PIN ? "pinning it" : "binding it read-only";
		*t = clone_at(pl, m->path, SB_AT_SYMLINK_NOFOLLOW, link, n);
		if (*t < 0) {
			int e = -*t;
			*t = -1;
			return e;
		}
		return m->op != MNT_PIN && set_ro(*t, true) < 0 ? errno : 0;
	case MNT_MASK_DIR:
	case MNT_MASK_FILE:
		*what = "covering it";
		*t = keepfd[i]; /* cloned read-only by clone_masks() */
		keepfd[i] = -1;
		return 0;
	case MNT_KEEP:
	case MNT_RW: {
		/* cloned by clone_sources() before the read-only root; a
		 * writable tree is made nosuid and nodev, anything else kept
		 * read-only too (only ever adding restrictions: a flag locked
		 * on a mount cannot be cleared) */
		*what = m->op == MNT_KEEP ? "keeping it inside the view" : "bringing the writable tree back";
		*t = keepfd[i];
		keepfd[i] = -1;
		struct sb_mount_attr a = {SB_MOUNT_ATTR_NOSUID | SB_MOUNT_ATTR_NODEV | (m->rw ? 0 : SB_MOUNT_ATTR_RDONLY), 0, 0, 0};
		return sb_mount_setattr(*t, "", SB_AT_EMPTY_PATH | SB_AT_RECURSIVE, &a) < 0 ? errno : 0;
	}
	case MNT_RO_ROOT: {
		/* in place, recursively: every mount of this namespace */
		*what = "making everything outside the writable trees read-only";
		struct sb_mount_attr a = {SB_MOUNT_ATTR_RDONLY | SB_MOUNT_ATTR_NOSUID, 0, 0, 0};
		return sb_mount_setattr(AT_FDCWD, "/", SB_AT_RECURSIVE, &a) < 0 ? errno : 0;
	}
	case MNT_VIEW:
	case MNT_TMP: {
		*what = m->op == MNT_VIEW ? "an empty view" : "a private temporary directory";
		return replacement(pl, i, keepfd, t, err);
	}
	case MNT_SHM:
		*what = "a private tmpfs";
		*t = detached_tmpfs("1777", SB_MOUNT_ATTR_NOSUID | SB_MOUNT_ATTR_NODEV | SB_MOUNT_ATTR_NOEXEC);
		return *t < 0 ? -*t : 0;
	case MNT_DEVPTS:
		*what = "a private /dev/pts";
		return private_devpts();
	}
	return EINVAL;
}

/* A carve-out that may be skipped when its path is gone at mount time:
 * read-only binds, pins and covered symlinks of read_only and protect.
 * Never a hidden path (nor the directories on its way): one removed and
 * recreated during the run would be readable, so that stays a refusal. */
static bool vanished_ok(const struct mount_rule *m)
{
	return (m->op == MNT_PIN || m->op == MNT_RO_BIND || is_mask(m)) &&
	       strncmp(m->where, ".hidden", 7) != 0;
}

int ns_mounts(struct run *r, struct sb_err *err)
{
	const struct plan *pl = r->plan;
	if (!pl->mount_ns || !pl->nmounts)
		return 0;
	int rc = -1, mask = -1;
	size_t attached = 0; /* mounts made so far: none → a failure may fall back */
	int *keepfd = xcalloc(pl->nmounts, sizeof *keepfd);
	/* -1 throughout before anything can fail: a failure part-way
	 * through clone_sources() would otherwise close descriptor 0 (the
	 * command's stdin) once per rule it had not reached */
	for (size_t i = 0; i < pl->nmounts; i++)
		keepfd[i] = -1;
	bool need_mask = false;
	for (size_t i = 0; i < pl->nmounts; i++)
		need_mask |= is_mask(&pl->mounts[i]);
	if (clone_sources(r, keepfd, err))
		goto out;
	int e = 0;
	if (need_mask && (mask = mask_source()) < 0)
		e = -mask;
	else if (need_mask)
		e = clone_masks(pl, mask, keepfd);
	if (e) {
		/* nothing mounted yet (the staging mount is gone): plan again
		 * without mounts */
		r->ns_errno = e;
		snprintf(r->ns_why, sizeof r->ns_why, "a detached tmpfs for masks: %s", strerror(e));
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct mount_rule *m = &pl->mounts[i];
		const char *what = "";
		char link[4096] = "";
		int t;
		if ((m->op == MNT_KEEP || m->op == MNT_RW || is_mask(m)) && keepfd[i] < 0)
			continue; /* a kept tree that is gone */
		e = source_of(pl, i, keepfd, &t, &what, link, sizeof link, err);
		if (e < 0)
			goto out;
		if (!e && t >= 0) {
			int a = attach(pl, t, m->path, link, sizeof link);
			e = a < 0 ? -a : 0;
		}
		if (t >= 0)
			close(t);
		if (e == ELOOP && link[0]) {
			/* a symlink swapped in inside a writable tree: never a
			 * reason to plan again without mounts */
			open_path_fail(err, m->where, m->path, e, link);
			goto out;
		}
		if (e == ENOENT && vanished_ok(m)) {
			/* There when fit() planned it, gone now: removed on the
			 * host meanwhile (a git or editor operation in the
			 * workspace).  This used to refuse the run — 125 "binding
			 * it read-only failed: No such file or directory" for as
			 * long as the host kept churning the name, or, as the first
			 * mount, a silent fallback to expansion and a refusal
			 * there.  It is now what a name missing at plan time is:
			 * not protected against creation (README), said in a
			 * notice unless it is a built-in protect name. */
			if (strncmp(m->where, ".protect (built-in", 18) != 0)
				sb_say("notice: %s \"%s\": removed while the sandbox was set up, so it is not protected against creation",
				       m->where, m->path);
			continue;
		}
		if (e && !attached) {
			/* the first mount failed (e.g. mount_setattr before Linux
			 * 5.12): nothing changed yet, plan again without mounts */
			r->ns_errno = e;
			snprintf(r->ns_why, sizeof r->ns_why, "%s on %s: %s", what, m->path, strerror(e));
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

int ns_proc(struct sb_err *err)
{
	/* The flags a host /proc carries (nosuid, nodev, noexec) must be
	 * repeated: a user namespace locks them (fs/namespace.c
	 * mnt_already_visible), and read-only like the rest of the root. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) < 0)
		return sb_fail(err, ".no_survivors", "/proc", "mounting a /proc of the PID namespace failed: %s%s", strerror(errno),
			       errno == EPERM ? " (the host's /proc is partly covered, as in some containers; \"mounts\":\"off\" uses a subreaper instead)" : "");
	return 0;
}

/* Probe what this host can enforce: Landlock ABI, errata and why it is
 * missing, seccomp and its actions, whether user and mount namespaces can
 * be made here, capabilities held.  Cheap: a handful of syscalls and two
 * short-lived children (raw clone, no exec) for the namespace tests. */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <jansson.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "versions.h" /* build/deps/versions.h, written by scripts/deps */
#include "shim.h"
#include "sys.h"
#include "../policy/names.h"

#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U /* Linux 5.0 */
#endif
#ifndef SECCOMP_RET_LOG
#define SECCOMP_RET_LOG 0x7ffc0000U /* Linux 4.14 */
#endif

/* Try to make the namespaces in `flags` in a short-lived child.  A raw
 * clone() without CLONE_VM (fork semantics: nothing is shared) makes the
 * namespaces at creation, so the clone's own errno is the answer (EPERM:
 * no privilege or refused by a seccomp filter; ENOSPC: max_*_namespaces
 * reached; EINVAL: CLONE_NEWUSER from a chroot or a threaded caller).
 * With `mount`, the child also makes / private recursively — the first
 * step of any mount view — so a namespace whose mounts cannot be changed
 * counts as unavailable.  Exit signal 0 instead of SIGCHLD: a parent that
 * set SIGCHLD to SIG_IGN (inherited across execve) would otherwise have
 * the child reaped before its status is read.  Returns 0 or an errno. */
static int try_ns(unsigned long flags, bool mount)
{
	long pid = syscall(SYS_clone, flags, 0L, NULL, NULL, 0L);
	if (pid < 0)
		return errno;
	if (pid == 0) {
		long rc = 0;
		/* 128 + errno: the mount step, not the clone, refused */
		if (mount && syscall(SYS_mount, "none", "/", NULL,
				     (unsigned long)(MS_REC | MS_PRIVATE), NULL) < 0)
			rc = 128 + (errno & 127);
		syscall(SYS_exit_group, rc);
		_exit(127); /* not reached */
	}
	int st;
	while (waitpid((pid_t)pid, &st, __WALL) < 0)
		if (errno != EINTR)
			return errno;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return EINTR; /* killed by a signal before answering */
}

void ns_describe(char *buf, size_t n, unsigned long flags, bool propagation, int e)
{
	static const struct { unsigned long f; const char *name; } names[] = {
		{CLONE_NEWUSER, "CLONE_NEWUSER"}, {CLONE_NEWNS, "CLONE_NEWNS"},
		{CLONE_NEWIPC, "CLONE_NEWIPC"}, {CLONE_NEWNET, "CLONE_NEWNET"},
	};
	if (propagation) { /* mount(2): EINVAL when the target is not a mount point */
		snprintf(buf, n, "mount propagation: %s%s", strerror(e),
			 e == EINVAL ? ": the root of this chroot is not a mount point" : "");
		return;
	}
	char f[80] = "";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (flags & names[i].f)
			snprintf(f + strlen(f), sizeof f - strlen(f), "%s%s", f[0] ? "|" : "", names[i].name);
	snprintf(buf, n, "unshare(%s): %s", f, strerror(e));
}

void probe_host(struct host *h, bool tries)
{
	memset(h, 0, sizeof *h);
	int abi = sb_landlock_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi > 0) {
		h->ll_abi = abi;
		/* errata query is ABI 7+ (Linux 6.15); older kernels: EINVAL */
		int e = sb_landlock_create_ruleset(NULL, 0, LL_CREATE_RULESET_ERRATA);
		h->ll_errata = e > 0 ? (uint32_t)e : 0;
	} else {
		h->ll_errno = errno;
	}
	/* PR_GET_SECCOMP answers EINVAL without CONFIG_SECCOMP; filter mode
	 * itself is checked by asking whether the kill action exists. */
	uint32_t act = SECCOMP_RET_KILL_PROCESS;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		h->seccomp_errno = errno;
	else if (syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) < 0)
		h->seccomp_errno = errno;
	else
		h->seccomp = true;
	act = SECCOMP_RET_USER_NOTIF;
	h->seccomp_user_notif = h->seccomp &&
		syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) == 0;
	/* capget(2) itself, on every start: capng_get_caps_process() would
	 * also read /proc/self/status twice for the bounding and ambient sets
	 * (about 25 us each here), which the plan does not use.  A failure
	 * leaves no capability known, as before. */
	struct __user_cap_header_struct ch = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct cd[2] = {{0, 0, 0}, {0, 0, 0}};
	uint64_t effective = 0;
	if (syscall(SYS_capget, &ch, cd) == 0) {
		h->cap_permitted = cd[0].permitted | (uint64_t)cd[1].permitted << 32;
		effective = cd[0].effective | (uint64_t)cd[1].effective << 32;
	}
	/* Namespaces: a user namespace alone, then a mount namespace the way
	 * the shim would make one — directly with CAP_SYS_ADMIN, otherwise
	 * inside a new user namespace. */
	h->mounts_via_userns = !(effective & (1ULL << CAP_SYS_ADMIN));
	if (tries) {
		h->userns_errno = try_ns(CLONE_NEWUSER, false);
		h->userns = h->userns_errno == 0;
		unsigned long flags = CLONE_NEWNS | CLONE_NEWIPC | (h->mounts_via_userns ? CLONE_NEWUSER : 0);
		int e = try_ns(flags, true);
		h->mounts_errno = e & 127;
		h->mounts = e == 0;
		if (e)
			ns_describe(h->mounts_why, sizeof h->mounts_why, flags, e >= 128, e & 127);
	} else {
		/* A run does not fork to find out: it tries unshare itself and
		 * plans again without namespaces if that is refused. */
		h->mounts = true;
	}
	/* The terminal on stdio, for granting just it when no private
	 * /dev/pts can be had. */
	bool tty[3];
	for (int t = 0; t < 3; t++) {
		char link[32], target[64];
		/* a terminal is a tty (one ioctl); only then is the name
		 * worth a readlink of /proc (a path walk and a d_path) */
		tty[t] = isatty(t);
		if (!tty[t])
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%d", t);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n > 9 && strncmp(target, "/dev/pts/", 9) == 0) {
			target[n] = 0;
			snprintf(h->stdio_tty[t], sizeof h->stdio_tty[t], "%s", target);
		}
	}
	/* /dev/tty is the controlling terminal: granted only when it is the
	 * one on stdio (tcgetsid: the session it controls is ours), not
	 * when stdio holds another terminal and the user's is elsewhere */
	pid_t sid = tty[0] || tty[1] || tty[2] ? getsid(0) : -1;
	for (int t = 0; t < 3 && !h->stdio_terminal; t++)
		h->stdio_terminal = tty[t] && tcgetsid(t) == sid;
	if (!getcwd(h->cwd, sizeof h->cwd))
		h->cwd[0] = 0;
	int pers = personality(0xffffffff);
	h->persona = pers < 0 ? 0 : (uint32_t)pers;
	struct utsname u;
	const char *home = getenv("HOME");
	if (home)
		snprintf(h->home, sizeof h->home, "%s", home);
	if (uname(&u) == 0)
		snprintf(h->release, sizeof h->release, "%s", u.release);
}

/* Symbolic name of the errnos a probe can meet (JSON null for 0). */
static json_t *errno_json(int e)
{
	static const struct { int e; const char *n; } names[] = {
		{EPERM, "EPERM"}, {EINVAL, "EINVAL"}, {ENOSYS, "ENOSYS"},
		{EOPNOTSUPP, "EOPNOTSUPP"}, {EACCES, "EACCES"}, {ENOSPC, "ENOSPC"},
		{EUSERS, "EUSERS"}, {ENOMEM, "ENOMEM"}, {EAGAIN, "EAGAIN"},
		{EFAULT, "EFAULT"}, {ECHILD, "ECHILD"}, {EINTR, "EINTR"},
	};
	if (!e)
		return json_null();
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].e == e)
			return json_string(names[i].n);
	char buf[32];
	snprintf(buf, sizeof buf, "errno %d", e);
	return json_string(buf);
}

/* {"available": bool, "errno": null|"EPERM", "error": null|"Operation not permitted"} */
static json_t *feature(bool ok, int e)
{
	json_t *o = json_pack("{s:b}", "available", ok);
	json_object_set_new(o, "errno", ok ? json_null() : errno_json(e));
	json_object_set_new(o, "error", ok || !e ? json_null() : json_string(strerror(e)));
	return o;
}

/* Booleans for every name of Landlock table kind `kind`, true when `abi`
 * has it. */
static json_t *ll_bools(int kind, int abi)
{
	json_t *o = json_object();
	for (int b = 0; b < 64; b++) {
		const char *n = ll_right_name(kind, 1ULL << b);
		if (n) {
			int first = ll_abi_of(kind, 1ULL << b);
			json_object_set_new(o, n, json_boolean(abi > 0 && first <= abi));
		}
	}
	return o;
}

static json_t *cap_list(capng_type_t set)
{
	json_t *a = json_array();
	for (unsigned c = 0; c <= CAP_LAST_CAP && c < 64; c++)
		if (capng_have_capability(set, c)) {
			char n[64];
			cap_name((int)c, n, sizeof n);
			json_array_append_new(a, json_string(n));
		}
	return a;
}

int probe_print(const struct host *h)
{
	json_t *ll = json_object();
	json_object_set_new(ll, "abi", json_integer(h->ll_abi));
	json_object_set_new(ll, "status", json_string(
		h->ll_abi > 0 ? "enabled" : h->ll_errno == EOPNOTSUPP ? "disabled" :
		h->ll_errno == ENOSYS ? "absent" : "unusable"));
	json_object_set_new(ll, "errno", h->ll_abi > 0 ? json_null() : errno_json(h->ll_errno));
	json_object_set_new(ll, "errata", json_integer(h->ll_errata));
	/* rights are listed as this shim knows them: a newer kernel's extra
	 * rights are neither handled nor named (LL_ABI_KNOWN) */
	json_object_set_new(ll, "access_fs", ll_bools(0, h->ll_abi));
	json_object_set_new(ll, "access_net", ll_bools(1, h->ll_abi));
	json_object_set_new(ll, "scoped", ll_bools(2, h->ll_abi));
	json_object_set_new(ll, "restrict_self", ll_bools(3, h->ll_abi));

	json_t *sc = json_object();
	json_object_set_new(sc, "filter", json_boolean(h->seccomp));
	json_object_set_new(sc, "errno", h->seccomp ? json_null() : errno_json(h->seccomp_errno));
	json_object_set_new(sc, "user_notif", json_boolean(h->seccomp_user_notif));
	static const struct { const char *n; uint32_t a; } acts[] = {
		{"kill_process", SECCOMP_RET_KILL_PROCESS}, {"kill_thread", SECCOMP_RET_KILL_THREAD},
		{"trap", SECCOMP_RET_TRAP}, {"errno", SECCOMP_RET_ERRNO},
		{"user_notif", SECCOMP_RET_USER_NOTIF}, {"trace", SECCOMP_RET_TRACE},
		{"log", SECCOMP_RET_LOG}, {"allow", SECCOMP_RET_ALLOW}};
	json_t *av = json_object();
	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
		uint32_t a = acts[i].a;
		json_object_set_new(av, acts[i].n, json_boolean(h->seccomp &&
			syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &a) == 0));
	}
	json_object_set_new(sc, "actions", av);
	/* 2: this process already runs under a filter (stacked filters add up) */
	json_object_set_new(sc, "filtered", json_boolean(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2));

	json_t *ns = json_object();
	json_object_set_new(ns, "user", feature(h->userns, h->userns_errno));
	json_t *mnt = feature(h->mounts, h->mounts_errno);
	json_object_set_new(mnt, "via", json_string(h->mounts_via_userns ? "user_namespace" : "privileged"));
	json_object_set_new(ns, "mount", mnt);

	capng_get_caps_process();
	json_t *caps = json_pack("{s:o, s:o, s:o, s:o, s:o}",
		"effective", cap_list(CAPNG_EFFECTIVE), "permitted", cap_list(CAPNG_PERMITTED),
		"inheritable", cap_list(CAPNG_INHERITABLE), "ambient", cap_list(CAPNG_AMBIENT),
		"bounding", cap_list(CAPNG_BOUNDING_SET));

	const struct scmp_version *v = seccomp_version();
	char sv[48];
	snprintf(sv, sizeof sv, "%u.%u.%u", v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
	int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	json_t *root = json_pack("{s:s, s:s, s:o, s:o, s:o, s:b, s:I, s:I, s:o}",
		"version", SB_VERSION, "kernel", h->release, "landlock", ll,
		"seccomp", sc, "namespaces", ns, "no_new_privs", nnp == 1,
		"uid", (json_int_t)getuid(), "gid", (json_int_t)getgid(),
		"capabilities", caps);
	json_object_set_new(root, "libraries", json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
		"libseccomp", DEP_LIBSECCOMP_VERSION, "libseccomp_runtime", sv,
		"libcap-ng", DEP_LIBCAPNG_VERSION, "jansson", DEP_JANSSON_VERSION,
		"jansson_runtime", jansson_version_str(), "musl", DEP_MUSL_VERSION));
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s)
		return 125;
	puts(s);
	free(s);
	return fflush(stdout) == 0 ? 0 : 125;
}

/* The default seccomp filter of DESIGN.md as data: a table of refused
 * syscalls and argument rules, adjusted by seccomp.deny / seccomp.allow.
 * shim/seccomp.c turns the rules into BPF with libseccomp. */
#include <errno.h>
#include <linux/sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "fit.h"
#include "names.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
/* SMC over an inet socket (Linux 6.11: socket(AF_INET, SOCK_STREAM,
 * IPPROTO_SMC)); AF_SMC itself is refused as an exotic family. */
#define SB_IPPROTO_SMC 256u
#define SB_TIOCSTI 0x5412u
#define SB_TIOCLINUX 0x541Cu
/* AF_MAX of Linux 6.18 (AF_MCTP + 1 = 46); families at or above it do not
 * exist and are refused by one GE comparison. */
#define SB_AF_MAX 46u

/* Groups refused by default (REFERENCE.md "Default groups"). */
static const char *const default_groups[] = {"@mount", "@module", "@reboot",
	"@swap", "@clock", "@raw-io", "@cpu-emulation", "@obsolete", "@debug",
	"@keyring", NULL};
static const char *const default_singles[] = {"process_vm_readv",
	"process_vm_writev", "bpf", "open_by_handle_at", "fanotify_init", "acct",
	"quotactl", "quotactl_fd", "sethostname", "setdomainname", "vhangup",
	"userfaultfd", "syslog", "setns", NULL};

/* True if `name` (syscall) is covered by the profile's seccomp.allow,
 * by name or through one of its @groups. */
static bool allowed(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->seccomp_allow.n; i++) {
		const char *a = p->seccomp_allow.v[i];
		if (a[0] != '@') {
			if (strcmp(a, name) == 0)
				return true;
			continue;
		}
		const char *const *m = sc_group_members(a);
		for (; m && *m; m++)
			if (strcmp(*m, name) == 0)
				return true;
	}
	return false;
}

/* Append a rule.  seccomp.allow removes default rules by name; rules that
 * carry the network mode (socket families, MPTCP, MSG_FASTOPEN) belong to
 * `network`/`unix_sockets`/port lists and are not removed by it, and an
 * explicit seccomp.deny always wins. */
enum origin { DEFAULT, NETWORK, DENY, REPORT /* comes with "denials" */ };
static void add_from(struct plan *pl, const struct profile *p, enum origin o,
		     const char *name, int err, const char *why, unsigned ncmp,
		     const struct sc_cmp *cmp)
{
	/* Names from seccomp.deny were checked by the parser; the built-in
	 * ones are known to the libseccomp the shim is built with
	 * (tests/unit: test_filter_names, every mode), so no look-up here
	 * (about 150 per start). */
	(void)sc_name_valid;
	if (o == DEFAULT && allowed(p, name))
		return;
	if (pl->nsc == pl->capsc) {
		pl->capsc = pl->capsc ? pl->capsc * 2 : 128;
		pl->sc = xrealloc(pl->sc, pl->capsc * sizeof *pl->sc);
	}
	struct sc_rule *r = &pl->sc[pl->nsc++];
	memset(r, 0, sizeof *r);
	r->syscall = name;
	r->err = err;
	r->why = why;
	r->ncmp = ncmp;
	for (unsigned i = 0; i < ncmp; i++)
		r->cmp[i] = cmp[i];
}

static void add(struct plan *pl, const struct profile *p, const char *name,
		int err, const char *why, unsigned ncmp, const struct sc_cmp *cmp)
{
	add_from(pl, p, DEFAULT, name, err, why, ncmp, cmp);
}

static void add_list(struct plan *pl, const struct profile *p, enum origin o,
		     const char *const *names, int err, const char *why)
{
	for (; *names; names++) {
		const char *const *m = (*names)[0] == '@' ? sc_group_members(*names) : NULL;
		if (!m) {
			add_from(pl, p, o, *names, err, why, 0, NULL);
			continue;
		}
		for (; *m; m++)
			add_from(pl, p, o, *m, err, why, 0, NULL);
	}
}

static void add1(struct plan *pl, const struct profile *p, const char *name,
		 int err, const char *why, struct sc_cmp a)
{
	add(pl, p, name, err, why, 1, &a);
}

static void net1(struct plan *pl, const struct profile *p, const char *name,
		 int err, const char *why, struct sc_cmp a)
{
	add_from(pl, p, NETWORK, name, err, why, 1, &a);
}

static void net2(struct plan *pl, const struct profile *p, const char *name,
		 int err, const char *why, struct sc_cmp a, struct sc_cmp b)
{
	struct sc_cmp c[2] = {a, b};
	add_from(pl, p, NETWORK, name, err, why, 2, c);
}

#define CMP(arg, op, datum) ((struct sc_cmp){arg, op, 0, datum})
#define MASKED(arg, mask, datum) ((struct sc_cmp){arg, SC_MASKED_EQ, mask, datum})

static void socket_rules(struct plan *pl, const struct profile *p,
			 bool tcp_restricted)
{
	static const char why_fam[] = "socket family refused by network mode";
	bool inet = pl->network != NET_OFF; /* on, or loopback in its own namespace */
	for (unsigned fam = 0; fam < SB_AF_MAX; fam++) {
		bool ok = fam == AF_NETLINK || (fam == AF_UNIX && pl->unix_sockets != UNIX_NONE) ||
			  (inet && (fam == AF_INET || fam == AF_INET6));
		if (!ok)
			net1(pl, p, "socket", EAFNOSUPPORT, why_fam, CMP(0, SC_EQ, fam));
	}
	net1(pl, p, "socket", EAFNOSUPPORT, why_fam, CMP(0, SC_GE, SB_AF_MAX));
	/* Netlink only for address and route queries (getifaddrs). */
	net2(pl, p, "socket", EPROTONOSUPPORT, "netlink other than NETLINK_ROUTE",
	     CMP(0, SC_EQ, AF_NETLINK), CMP(2, SC_NE, 0 /* NETLINK_ROUTE */));
	if (!tcp_restricted)
		return;
	/* Landlock's TCP rules do not cover MPTCP/SCTP (erratum 1 context)
	 * nor a TCP Fast Open connect done by sendmsg(MSG_FASTOPEN), which
	 * skips the connect hook. SOCK_SEQPACKET with protocol 0 is SCTP. */
	static const char why_tcp[] = "would go around Landlock's TCP port rules";
	const unsigned fams[] = {AF_INET, AF_INET6};
	for (unsigned i = 0; i < 2; i++) {
		net2(pl, p, "socket", EPROTONOSUPPORT, why_tcp,
		     CMP(0, SC_EQ, fams[i]), CMP(2, SC_EQ, IPPROTO_MPTCP));
		net2(pl, p, "socket", EPROTONOSUPPORT, why_tcp,
		     CMP(0, SC_EQ, fams[i]), CMP(2, SC_EQ, IPPROTO_SCTP));
		net2(pl, p, "socket", EPROTONOSUPPORT, why_tcp,
		     CMP(0, SC_EQ, fams[i]), CMP(2, SC_EQ, SB_IPPROTO_SMC));
		net2(pl, p, "socket", EPROTONOSUPPORT, why_tcp,
		     CMP(0, SC_EQ, fams[i]), MASKED(1, 0xf, SOCK_SEQPACKET));
	}
	net1(pl, p, "sendto", EPERM, why_tcp, MASKED(3, MSG_FASTOPEN, MSG_FASTOPEN));
	net1(pl, p, "sendmsg", EPERM, why_tcp, MASKED(2, MSG_FASTOPEN, MSG_FASTOPEN));
	net1(pl, p, "sendmmsg", EPERM, why_tcp, MASKED(3, MSG_FASTOPEN, MSG_FASTOPEN));
}

/* No set-uid or set-gid bit can be made (systemd's RestrictSUIDSGID=):
 * a file the command marks so would run with its owner's ids for any
 * local user after the sandbox is gone.  Every call that sets a file's
 * mode is checked bit by bit, one masked comparison per bit (libseccomp
 * takes one comparison per argument) — not mkdir: the kernel drops both
 * bits from its mode (vfs_prepare_mode), so refusing them there would
 * only break cp -a in a set-gid directory; creating calls only with O_CREAT or
 * O_TMPFILE; openat2's mode sits behind a pointer, so ENOSYS (libcs fall
 * back to openat). */
#define SB_O_CREAT 0100u
#define SB_O_TMPFILE 020000000u /* __O_TMPFILE: the bit O_TMPFILE adds to O_DIRECTORY */
static void suid_rules(struct plan *pl, const struct profile *p)
{
	static const char why[] = "set-uid/set-gid bits (RestrictSUIDSGID)";
	static const struct { const char *name; unsigned mode_arg; int flags_arg; } calls[] = {
		{"chmod", 1, -1}, {"fchmod", 1, -1}, {"fchmodat", 2, -1}, {"fchmodat2", 2, -1},
		{"mknod", 1, -1}, {"mknodat", 2, -1},
		{"creat", 1, -1}, {"open", 2, 1}, {"openat", 3, 2}};
	static const unsigned bits[] = {04000 /* S_ISUID */, 02000 /* S_ISGID */};
	static const unsigned creating[] = {SB_O_CREAT, SB_O_TMPFILE};
	for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++)
		for (size_t b = 0; b < 2; b++) {
			struct sc_cmp m = MASKED(calls[c].mode_arg, bits[b], bits[b]);
			if (calls[c].flags_arg < 0) {
				add1(pl, p, calls[c].name, EPERM, why, m);
				continue;
			}
			for (size_t f = 0; f < 2; f++) {
				struct sc_cmp two[2] = {MASKED((unsigned)calls[c].flags_arg, creating[f], creating[f]), m};
				add(pl, p, calls[c].name, EPERM, why, 2, two);
			}
		}
	add(pl, p, "openat2", ENOSYS, "its mode is behind a pointer (RestrictSUIDSGID); libcs fall back to openat", 0, NULL);
}

/* Landlock below ABI 3 checks open(O_RDONLY|O_TRUNC) as a read and does
 * not see truncate(2) at all (security_path_truncate, FS_TRUNCATE in ABI
 * 3): both are refused, as Landlock refuses a truncate (EACCES).  openat2
 * is ENOSYS already (suid_rules); creat and O_WRONLY/O_RDWR opens need
 * the write right Landlock does check. */
#define SB_O_ACCMODE 03u
#define SB_O_TRUNC 01000u
static void truncate_rules(struct plan *pl, const struct profile *p)
{
	static const char why[] = "truncate outside Landlock's view (ABI below 3)";
	add(pl, p, "truncate", EACCES, why, 0, NULL);
	add1(pl, p, "open", EACCES, why, MASKED(1, SB_O_ACCMODE | SB_O_TRUNC, SB_O_TRUNC));
	add1(pl, p, "openat", EACCES, why, MASKED(2, SB_O_ACCMODE | SB_O_TRUNC, SB_O_TRUNC));
}

void filter_build(const struct profile *p, const struct host *h,
		  bool tcp_restricted, struct plan *pl)
{
	add_list(pl, p, DEFAULT, default_groups, EPERM, "default filter group");
	add_list(pl, p, DEFAULT, default_singles, EPERM, "default filter");
	/* io_uring runs operations outside seccomp's view; clone3's flags are
	 * behind a pointer.  ENOSYS makes runtimes fall back (to epoll, to
	 * clone whose flags are checked below). */
	add(pl, p, "io_uring_setup", ENOSYS, "io_uring is invisible to seccomp", 0, NULL);
	add(pl, p, "io_uring_enter", ENOSYS, "io_uring is invisible to seccomp", 0, NULL);
	add(pl, p, "io_uring_register", ENOSYS, "io_uring is invisible to seccomp", 0, NULL);
	add(pl, p, "clone3", ENOSYS, "flags unreadable by seccomp; libc falls back to clone", 0, NULL);

	static const unsigned ns_flags[] = {CLONE_NEWNS, CLONE_NEWCGROUP,
		CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
		CLONE_NEWNET, CLONE_NEWTIME};
	for (size_t i = 0; i < sizeof ns_flags / sizeof ns_flags[0]; i++) {
		add1(pl, p, "unshare", EPERM, "creates a namespace", MASKED(0, ns_flags[i], ns_flags[i]));
		add1(pl, p, "clone", EPERM, "creates a namespace", MASKED(0, ns_flags[i], ns_flags[i]));
	}
	/* ioctl's request is an unsigned int: compare the low 32 bits only
	 * (CVE-2019-10063: high bits must not slip past). */
	add1(pl, p, "ioctl", EPERM, "TIOCSTI injects input into the terminal (CVE-2017-5226)",
	     CMP(1, SC_EQ, SB_TIOCSTI));
	add1(pl, p, "ioctl", EPERM, "TIOCLINUX can inject console input",
	     CMP(1, SC_EQ, SB_TIOCLINUX));
	/* personality: only the current persona, as systemd's LockPersonality
	 * (one comparison per argument: libseccomp refuses two on the same
	 * one, so the query 0xffffffff is refused too, as there). */
	add1(pl, p, "personality", EPERM, "personality other than the current one",
	     CMP(0, SC_NE, h->persona));
	suid_rules(pl, p);
	/* SysV IPC objects are shared by every process of the IPC namespace:
	 * with a mount namespace the sandbox gets its own; without one they
	 * are refused (a profile lifts that with seccomp.allow). */
	if (!pl->mount_ns) {
		static const char *const sysv[] = {"shmget", "shmat", "shmdt", "shmctl",
			"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
			"semtimedop", "semctl", "ipc", NULL};
		add_list(pl, p, DEFAULT, sysv, EPERM, "SysV IPC is shared with the host (no IPC namespace)");
	}
	socket_rules(pl, p, tcp_restricted);
	if (pl->truncate_filter)
		truncate_rules(pl, p);
	/* With the denial report, refused calls are SECCOMP_RET_USER_NOTIF
	 * answered by the shim's listener.  A listener of the command's own
	 * on a newer filter would win the tie between two USER_NOTIF results
	 * and could answer SECCOMP_USER_NOTIF_FLAG_CONTINUE: the refused
	 * call would run.  The kernel refuses a second listener in one chain
	 * with EBUSY while the shim's exists, but frees that check with it
	 * (seccomp_notify_detach); this rule keeps EBUSY for good, and
	 * seccomp.allow cannot lift it. */
	if (pl->denials_fd >= 0) {
		struct sc_cmp two[2] = {CMP(0, SC_EQ, 1 /* SECCOMP_SET_MODE_FILTER */),
					MASKED(1, 8u, 8u) /* SECCOMP_FILTER_FLAG_NEW_LISTENER */};
		add_from(pl, p, REPORT, "seccomp", EBUSY,
			 "a listener of the command's own could let refused calls run (denials)", 2, two);
	}

	for (size_t i = 0; i < p->seccomp_deny.n; i++) {
		const char *d = p->seccomp_deny.v[i];
		const char *one[2] = {d, NULL};
		add_list(pl, p, DENY, one, EPERM, "seccomp.deny");
	}
}

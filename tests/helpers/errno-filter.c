/* errno-filter: run COMMAND with some syscalls failing with a chosen errno,
 * to show --probe a kernel without a feature (landlock_create_ruleset →
 * ENOSYS: not built in; → EOPNOTSUPP: disabled at boot; clone → EPERM:
 * namespaces refused; seccomp → EINVAL: no filter support).
 *
 *   errno-filter NAME=ERRNO [NAME=ERRNO...] -- COMMAND [ARG...]
 *
 * NAME: landlock_create_ruleset, clone, seccomp, prctl, or unshare-net
 * (unshare with CLONE_NEWNET among its flags: a host that gives mount but
 * not network namespaces; the helper that makes one ahead fails too, so
 * the shim's own attempt is what is seen); ERRNO: ENOSYS,
 * EOPNOTSUPP, EPERM, EINVAL.  A raw classic-BPF filter (x86_64 only; any
 * other architecture is let through unchanged, this is a test tool), set
 * with no_new_privs.  Exit 2 on a usage error, 1 if the filter cannot be
 * installed, 127 if COMMAND cannot be executed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct { const char *n; int nr; } calls[] = {
	{"landlock_create_ruleset", 444}, {"clone", SYS_clone},
	{"seccomp", SYS_seccomp}, {"prctl", SYS_prctl},
};
static const struct { const char *n; int e; } errs[] = {
	{"ENOSYS", ENOSYS}, {"EOPNOTSUPP", EOPNOTSUPP}, {"EPERM", EPERM},
	{"EINVAL", EINVAL},
};

static int usage(void)
{
	fputs("usage: errno-filter NAME=ERRNO... -- COMMAND [ARG...]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct sock_filter f[64];
	unsigned n = 0;
	int i = 1;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char *eq = strchr(argv[i], '=');
		int nr = -1, e = -1;
		if (!eq || n + 3 > sizeof f / sizeof f[0])
			return usage();
		*eq = 0;
		for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++)
			if (strcmp(calls[k].n, argv[i]) == 0)
				nr = calls[k].nr;
		for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++)
			if (strcmp(errs[k].n, eq + 1) == 0)
				e = errs[k].e;
		bool net = strcmp(argv[i], "unshare-net") == 0;
		if (net)
			nr = SYS_unshare;
		if (nr < 0 || e < 0 || n + 6 > sizeof f / sizeof f[0])
			return usage();
		if (net) {
			/* refused only with CLONE_NEWNET in the low word of
			 * the flags; A gets the number back for the next test */
			f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 4);
			f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
			f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWNET, 0, 1);
			f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)e);
			f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
			continue;
		}
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)e);
	}
	if (i + 1 >= argc)
		return usage();
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("errno-filter: installing the filter");
		return 1;
	}
	execvp(argv[i + 1], &argv[i + 1]);
	perror("errno-filter: exec");
	return 127;
}

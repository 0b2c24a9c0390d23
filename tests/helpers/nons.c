/* nons: run COMMAND where namespaces are refused the way container runtimes
 * refuse them (Docker's and Podman's default seccomp profiles): `unshare`
 * and `clone` with any CLONE_NEW* flag fail with EPERM, `clone3` with
 * ENOSYS (its flags live in memory a filter cannot read, so runtimes make
 * libcs fall back to clone), everything else is allowed.  The filter is
 * inherited by every descendant, so `__sandbox` under it has to work
 * without a mount, user or network namespace.
 *
 *   nons COMMAND [ARG...]
 *
 * A raw classic-BPF filter for the native architecture only (x86_64 or
 * aarch64): a syscall from any other audit architecture (x32's numbers
 * included, and i386 through int 0x80) kills the process, so nothing goes
 * around the filter.  no_new_privs is set first (required to install a
 * filter without CAP_SYS_ADMIN).  Exit 2 on a usage error, 1 if the filter
 * cannot be installed, 127 if COMMAND cannot be executed. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "nons: only x86_64 and aarch64 are supported"
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif

/* Every namespace flag of clone(2) and unshare(2).  They all sit in the
 * low 32 bits: only the low word of the flags argument is compared (the
 * kernel takes clone's flags as an unsigned long, but no CLONE_NEW* flag
 * lives above bit 31; that is also how Docker's profile compares). */
#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		  CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

#define STMT(c, k) ((struct sock_filter)BPF_STMT((c), (k)))
#define JUMP(c, k, t, f) ((struct sock_filter)BPF_JUMP((c), (k), (t), (f)))
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fputs("usage: nons COMMAND [ARG...]\n", stderr);
		return 2;
	}
	struct sock_filter f[] = {
		/* [0] other architectures: kill */
		STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		/* [3] the syscall number */
		STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
		/* x32 numbers carry bit 30 on the same audit arch: kill */
		JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
		STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
		RET_ERRNO(EPERM),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		RET_ERRNO(ENOSYS),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
		/* clone: flags are args[0] on both architectures; the low word
		 * (little-endian: the first 4 bytes of the 8-byte argument) */
		STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1),
		RET_ERRNO(EPERM),
		STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("nons: installing the filter");
		return 1;
	}
	execvp(argv[1], &argv[1]);
	fprintf(stderr, "nons: %s: %s\n", argv[1], strerror(errno));
	return 127;
}

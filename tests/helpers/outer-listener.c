/* outer-listener: run COMMAND under an allow-all seccomp filter that has a
 * user-notification listener (SECCOMP_FILTER_FLAG_NEW_LISTENER), as a
 * container runtime that intercepts system calls would: the kernel then
 * refuses a second listener anywhere below it with EBUSY.  Nothing is ever
 * notified (the filter allows everything).  The listener descriptor is
 * left open across exec (a runtime keeps it in its supervisor; closing
 * the last one detaches the listener and lifts the EBUSY).
 *
 *   outer-listener COMMAND [ARG...]
 *
 * Exit 2 on a usage error, 1 if the filter cannot be installed, 127 if
 * COMMAND cannot be executed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: outer-listener COMMAND [ARG...]\n", stderr);
		return 2;
	}
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {1, &allow};
	long fd = -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    (fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0 ||
	    fcntl((int)fd, F_SETFD, 0) < 0) {
		perror("outer-listener: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("outer-listener: exec");
	return 127;
}

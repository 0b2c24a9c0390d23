/* syscall-loop: the steady-state workload of `make bench` (scripts/bench):
 * N rounds of one kind of system call, so the cost seccomp and Landlock add
 * per call shows when the same run is compared inside and outside
 * __sandbox.
 *
 *   syscall-loop open-read N FILE   N × openat(FILE, O_RDONLY) + read 1 byte
 *                                   + close (Landlock checks every open)
 *   syscall-loop getppid N          N × getppid (seccomp runs its filter,
 *                                   or its allow cache, on every call)
 *
 * Raw syscall() so libc adds nothing and the calls reach the kernel as
 * written.  Prints nothing on success; exit 1 (with the errno on stderr)
 * if a call fails — a benchmark of failing calls would measure nothing
 * useful; exit 2 on a usage error. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int usage(void)
{
	fputs("usage: syscall-loop open-read N FILE | getppid N\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	char *end;
	unsigned long n = strtoul(argv[2], &end, 10);
	if (*end || !n)
		return usage();
	if (strcmp(argv[1], "open-read") == 0 && argc == 4) {
		char c;
		for (unsigned long i = 0; i < n; i++) {
			long fd = syscall(SYS_openat, AT_FDCWD, argv[3], O_RDONLY | O_CLOEXEC);
			if (fd < 0 || syscall(SYS_read, fd, &c, 1) < 0) {
				perror(argv[3]);
				return 1;
			}
			syscall(SYS_close, fd);
		}
		return 0;
	}
	if (strcmp(argv[1], "getppid") == 0 && argc == 3) {
		for (unsigned long i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	return usage();
}

/* flip: swap two names atomically, over and over, as a concurrent
 * sandboxed command could (issue 10, class 4: a directory that fit()
 * checked becomes a symlink to a victim before the shim uses it).
 *
 *   flip A B
 *
 * renameat2(RENAME_EXCHANGE) of A and B (Linux 3.15) in a loop, so each
 * name is always there and is, in turn, what the other was.  Prints
 * "ready" once the first exchange worked; on SIGTERM prints the number of
 * exchanges made and exits 0.  Exit 2 on a usage error, 1 when the first
 * exchange fails (the errno's text on stderr). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: flip A B\n", stderr);
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	unsigned long n = 0;
	while (!stop) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) < 0) {
			if (n == 0) {
				fprintf(stderr, "flip: %s, %s: %s\n", argv[1], argv[2], strerror(errno));
				return 1;
			}
			continue;
		}
		if (n++ == 0) {
			puts("ready");
			fflush(stdout);
		}
	}
	printf("%lu\n", n);
	return 0;
}

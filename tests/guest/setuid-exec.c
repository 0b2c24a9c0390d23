/* setuid-exec UID GID COMMAND [ARG...] — drop every supplementary group,
 * set the real, effective and saved gid then uid, and execv() COMMAND
 * (a path, no PATH lookup).  The in-guest suite's stand-in for
 * `setpriv --reuid UID --regid GID --clear-groups`, which busybox lacks;
 * static, so it runs in the initramfs.  Must be started as root.
 * Exit 126 when a step fails (the message names it), 127 if COMMAND
 * cannot be executed, 2 on a usage error. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long id_arg(const char *s)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 0xfffffffeUL) {
		fprintf(stderr, "setuid-exec: \"%s\" is not a uid/gid\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: setuid-exec UID GID COMMAND [ARG...]\n", stderr);
		return 2;
	}
	uid_t uid = (uid_t)id_arg(argv[1]);
	gid_t gid = (gid_t)id_arg(argv[2]);
	/* groups first: after setuid the right to change them is gone */
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0) {
		fprintf(stderr, "setuid-exec: switching to %lu:%lu: %s\n",
			(unsigned long)uid, (unsigned long)gid, strerror(errno));
		return 126;
	}
	execv(argv[3], argv + 3);
	fprintf(stderr, "setuid-exec: %s: %s\n", argv[3], strerror(errno));
	return 127;
}

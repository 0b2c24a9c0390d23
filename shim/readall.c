/* Reading a whole input into memory: the profile (fd:N, @PATH) and the
 * image's /etc/passwd and /etc/group (shim/user.c) are read the same way,
 * bounded, so a huge or endless input (a pipe, /dev/zero) fails instead of
 * exhausting memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "shim.h"

int read_fd_all(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	if (cap > max + 1)
		cap = max + 1;
	char *buf = xmalloc(cap);
	for (;;) {
		/* checked before each read, so the buffer never grows past
		 * max + 1 bytes and nothing is kept of a larger input */
		if (n >= max) {
			free(buf);
			return -EFBIG;
		}
		if (n + 1 == cap) { /* full but for the NUL */
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR) /* a signal before any byte: read again */
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

/* One diagnostic line on stderr (shim.h: sb_say): the only way any layer
 * speaks; stdout belongs to the command. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "shim.h"

void sb_say(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* Paths come from the profile: a newline in one must not forge a
	 * second "__sandbox:" line, nor a control byte reach the terminal. */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	/* one write: lines from concurrent processes do not interleave */
	char line[2100];
	int m = snprintf(line, sizeof line, "__sandbox: %s\n", buf);
	if (m > 0)
		(void)!write(2, line, (size_t)m < sizeof line ? (size_t)m : sizeof line - 1);
}

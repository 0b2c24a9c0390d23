/* A tiny TAP producer for the C unit tests (TAP version 12, on stdout).
 *
 *   ok(cond, fmt, ...)              one test; returns cond
 *   is_int(got, want, fmt, ...)     integers equal
 *   is_str(got, want, fmt, ...)     strings equal (NULL only equals NULL)
 *   like(got, needle, fmt, ...)     `needle` occurs in string `got`
 *   diag(fmt, ...)                  a "# ..." comment line
 *   done_testing()                  prints the plan "1..N"; returns the exit
 *                                   status (0 if every test passed)
 *
 * Header only; every function is static inline so a test program that uses
 * a subset still builds with -Wall -Wextra -Werror. */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

/* Print `s` as the rest of a TAP line: '#' would start a directive
 * ("# TODO", "# SKIP") and a newline would end the line, so escape both. */
static inline void tap_put_desc(const char *s)
{
	for (; *s; s++) {
		if (*s == '#')
			fputs("\\#", stdout);
		else if (*s == '\n')
			putchar(' ');
		else
			putchar(*s);
	}
}

__attribute__((format(printf, 1, 0)))
static inline void tap_vdiag(const char *fmt, va_list ap)
{
	char buf[4096];
	vsnprintf(buf, sizeof buf, fmt, ap);
	const char *line = buf;
	for (;;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		printf("# %.*s\n", len, line);
		if (!nl || !nl[1])
			break;
		line = nl + 1;
	}
	fflush(stdout);
}

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 0)))
static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	char desc[1024];
	vsnprintf(desc, sizeof desc, fmt, ap);
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	tap_put_desc(desc);
	putchar('\n');
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 2, 3)))
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

__attribute__((format(printf, 3, 4)))
static inline int is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		diag("     got: %lld\nexpected: %lld", got, want);
	return r;
}

__attribute__((format(printf, 3, 4)))
static inline int is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int same = got && want ? strcmp(got, want) == 0 : got == want;
	va_start(ap, fmt);
	int r = tap_vok(same, fmt, ap);
	va_end(ap);
	if (!r)
		diag("     got: %s%s%s\nexpected: %s%s%s",
		     got ? "\"" : "", got ? got : "NULL", got ? "\"" : "",
		     want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
	return r;
}

__attribute__((format(printf, 3, 4)))
static inline int like(const char *got, const char *needle, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok(got && strstr(got, needle), fmt, ap);
	va_end(ap);
	if (!r)
		diag("                  got: %s%s%s\nexpected to contain: \"%s\"",
		     got ? "\"" : "", got ? got : "NULL", got ? "\"" : "", needle);
	return r;
}

/* Print the plan and return the exit status for main(). */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		diag("failed %d of %d tests", tap_failed, tap_count);
	fflush(stdout);
	return tap_failed > 254 ? 254 : tap_failed;
}

#endif

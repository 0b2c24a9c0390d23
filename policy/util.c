#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
	static const char msg[] = "__sandbox: out of memory\n";
	fwrite(msg, 1, sizeof msg - 1, stderr);
	_Exit(125);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xgrow(void *p, size_t n, size_t size)
{
	if (n == 0)
		return xrealloc(p, 8 * size);
	if (n >= 8 && (n & (n - 1)) == 0)
		return xrealloc(p, 2 * n * size);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	char *s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void sv_push_own(struct strvec *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof *sv->v);
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

/* the copy in a local: gcc 12's -fanalyzer reports a false leak on the
 * one-line form (make lint) */
void sv_push(struct strvec *sv, const char *s)
{
	char *copy = xstrdup(s);
	sv_push_own(sv, copy);
}

bool sv_has(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void sv_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

bool path_within(const char *inner, const char *outer)
{
	size_t n = strlen(outer);
	if (strcmp(outer, "/") == 0)
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == 0 || inner[n] == '/');
}

bool env_entry_is(const char *entry, const char *name, size_t n)
{
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

int sb_fail(struct sb_err *e, const char *where, const char *path,
	    const char *fmt, ...)
{
	if (!e)
		return -1;
	snprintf(e->where, sizeof e->where, "%s", where ? where : "");
	snprintf(e->path, sizeof e->path, "%s", path ? path : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof e->why, fmt, ap);
	va_end(ap);
	return -1;
}

void sb_err_line(const struct sb_err *e, char *buf, size_t n)
{
	if (e->where[0] && e->path[0])
		snprintf(buf, n, "profile %s \"%s\": %s", e->where, e->path, e->why);
	else if (e->where[0])
		snprintf(buf, n, "profile %s: %s", e->where, e->why);
	else if (e->path[0])
		snprintf(buf, n, "\"%s\": %s", e->path, e->why);
	else
		snprintf(buf, n, "%s", e->why);
}

bool env_keeps(const struct strvec *pats, const char *entry)
{
	size_t n = strcspn(entry, "=");
	for (size_t i = 0; i < pats->n; i++) {
		const char *p = pats->v[i];
		size_t pl = strlen(p);
		if (pl && p[pl - 1] == '*') {
			if (n >= pl - 1 && strncmp(entry, p, pl - 1) == 0)
				return true;
		} else if (pl == n && strncmp(entry, p, n) == 0) {
			return true;
		}
	}
	return false;
}

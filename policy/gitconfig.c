/* git's configuration format (see gitconfig.h for the rules and where in
 * git they come from).  A cursor over the buffer, one function per piece
 * of the grammar; every function stops at the end of the buffer. */
#include "gitconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* git has no limits on names; these are far beyond any real file and keep
 * the state in fixed buffers (a longer name is a malformed line). */
#define NAME_MAX_LEN 1024

struct cur {
	const char *b;
	size_t len, pos, line;
	bool eof;
	char sect[NAME_MAX_LEN], key[NAME_MAX_LEN];
	size_t sub_at; /* offset of the subsection in sect, 0: none */
	char *val;     /* scratch of len+1 bytes */
	size_t vn;
};

/* git's get_next_char: CR LF reads as LF, the end of the buffer as a
 * final LF (with eof set). */
static int next(struct cur *c)
{
	if (c->pos >= c->len) {
		c->eof = true;
		return '\n';
	}
	int ch = (unsigned char)c->b[c->pos++];
	if (ch == '\r' && c->pos < c->len && c->b[c->pos] == '\n')
		ch = (unsigned char)c->b[c->pos++];
	if (ch == '\n')
		c->line++;
	return ch;
}

static bool is_space(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}
static bool is_alpha(int ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static bool is_keychar(int ch) { return is_alpha(ch) || (ch >= '0' && ch <= '9') || ch == '-'; }
static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

static bool put(char *s, size_t *n, int ch)
{
	if (*n + 1 >= NAME_MAX_LEN)
		return false;
	s[(*n)++] = (char)ch;
	s[*n] = 0;
	return true;
}

/* After `[name` and a blank: ` "subsection"]`.  0 or -1 (malformed). */
static int extended_header(struct cur *c, size_t *n)
{
	int ch;
	do
		ch = next(c);
	while (ch == ' ' || ch == '\t');
	if (ch != '"' || !put(c->sect, n, 0))
		return -1;
	c->sect[*n - 1] = 0;
	c->sub_at = *n;
	for (;;) {
		ch = next(c);
		if (ch == '\n')
			return -1;
		if (ch == '"')
			break;
		if (ch == '\\' && (ch = next(c)) == '\n')
			return -1;
		if (!put(c->sect, n, ch))
			return -1;
	}
	return next(c) == ']' ? 0 : -1;
}

/* After '[': the section header.  sect holds "section\0subsection" (the
 * legacy dotted form split at its first '.').  0 or -1. */
static int header(struct cur *c)
{
	size_t n = 0;
	c->sect[0] = 0;
	c->sub_at = 0;
	for (;;) {
		int ch = next(c);
		if (c->eof)
			return -1;
		if (is_space(ch))
			return extended_header(c, &n);
		if (ch == ']')
			break;
		if ((!is_keychar(ch) && ch != '.') || !put(c->sect, &n, lower(ch)))
			return -1;
	}
	char *dot = strchr(c->sect, '.');
	if (dot) {
		*dot = 0;
		c->sub_at = (size_t)(dot - c->sect) + 1;
	}
	return 0;
}

static void vput(struct cur *c, int ch)
{
	c->val[c->vn++] = (char)ch; /* never more than len bytes: each comes from one input byte */
}

/* After "key [blanks] =": git's parse_value.  0 or -1. */
static int value(struct cur *c)
{
	bool quote = false, comment = false;
	size_t space = 0;
	c->vn = 0;
	for (;;) {
		int ch = next(c);
		if (ch == '\n') {
			if (quote)
				return -1;
			c->val[c->vn] = 0;
			return 0;
		}
		if (comment)
			continue;
		if (is_space(ch) && !quote) {
			space += c->vn > 0;
			continue;
		}
		if (!quote && (ch == ';' || ch == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			vput(c, ' ');
		if (ch == '\\') {
			ch = next(c);
			if (ch == '\n')
				continue; /* continuation (at the end: the value ends) */
			switch (ch) {
			case 't': ch = '\t'; break;
			case 'b': ch = '\b'; break;
			case 'n': ch = '\n'; break;
			case '\\': case '"': break;
			default: return -1;
			}
			vput(c, ch);
			continue;
		}
		if (ch == '"') {
			quote = !quote;
			continue;
		}
		vput(c, ch);
	}
}

/* From the first letter of a key to the end of its line: report it.
 * 0, 1 (the callback stopped), or -1 (malformed). */
static int entry(struct cur *c, int ch, gitcfg_cb cb, void *arg)
{
	size_t n = 0, line = c->line;
	c->key[0] = 0;
	put(c->key, &n, lower(ch));
	for (;;) {
		ch = next(c);
		if (c->eof || !is_keychar(ch))
			break;
		if (!put(c->key, &n, lower(ch)))
			return -1;
	}
	while (ch == ' ' || ch == '\t')
		ch = next(c);
	bool has_value = ch != '\n';
	if (has_value && (ch != '=' || value(c)))
		return -1;
	if (!c->sect[0])
		return -1; /* a key before any section: git says "key does not contain a section" */
	struct gitcfg_item it = {c->sect, c->sub_at ? c->sect + c->sub_at : NULL, c->key,
				 has_value ? c->val : NULL, line};
	return cb(arg, &it) ? 1 : 0;
}

size_t gitcfg_parse(const char *buf, size_t len, gitcfg_cb cb, void *arg)
{
	struct cur c = {.b = buf, .len = len, .line = 1};
	c.val = xmalloc(len + 1);
	bool comment = false;
	size_t bad = 0;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c.pos = 3;
	for (;;) {
		size_t line = c.line;
		int ch = next(&c);
		if (ch == '\n') {
			if (c.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || is_space(ch))
			continue;
		if (ch == '#' || ch == ';') {
			comment = true;
			continue;
		}
		int r = ch == '[' ? header(&c) : is_alpha(ch) ? entry(&c, ch, cb, arg) : -1;
		if (r < 0) {
			bad = line;
			break;
		}
		if (r > 0)
			break;
	}
	free(c.val);
	return bad;
}

int gitcfg_path(const char *value, const char *home, const char *base,
		char *out, size_t n)
{
	const char *v = value;
	int w;
	if (strncmp(v, ":(optional)", 11) == 0)
		v += 11;
	if (!v[0] || strncmp(v, "%(prefix)/", 10) == 0)
		return -1;
	if (v[0] == '~') {
		if (v[1] && v[1] != '/')
			return -1; /* ~user: another account's home */
		if (!home || !home[0])
			return -1;
		w = snprintf(out, n, "%s%s", home, v + 1);
	} else if (v[0] == '/' || !base) {
		w = snprintf(out, n, "%s", v);
	} else {
		w = snprintf(out, n, "%s%s%s", base, strcmp(base, "/") ? "/" : "", v);
	}
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
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

/* gcc 12's -fanalyzer loses the chunk once it is stored in a->chunk
 * when this is reached from si_put() (strindex's arena), and reports it
 * leaked at the return (make lint); str_arena_free() frees every chunk,
 * and the ASan runs of make check-asan would report a real leak. */
#if !defined(__clang__) /* (clang's fuzz builds know no -Wanalyzer-*) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
char *str_arena_dup(struct str_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	if (!a->n || a->used + n > a->cap) {
		/* 4 KiB first (a profile of a few paths), doubling to 64 KiB */
		size_t cap = !a->n ? 4096 : a->cap < 65536 ? a->cap * 2 : 65536;
		if (cap < n)
			cap = n;
		char *c = xmalloc(cap);
		a->chunk = xrealloc(a->chunk, (a->n + 1) * sizeof *a->chunk); /* (a few chunks) */
		a->chunk[a->n++] = c;
		a->used = 0;
		a->cap = cap;
	}
	char *d = a->chunk[a->n - 1] + a->used;
	memcpy(d, s, n);
	a->used += n;
	return d;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

void str_arena_free(struct str_arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->chunk[i]);
	free(a->chunk);
	memset(a, 0, sizeof *a);
}

int16_t rc16(int rc)
{
	return rc < -4095 ? -EIO : (int16_t)rc;
}

char *loc_entry(char *buf, size_t n, const char *key, size_t i)
{
	char digits[24];
	size_t d = sizeof digits;
	digits[--d] = 0;
	do
		digits[--d] = (char)('0' + i % 10);
	while ((i /= 10) && d);
	size_t o = 0;
	const char *parts[4] = {".", key, "[", digits + d};
	for (size_t k = 0; k < 4; k++)
		for (const char *c = parts[k]; *c && o + 1 < n; c++)
			buf[o++] = *c;
	if (o + 1 < n)
		buf[o++] = ']';
	buf[o] = 0;
	return buf;
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

/* A string and its place, ordered by content then place. */
struct str_slot {
	const char *s;
	size_t i;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct str_slot *x = a, *y = b;
	int c = strcmp(x->s, y->s);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

bool *first_of_each(const char *const *s, size_t n)
{
	bool *first = xcalloc(n + 1, sizeof *first);
	struct str_slot *sl = xcalloc(n + 1, sizeof *sl);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i])
			sl[m++] = (struct str_slot){s[i], i};
	qsort(sl, m, sizeof *sl, slot_cmp);
	for (size_t k = 0; k < m; k++)
		first[sl[k].i] = k == 0 || strcmp(sl[k].s, sl[k - 1].s) != 0;
	free(sl);
	return first;
}

void sv_dedupe(struct strvec *sv)
{
	if (sv->n < 2)
		return;
	bool *first = first_of_each((const char *const *)sv->v, sv->n);
	size_t out = 0;
	for (size_t i = 0; i < sv->n; i++) {
		if (!first[i])
			free(sv->v[i]);
		else
			sv->v[out++] = sv->v[i];
	}
	sv->n = out;
	sv->v[out] = NULL;
	free(first);
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

void sb_near_init(struct sb_near *n, const char *word)
{
	memset(n, 0, sizeof *n);
	n->word = word;
	n->best = UINT_MAX;
}

/* Optimal string alignment distance, case-insensitive; both strings at
 * most SB_NEAR_MAX bytes.  Three rows of the usual table: d2 two rows up
 * (for a transposition), d1 the previous row, d0 this one. */
static unsigned osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned r[3][SB_NEAR_MAX + 1];
	unsigned *d2 = r[0], *d1 = r[1], *d0 = r[2];
	for (size_t j = 0; j <= lb; j++)
		d1[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		d0[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned v = d1[j - 1] + (ca != cb);
			if (d1[j] + 1 < v)
				v = d1[j] + 1;
			if (d0[j - 1] + 1 < v)
				v = d0[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    cb == tolower((unsigned char)a[i - 2]) && d2[j - 2] + 1 < v)
				v = d2[j - 2] + 1;
			d0[j] = v;
		}
		unsigned *t = d2;
		d2 = d1;
		d1 = d0;
		d0 = t;
	}
	return d1[lb];
}

void sb_near_add(struct sb_near *n, const char *cand)
{
	size_t used = strlen(n->all);
	snprintf(n->all + used, sizeof n->all - used, "%s%s", used ? ", " : "", cand);
	size_t lw = strlen(n->word), lc = strlen(cand);
	if (lw > SB_NEAR_MAX || lc > SB_NEAR_MAX)
		return;
	unsigned limit = (unsigned)(lc / 3);
	limit = limit < 1 ? 1 : limit > 2 ? 2 : limit;
	unsigned d = osa_distance(n->word, lw, cand, lc);
	if (d > limit || d > n->best)
		return;
	if (d < n->best) {
		n->best = d;
		n->nbest = 0;
	}
	if (n->nbest < 2)
		n->m[n->nbest] = cand;
	n->nbest++;
}

bool sb_near_format(const struct sb_near *n, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (n->nbest == 0 || n->nbest > 2)
		return false;
	if (n->nbest == 1)
		snprintf(buf, len, "\"%s\"", n->m[0]);
	else
		snprintf(buf, len, "\"%s\" or \"%s\"", n->m[0], n->m[1]);
	return true;
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

int path_lexical(const char *in, char *out, size_t n, bool up)
{
	size_t o = 0;
	if (n < 2)
		return -ENAMETOOLONG;
	for (const char *p = in; *p;) {
		while (*p == '/')
			p++;
		size_t k = strcspn(p, "/");
		if (k == 0 || (k == 1 && p[0] == '.')) {
			p += k;
			continue;
		}
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			if (!up)
				return -EINVAL;
			while (o > 0 && out[--o] != '/')
				;
			p += k;
			continue;
		}
		if (o + k + 2 > n)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, p, k);
		o += k;
		p += k;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = 0;
	return 0;
}

static uint32_t si_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The index slot of `s` (hash `h`): its number + 1, or 0 where it would
 * go.  Needs icap > 0. */
static uint32_t *si_slot(const struct strindex *x, const char *s, uint32_t h)
{
	size_t mask = x->icap - 1;
	for (size_t j = h & mask;; j = (j + 1) & mask) {
		uint32_t *p = &x->idx[j];
		if (!*p || (x->hash[*p - 1] == h && strcmp(x->str[*p - 1], s) == 0))
			return p;
	}
}

long si_find(const struct strindex *x, const char *s)
{
	if (!x->icap)
		return -1;
	uint32_t p = *si_slot(x, s, si_hash(s));
	return p ? (long)p - 1 : -1;
}

const char *si_intern(struct strindex *x, const char *s)
{
	return str_arena_dup(&x->arena, s);
}

static size_t si_put(struct strindex *x, const char *s, bool lend, bool *added)
{
	*added = false;
	if ((x->n + 1) * 4 > x->icap * 3) {
		size_t ocap = x->icap;
		uint32_t *old = x->idx;
		x->icap = ocap ? ocap * 2 : 256;
		x->idx = xcalloc(x->icap, sizeof *x->idx);
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j])
				continue;
			size_t k = x->hash[old[j] - 1] & (x->icap - 1);
			while (x->idx[k])
				k = (k + 1) & (x->icap - 1);
			x->idx[k] = old[j];
		}
		free(old);
	}
	uint32_t h = si_hash(s);
	uint32_t *p = si_slot(x, s, h);
	if (*p)
		return *p - 1;
	const char *k = lend ? s : str_arena_dup(&x->arena, s);
	x->str = xgrow(x->str, x->n, sizeof *x->str);
	x->hash = xgrow(x->hash, x->n, sizeof *x->hash);
	x->str[x->n] = k;
	x->hash[x->n] = h;
	*p = (uint32_t)++x->n;
	*added = true;
	return x->n - 1;
}

size_t si_add(struct strindex *x, const char *s, bool *added)
{
	return si_put(x, s, false, added);
}

size_t si_add_lent(struct strindex *x, const char *s, bool *added)
{
	return si_put(x, s, true, added);
}

void si_free(struct strindex *x)
{
	str_arena_free(&x->arena);
	free(x->str);
	free(x->hash);
	free(x->idx);
	memset(x, 0, sizeof *x);
}

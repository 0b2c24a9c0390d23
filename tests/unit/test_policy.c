/* Unit tests of policy/: the profile parser, fit(), carve_grant(),
 * filter_build() and plan_json(), over a fake in-memory filesystem and
 * hand-made hosts.  No kernel feature and no real file is used.
 *
 * JSON in this file is written with single quotes ('x') for readability;
 * parse() turns them into double quotes before handing the text over. */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tap.h"

#include "../../policy/carve.h"
#include "../../policy/fit.h"
#include "../../policy/fsview.h"
#include "../../policy/gitconfig.h"
#include "../../policy/landlock_abi.h"
#include "../../policy/names.h"
#include "../../policy/plan.h"
#include "../../policy/profile.h"
#include "../../policy/util.h"

#define CAP_NET_BIND_SERVICE_NR 10
#define IPPROTO_MPTCP_NR 262
#define MSG_FASTOPEN_FLAG 0x20000000u
#define CLONE_NEWUSER_FLAG 0x10000000u

/* ------------------------------------------------------------------ */
/* A fake filesystem: a table of canonical paths.                     */

struct fent {
	const char *path;
	enum fs_kind kind;
	const char *target; /* FS_SYMLINK: absolute target */
	int resolve_err;    /* negative errno resolve() returns for it */
	int list_err;       /* negative errno list() returns for it */
};

struct fakefs {
	const struct fent *e; /* ends with {NULL} */
	struct strvec listed; /* directories list() was asked for, in order */
	int kept;             /* kept(): FAKE_FD + the entry resolve() last found without a symlink, -1 */
};

/* The fake "descriptor" kept() gives for entry i of the table: like the
 * real view, one for a path that met no symlink, none otherwise. */
#define FAKE_FD 1000

static const struct fent *fake_find(const struct fakefs *f, const char *path)
{
	for (size_t i = 0; f->e[i].path; i++)
		if (strcmp(f->e[i].path, path) == 0)
			return &f->e[i];
	return NULL;
}

static int fake_resolve(void *ctx, const char *path, char *out, size_t outsz,
			enum fs_kind *kind)
{
	struct fakefs *f = ctx;
	f->kept = -1;
	for (int hops = 0; hops < 8; hops++) {
		const struct fent *e = fake_find(f, path);
		if (!e)
			return -ENOENT;
		if (e->resolve_err)
			return e->resolve_err;
		if (e->kind == FS_SYMLINK) {
			path = e->target;
			continue;
		}
		if (strlen(e->path) >= outsz)
			return -ENAMETOOLONG;
		strcpy(out, e->path);
		*kind = e->kind;
		if (hops == 0)
			f->kept = FAKE_FD + (int)(e - f->e);
		return 0;
	}
	return -ELOOP;
}

static int fake_kept(void *ctx)
{
	const struct fakefs *f = ctx;
	return f->kept;
}

/* True if `path` is a direct child of `dir`. */
static int fake_lkind(void *ctx, const char *path, enum fs_kind *kind)
{
	const struct fent *e = fake_find(ctx, path);
	*kind = e ? e->kind : FS_MISSING;
	return 0;
}

static bool fake_child(const char *dir, const char *path)
{
	if (strcmp(path, "/") == 0)
		return false;
	const char *slash = strrchr(path, '/');
	size_t plen = slash == path ? 1 : (size_t)(slash - path);
	return strlen(dir) == plen && strncmp(path, dir, plen) == 0;
}

static int fake_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	struct fakefs *f = ctx;
	const struct fent *d = fake_find(f, dir);
	if (!d)
		return -ENOENT;
	if (d->kind != FS_DIR)
		return -ENOTDIR;
	if (d->list_err)
		return d->list_err;
	sv_push(&f->listed, dir);
	for (size_t i = 0; f->e[i].path; i++)
		if (fake_child(dir, f->e[i].path) &&
		    cb(arg, strrchr(f->e[i].path, '/') + 1, f->e[i].kind))
			break;
	return 0;
}

/* The tree of the brief's /dev exclusion case: usr, dev, etc, home, lib. */
static const struct fent small_tree[] = {
	{"/", FS_DIR, NULL, 0, 0},
	{"/usr", FS_DIR, NULL, 0, 0},
	{"/usr/bin", FS_DIR, NULL, 0, 0},
	{"/usr/lib", FS_DIR, NULL, 0, 0},
	{"/dev", FS_DIR, NULL, 0, 0},
	{"/dev/null", FS_FILE, NULL, 0, 0},
	{"/etc", FS_DIR, NULL, 0, 0},
	{"/home", FS_DIR, NULL, 0, 0},
	{"/lib", FS_SYMLINK, "/usr/lib", 0, 0},
	{NULL, FS_MISSING, NULL, 0, 0},
};

/* A fuller host tree.  Device nodes are FS_FILE, as shim/fsview.c
 * reports them. */
static const struct fent big_tree[] = {
	{"/", FS_DIR, NULL, 0, 0},
	{"/usr", FS_DIR, NULL, 0, 0},
	{"/usr/bin", FS_DIR, NULL, 0, 0},
	{"/usr/lib", FS_DIR, NULL, 0, 0},
	{"/lib", FS_SYMLINK, "/usr/lib", 0, 0},
	{"/etc", FS_DIR, NULL, 0, 0},
	{"/etc/passwd", FS_FILE, NULL, 0, 0},
	{"/home", FS_DIR, NULL, 0, 0},
	{"/home/u", FS_DIR, NULL, 0, 0},
	{"/home/u/.ssh", FS_DIR, NULL, 0, 0},
	{"/home/u/.ssh/id_ed25519", FS_FILE, NULL, 0, 0},
	{"/home/u/.ssh2", FS_DIR, NULL, 0, 0},
	{"/home/u/.bashrc", FS_FILE, NULL, 0, 0},
	{"/home/u/proj", FS_DIR, NULL, 0, 0},
	{"/home/v", FS_DIR, NULL, 0, 0},
	{"/dev", FS_DIR, NULL, 0, 0},
	{"/dev/null", FS_FILE, NULL, 0, 0},
	{"/dev/zero", FS_FILE, NULL, 0, 0},
	{"/dev/full", FS_FILE, NULL, 0, 0},
	{"/dev/random", FS_FILE, NULL, 0, 0},
	{"/dev/urandom", FS_FILE, NULL, 0, 0},
	{"/dev/tty", FS_FILE, NULL, 0, 0},
	{"/dev/ptmx", FS_FILE, NULL, 0, 0},
	{"/dev/pts", FS_DIR, NULL, 0, 0},
	{"/dev/shm", FS_DIR, NULL, 0, 0},
	{"/dev/sda", FS_FILE, NULL, 0, 0},
	{"/devel", FS_DIR, NULL, 0, 0},
	{"/devlink", FS_SYMLINK, "/dev/shm", 0, 0},
	{"/tmp", FS_DIR, NULL, 0, 0},
	{"/tmp/file", FS_FILE, NULL, 0, 0},
	{"/w", FS_DIR, NULL, 0, 0},
	{"/w/file", FS_FILE, NULL, 0, 0},
	{"/secret", FS_DIR, NULL, -EACCES, 0},
	{"/cache", FS_DIR, NULL, 0, 0},
	{NULL, FS_MISSING, NULL, 0, 0},
};

/* A tree where /home/u cannot be listed. */
static const struct fent unlistable_tree[] = {
	{"/", FS_DIR, NULL, 0, 0},
	{"/home", FS_DIR, NULL, 0, 0},
	{"/home/u", FS_DIR, NULL, 0, -EACCES},
	{"/home/u/.ssh", FS_DIR, NULL, 0, 0},
	{NULL, FS_MISSING, NULL, 0, 0},
};

static struct fakefs small_fs = {small_tree, {0}, -1};
static struct fakefs big_fs = {big_tree, {0}, -1};
static struct fakefs unlistable_fs = {unlistable_tree, {0}, -1};

/* Files read() returns, for the test running (NULL: none; a path in the
 * tree but not here reads as empty; "/w/fifo" as a FIFO would). */
struct ffile {
	const char *path, *content;
};
static const struct ffile *fake_files;

static int fake_read(void *ctx, const char *path, char *buf, size_t n, size_t *len, bool *trunc)
{
	const struct fent *e = fake_find(ctx, path);
	*len = 0;
	*trunc = false;
	if (!e)
		return -ENOENT;
	if (e->kind == FS_DIR)
		return -EISDIR;
	if (strcmp(path, "/w/fifo") == 0)
		return -EINVAL;
	const char *c = "";
	for (size_t i = 0; fake_files && fake_files[i].path; i++)
		if (strcmp(fake_files[i].path, path) == 0)
			c = fake_files[i].content;
	*len = strlen(c) < n - 1 ? strlen(c) : n - 1;
	*trunc = strlen(c) > *len;
	memcpy(buf, c, *len);
	buf[*len] = 0;
	return 0;
}

static struct fs_view view_of(struct fakefs *f)
{
	sv_free(&f->listed);
	f->kept = -1;
	return (struct fs_view){fake_resolve, fake_lkind, fake_list, fake_read, f, fake_kept};
}

/* ------------------------------------------------------------------ */
/* Hosts, parsing and fitting.                                        */

static struct host host_abi(int abi)
{
	struct host h;
	memset(&h, 0, sizeof h);
	h.ll_abi = abi;
	h.ll_errno = abi ? 0 : ENOSYS;
	h.seccomp = true;
	h.persona = 0;
	h.mounts = true; /* a mount namespace can be had (as root, or userns) */
	strcpy(h.release, "6.18.0-test");
	return h;
}

/* Parse single-quoted JSON. */
static int parse(const char *sq, struct profile *p, struct sb_err *e)
{
	char buf[4096];
	size_t n = strlen(sq);
	if (n >= sizeof buf)
		abort();
	for (size_t i = 0; i <= n; i++)
		buf[i] = sq[i] == '\'' ? '"' : sq[i];
	memset(e, 0, sizeof *e);
	return profile_parse(buf, n, p, e);
}

struct run {
	struct profile p;
	struct plan pl;
	struct sb_err err;
	int rc; /* fit()'s, or -2 if the profile did not parse */
};

static int run_fit(struct run *r, const char *sq, const struct host *h,
		   struct fakefs *f)
{
	memset(r, 0, sizeof *r);
	if (parse(sq, &r->p, &r->err)) {
		ok(0, "profile parses: %s", sq);
		diag("%s: %s", r->err.where, r->err.why);
		return r->rc = -2;
	}
	struct fs_view v = view_of(f);
	memset(&r->err, 0, sizeof r->err);
	r->rc = fit(&r->p, h, &v, &r->pl, &r->err);
	return r->rc;
}

static void run_free(struct run *r)
{
	plan_free(&r->pl);
	profile_free(&r->p);
}

/* fit() succeeded; says why not otherwise. */
static int fit_ok(const struct run *r, const char *name)
{
	int good = ok(r->rc == 0, "%s: fit succeeds", name);
	if (!good && r->rc == -1)
		diag("refused: where \"%s\" path \"%s\": %s", r->err.where,
		     r->err.path, r->err.why);
	return good;
}

/* fit() refused at `where` with `why` in the reason (one test): an error
 * in the profile (rc -1, err.where), or a part the host cannot enforce
 * (rc 1: every refused part listed in err.why as "WHERE: PART REASON",
 * and in the plan's refused list). */
static int fit_refused(const struct run *r, const char *name, const char *where,
		       const char *why)
{
	bool listed = false;
	for (size_t i = 0; r->rc == 1 && i < r->pl.nrefused; i++)
		listed |= strcmp(r->pl.refused[i].where, where) == 0;
	int good = (r->rc == -1 && strcmp(r->err.where, where) == 0 && strstr(r->err.why, why)) ||
		   (r->rc == 1 && listed && strstr(r->err.why, why) && strstr(r->err.why, where));
	ok(good, "%s: refused at %s", name, where[0] ? where : "(no location)");
	if (!good)
		diag("rc %d, where \"%s\", why \"%s\"\nexpected where \"%s\", why containing \"%s\"",
		     r->rc, r->err.where, r->err.why, where, why);
	return good;
}

/* ------------------------------------------------------------------ */
/* Plan queries.                                                      */

/* The one left-out notice line of the plan contains `text`. */
static bool left_line_has(const struct plan *pl, const char *text)
{
	char line[2048];
	plan_left_line(pl, line, sizeof line);
	if (!strstr(line, text))
		diag("left-out line: %s", line);
	return strstr(line, text) != NULL;
}

static const struct mount_rule *mount_at(const struct plan *pl, const char *path);
static bool mount_is(const struct plan *pl, const char *path, enum mount_op op);

/* The rule on `path` from `where` (NULL: any). */
static const struct ll_path_rule *find_rule(const struct plan *pl,
					    const char *path, const char *where)
{
	for (size_t i = 0; i < pl->nrules; i++)
		if (strcmp(pl->rules[i].path, path) == 0 &&
		    (!where || plan_rule_from(pl, &pl->rules[i], where)))
			return &pl->rules[i];
	return NULL;
}

/* Access of that rule, or 0 when there is none. */
static long long rule_access(const struct plan *pl, const char *path,
			     const char *where)
{
	const struct ll_path_rule *r = find_rule(pl, path, where);
	return r ? (long long)r->access : 0;
}

/* Number of rules on `prefix` or anything below it. */
static size_t rules_under(const struct plan *pl, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);
	for (size_t i = 0; i < pl->nrules; i++)
		if (strncmp(pl->rules[i].path, prefix, len) == 0 &&
		    (pl->rules[i].path[len] == 0 || pl->rules[i].path[len] == '/'))
			n++;
	return n;
}

static bool sv_contains(const struct strvec *sv, const char *needle)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strstr(sv->v[i], needle))
			return true;
	return false;
}

/* The seccomp rule for `name` with exactly these comparisons. */
static const struct sc_rule *sc_find(const struct plan *pl, const char *name,
				     unsigned ncmp, const struct sc_cmp *c)
{
	for (size_t i = 0; i < pl->nsc; i++) {
		const struct sc_rule *r = &pl->sc[i];
		if (strcmp(r->syscall, name) != 0 || r->ncmp != ncmp)
			continue;
		bool same = true;
		for (unsigned k = 0; k < ncmp; k++)
			if (r->cmp[k].arg != c[k].arg || r->cmp[k].op != c[k].op ||
			    r->cmp[k].datum != c[k].datum ||
			    (c[k].op == SC_MASKED_EQ && r->cmp[k].mask != c[k].mask))
				same = false;
		if (same)
			return r;
	}
	return NULL;
}

static size_t sc_count(const struct plan *pl, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < pl->nsc; i++)
		n += strcmp(pl->sc[i].syscall, name) == 0;
	return n;
}

/* Whether one of the plan's remarks starts with `prefix`. */
static bool sv_has_prefix(const struct strvec *v, const char *prefix)
{
	for (size_t i = 0; i < v->n; i++)
		if (strncmp(v->v[i], prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static int sc_err(const struct sc_rule *r)
{
	return r ? r->err : -1;
}

#define CMP1(a, op, d) ((const struct sc_cmp[]){{a, op, 0, d}})
#define CMP2(a, opa, da, b, opb, db) \
	((const struct sc_cmp[]){{a, opa, 0, da}, {b, opb, 0, db}})
#define MASK1(a, m, d) ((const struct sc_cmp[]){{a, SC_MASKED_EQ, m, d}})

/* ------------------------------------------------------------------ */
/* 1. Validation errors of profile_parse, with their exact location.  */

static void test_parse_errors(void)
{
	static const struct {
		const char *json, *where, *why, *path;
	} bad[] = {
		{"{'foo':1}", ".foo", "unknown key", NULL},
		{"{'writable':['/a'],\n 'writable':['/b']}", "",
		 "duplicate object key near '\"writable\"'", NULL},
		{"{'writable':'/w'}", ".writable", "must be an array, not a string", NULL},
		{"{'writable':[5]}", ".writable[0]", "must be a string, not an integer", NULL},
		{"{'die_with_parent':'yes'}", ".die_with_parent", "must be a boolean, not a string", NULL},
		{"{'new_session':null}", ".new_session", "must be a boolean, not null", NULL},
		{"{'no_survivors':'pid'}", ".no_survivors", "must be a boolean, not a string", NULL},
		{"{'env':{'set':{'X':1}}}", ".env.set.X", "must be a string, not an integer", NULL},
		{"{'readable':['/usr','usr/lib']}", ".readable[1]", "must be an absolute path", "usr/lib"},
		{"{'readable':['']}", ".readable[0]", "must not be empty", NULL},
		{"{'writable':['/w\\u0000/x']}", ".writable[0]", "must not contain a NUL byte", NULL},
		{"{'env':{'set':{'X':'a\\u0000b'}}}", ".env.set.X", "must not contain a NUL byte", NULL},
		{"{'tcp_connect':[0]}", ".tcp_connect[0]", "port 0 is only meaningful for bind", NULL},
		{"{'tcp_connect':[443,65536]}", ".tcp_connect[1]", "65536 is out of range 0-65535", NULL},
		{"{'tcp_bind':[65536]}", ".tcp_bind[0]", "65536 is out of range 0-65535", NULL},
		{"{'udp_connect':[-1]}", ".udp_connect[0]", "-1 is out of range", NULL},
		{"{'tcp_connect':['443']}", ".tcp_connect[0]", "must be an integer, not a string", NULL},
		{"{'seccomp':{'deny':['nosuchcall']}}", ".seccomp.deny[0]", "unknown syscall \"nosuchcall\"", NULL},
		{"{'seccomp':{'allow':['ptrace','@nosuch']}}", ".seccomp.allow[1]", "unknown syscall group \"@nosuch\"", NULL},
		{"{'seccomp':{'block':[]}}", ".seccomp.block", "unknown key", NULL},
		{"{'capabilities':['CAP_FLY']}", ".capabilities[0]", "\"CAP_FLY\" is not a capability name", NULL},
		{"{'rlimits':{'bogus':1}}", ".rlimits.bogus", "unknown limit", NULL},
		{"{'rlimits':{'nofile':[10,5]}}", ".rlimits.nofile", "soft limit 10 is above hard limit 5", NULL},
		{"{'rlimits':{'nofile':[1,2,3]}}", ".rlimits.nofile", "must be a number or [soft, hard]", NULL},
		{"{'version':2}", ".version", "version 2 is not supported", NULL},
		{"{'env':{'bogus':true}}", ".env.bogus", "unknown key", NULL},
		{"{'env':{'keep':['A=B']}}", ".env.keep[0]", "contains '='", NULL},
		{"{'env':{'keep':['A*B']}}", ".env.keep[0]", "'*' is only allowed at the end", NULL},
		{"{'unenforced':{'bogus':true}}", ".unenforced.bogus", "unknown part", NULL},
		{"{'unenforced':{'carve':'yes'}}", ".unenforced.carve", "must be a boolean", NULL},
		{"[]", ".", "must be an object, not an array", NULL},
		{"{'writable':[", "", "profile is not valid JSON: line 1 column", NULL},
		{"", "", "profile is not valid JSON", NULL},
		{"{'keep_fds':[3,2]}", ".keep_fds[1]", "descriptors 0-2 are always kept", NULL},
		{"{'network':'wifi'}", ".network", "\"wifi\" is not one of \"off\", \"loopback\", \"on\"", NULL},
		{"{'tmp':'/'}", ".tmp", "must not be the root directory", NULL},
		{"{'protect':['/etc']}", ".protect[0]", "must be a path relative to the writable tree", NULL},
		{"{'protect_extra':['a/../b']}", ".protect_extra[0]", "without \"..\"", NULL},
		{"{'user':{'uid':1000}}", ".user", "needs name, or both uid and gid", NULL},
		{"{'cwd':'x'}", ".cwd", "must be an absolute path", "x"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct profile p;
		struct sb_err e;
		int rc = parse(bad[i].json, &p, &e);
		int good = rc == -1 && strcmp(e.where, bad[i].where) == 0 &&
			   strstr(e.why, bad[i].why) &&
			   (!bad[i].path || strcmp(e.path, bad[i].path) == 0);
		ok(good, "refused %s at %s", bad[i].json,
		   bad[i].where[0] ? bad[i].where : "(no location)");
		if (!good)
			diag("rc %d, where \"%s\", path \"%s\", why \"%s\"", rc,
			     e.where, e.path, e.why);
		profile_free(&p);
	}

	/* The duplicate key message carries jansson's line and column. */
	struct profile p;
	struct sb_err e;
	parse("{'writable':['/a'],\n 'writable':['/b']}", &p, &e);
	like(e.why, "line 2 column", "duplicate key: jansson's line and column are kept");
	profile_free(&p);

	/* A refused profile is left empty (nothing to free, nothing stale). */
	parse("{'readable':['/usr'],'writable':['/w'],'foo':1}", &p, &e);
	ok(p.readable.v.n == 0 && p.writable.v.n == 0 && p.readable.key == NULL,
	   "a refused profile is left empty");
	profile_free(&p);
}

/* ------------------------------------------------------------------ */
/* 1 (cont.). Newcomer errors: "did you mean" for a mistyped key at    */
/* every object level with fixed keys, and seccomp.deny of execve.    */

/* The parse's memory: jansson's document lives in an arena for the
 * length of one parse, then jansson allocates with malloc again — also
 * after a refused or broken profile — and the profile's strings are its
 * own; profile_parse_text() frees the text it is given. */
static void test_parse_memory(void)
{
	json_malloc_t m0, m1;
	json_free_t f0, f1;
#if JANSSON_VERSION_HEX >= 0x020f00
	json_realloc_t r0, r1;
	json_get_alloc_funcs2(&m0, &r0, &f0);
#else
	json_get_alloc_funcs(&m0, &f0);
#endif
	static const char *const bad[] = {"{\"readable\":[\"/a\",", "{\"readable\":[\"rel\"]}", "[1,2]", "{\"nope\":1}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct profile p;
		struct sb_err e;
		memset(&e, 0, sizeof e);
		ok(profile_parse(bad[i], strlen(bad[i]), &p, &e) == -1, "refused: %s", bad[i]);
#if JANSSON_VERSION_HEX >= 0x020f00
		json_get_alloc_funcs2(&m1, &r1, &f1);
		ok(m1 == m0 && f1 == f0 && r1 == r0 && r0, "... and jansson's allocator is given back, realloc too (jansson %s)", JANSSON_VERSION);
#else
		json_get_alloc_funcs(&m1, &f1);
		ok(m1 == m0 && f1 == f0, "... and jansson's allocator is given back (jansson %s)", JANSSON_VERSION);
#endif
	}
	json_t *j = json_pack("{s:[s,s]}", "k", "a", "b");
	char *d = j ? json_dumps(j, JSON_COMPACT) : NULL;
	ok(d && strcmp(d, "{\"k\":[\"a\",\"b\"]}") == 0, "a document made after them is whole (%s)", d ? d : "NULL");
	free(d);
	json_decref(j);

	/* 3,000 paths of 200 bytes, through profile_parse_text: the text is
	 * gone, every string intact (check-asan: no leak, no overrun) */
	enum { N = 3000, L = 200 };
	size_t cap = 64 + (size_t)N * (L + 4);
	char *text = malloc(cap);
	size_t o = (size_t)snprintf(text, cap, "{\"readable\":[");
	for (int i = 0; i < N; i++)
		o += (size_t)snprintf(text + o, cap - o, "%s\"/%0*d\"", i ? "," : "", L - 1, i);
	o += (size_t)snprintf(text + o, cap - o, "]}");
	struct profile p;
	struct sb_err e;
	memset(&e, 0, sizeof e);
	int rc = profile_parse_text(text, o, &p, &e); /* (frees text) */
	bool good = rc == 0 && p.readable.v.n == N && p.executable.v.n == N;
	for (int i = 0; good && i < N; i++) {
		char want[L + 1];
		snprintf(want, sizeof want, "/%0*d", L - 1, i);
		good = strcmp(p.readable.v.v[i], want) == 0 && p.executable.v.v[i] == p.readable.v.v[i];
	}
	ok(good, "3,000 long paths parse intact; the default executable list lends readable's strings");
	if (rc == 0)
		profile_free(&p);
}

static void test_parse_suggestions(void)
{
	static const struct {
		const char *json, *where, *why;
	} bad[] = {
		{"{'writeable':['/x']}", ".writeable", "unknown key; did you mean \"writable\"?"},
		{"{'Writable':['/x']}", ".Writable", "unknown key; did you mean \"writable\"?"},
		{"{'tpm':'/x'}", ".tpm", "unknown key; did you mean \"tmp\"?"},
		{"{'read-only':[]}", ".read-only", "unknown key; did you mean \"read_only\"?"},
		{"{'die_with_parnet':true}", ".die_with_parnet", "unknown key; did you mean \"die_with_parent\"?"},
		{"{'tdp_bind':[]}", ".tdp_bind", "unknown key; did you mean \"tcp_bind\" or \"udp_bind\"?"},
		/* nothing close: today's message, unchanged */
		{"{'foo':1}", ".foo", "unknown key"},
		{"{'$schema':'x'}", ".$schema", "unknown key"},
		{"{'readabl_and_writable':[]}", ".readabl_and_writable", "unknown key"},
		{"{'env':{'kep':[]}}", ".env.kep", "unknown key; did you mean \"keep\"?"},
		{"{'env':{'unsett':[]}}", ".env.unsett", "unknown key; did you mean \"unset\"?"},
		{"{'env':{'bogus':true}}", ".env.bogus", "unknown key (expected clear, keep, set, unset)"},
		{"{'user':{'uuid':1}}", ".user.uuid", "unknown key; did you mean \"uid\"?"},
		{"{'user':{'home':'/h'}}", ".user.home", "unknown key (expected uid, gid, groups, name)"},
		{"{'seccomp':{'alow':[]}}", ".seccomp.alow", "unknown key; did you mean \"allow\"?"},
		{"{'seccomp':{'block':[]}}", ".seccomp.block", "unknown key (expected deny, allow)"},
		{"{'rlimits':{'nofiles':1}}", ".rlimits.nofiles", "unknown limit; did you mean \"nofile\"?"},
		{"{'rlimits':{'NPROC':1}}", ".rlimits.NPROC", "unknown limit; did you mean \"nproc\"?"},
		{"{'rlimits':{'bogus':1}}", ".rlimits.bogus",
		 "unknown limit (prlimit(1) names: as, core, cpu, data, fsize, locks, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime, sigpending, stack)"},
		{"{'unenforced':{'signals_scope':true}}", ".unenforced.signals_scope", "unknown part; did you mean \"signal_scope\"?"},
		{"{'unenforced':{'bogus':true}}", ".unenforced.bogus",
		 "unknown part (expected trust_handoff, workspace_sockets, signal_scope, carve, truncate, tcp_ports, udp_ports, host_sockets)"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct profile p;
		struct sb_err e;
		int rc = parse(bad[i].json, &p, &e);
		ok(rc == -1 && strcmp(e.where, bad[i].where) == 0 &&
		   strcmp(e.why, bad[i].why) == 0 && e.path[0] == 0,
		   "%s: %s", bad[i].json, bad[i].why);
		if (rc != -1 || strcmp(e.why, bad[i].why) != 0)
			diag("rc %d, where \"%s\", why \"%s\"", rc, e.where, e.why);
		profile_free(&p);
	}

	/* A key far longer than any candidate: no suggestion, no overflow. */
	char big[400];
	memset(big, 'w', sizeof big);
	memcpy(big, "{'", 2);
	memcpy(big + sizeof big - 8, "':true}", 8);
	struct profile p;
	struct sb_err e;
	ok(parse(big, &p, &e) == -1 && strcmp(e.why, "unknown key") == 0,
	   "a 390-byte key: unknown key, no suggestion");
	profile_free(&p);

	struct sb_near n;
	char s[64];
	sb_near_init(&n, "xyz");
	sb_near_add(&n, "tmp");
	sb_near_add(&n, "cwd");
	ok(!sb_near_format(&n, s, sizeof s) && s[0] == 0 &&
	   strcmp(n.all, "tmp, cwd") == 0,
	   "sb_near: 3 edits from a 3-letter name is not close; all lists every candidate");
	sb_near_init(&n, "ab");
	sb_near_add(&n, "ax");
	sb_near_add(&n, "xb");
	sb_near_add(&n, "ay");
	ok(!sb_near_format(&n, s, sizeof s), "sb_near: three tied candidates suggest nothing");
	sb_near_init(&n, "exectuable");
	sb_near_add(&n, "writable");
	sb_near_add(&n, "executable");
	ok(sb_near_format(&n, s, sizeof s) && strcmp(s, "\"executable\"") == 0,
	   "sb_near: a transposition is one edit (exectuable -> executable)");
	sb_near_init(&n, "exeutabel");
	sb_near_add(&n, "executable");
	ok(sb_near_format(&n, s, sizeof s), "sb_near: two edits on a 10-letter name are close");
	sb_near_init(&n, "exutabl");
	sb_near_add(&n, "executable");
	ok(!sb_near_format(&n, s, sizeof s), "sb_near: three edits are not");

	/* seccomp.deny of execve would stop the shim's own last call: refused
	 * at parse time, not as a 126 "Operation not permitted" later. */
	if (ok(parse("{'seccomp':{'deny':['ptrace','mount','execve']}}", &p, &e) == -1,
	       "seccomp.deny execve is refused"))
		ok(strcmp(e.where, ".seccomp.deny[2]") == 0 && strcmp(e.path, "execve") == 0 &&
		   strcmp(e.why, "the sandbox needs execve to start the command; deny it inside the command instead") == 0,
		   "... naming .seccomp.deny[2] \"execve\" and why");
	profile_free(&p);
	ok(parse("{'seccomp':{'deny':['execveat'],'allow':['execve']}}", &p, &e) == 0 &&
	   p.seccomp_deny.n == 1,
	   "seccomp.deny execveat and seccomp.allow execve are accepted (the shim calls execve only)");
	profile_free(&p);
	/* No group holds execve today; every one stays deniable. */
	char js[256], bad_groups[1024] = "";
	for (size_t i = 0; sc_group_names[i]; i++) {
		snprintf(js, sizeof js, "{'seccomp':{'deny':['%s']}}", sc_group_names[i]);
		if (parse(js, &p, &e))
			snprintf(bad_groups + strlen(bad_groups), sizeof bad_groups - strlen(bad_groups),
				 " %.40s (%.40s)", sc_group_names[i], e.why);
		profile_free(&p);
	}
	is_str(bad_groups, "", "every @group is accepted in seccomp.deny (none holds execve)");
}

/* ------------------------------------------------------------------ */
/* 1 (cont.). Forms that are accepted.                                */

static void test_parse_accepts(void)
{
	struct profile p;
	struct sb_err e;

	if (ok(parse("{'capabilities':['CAP_NET_BIND_SERVICE','net_bind_service','Cap_Sys_Admin']}", &p, &e) == 0,
	       "capability names with and without CAP_, any case"))
		ok(p.ncaps == 3 && p.caps[0] == CAP_NET_BIND_SERVICE_NR &&
		   p.caps[1] == CAP_NET_BIND_SERVICE_NR && p.caps[2] == 21,
		   "capabilities map to CAP_NET_BIND_SERVICE (10) twice and CAP_SYS_ADMIN (21)");
	profile_free(&p);

	if (ok(parse("{'tcp_bind':[0,65535],'udp_bind':[0]}", &p, &e) == 0,
	       "tcp_bind and udp_bind accept port 0 and 65535"))
		ok(p.tcp_bind.set && p.tcp_bind.n == 2 && p.tcp_bind.v[0] == 0 &&
		   p.tcp_bind.v[1] == 65535 && !p.tcp_connect.set,
		   "tcp_bind holds 0 and 65535; tcp_connect stays absent");
	profile_free(&p);

	if (ok(parse("{'rlimits':{'nofile':[10,20],'cpu':5},'keep_fds':[3]}", &p, &e) == 0,
	       "rlimits as [soft, hard] and as one number; keep_fds [3]"))
		ok(p.nrlimits == 2 && strcmp(p.rlimits[0].name, "nofile") == 0 &&
		   p.rlimits[0].soft == 10 && p.rlimits[0].hard == 20 &&
		   p.rlimits[1].soft == 5 && p.rlimits[1].hard == 5 &&
		   p.nkeep_fds == 1 && p.keep_fds[0] == 3,
		   "rlimits nofile 10/20, cpu 5/5; keep_fds [3]");
	profile_free(&p);

	if (ok(parse("{'env':{'clear':true,'keep':['PATH','LC_*'],'set':{'A':'1'},'unset':['B']}}", &p, &e) == 0,
	       "env with clear, keep (PREFIX*), set, unset"))
		ok(p.env.clear && p.env.keep.n == 2 && p.env.set.n == 1 &&
		   strcmp(p.env.set.v[0], "A=1") == 0 && p.env.unset.n == 1,
		   "env.set is stored as NAME=VALUE");
	profile_free(&p);

	if (ok(parse("{'readable':['/usr'],'writable':['/w']}", &p, &e) == 0,
	       "readable and writable given"))
		ok(p.executable.v.n == 2 && strcmp(p.executable.v.v[0], "/usr") == 0 &&
		   strcmp(p.executable.v.v[1], "/w") == 0,
		   "executable defaults to readable then writable");
	profile_free(&p);

	if (ok(parse("{'executable':[],'writable':['/w']}", &p, &e) == 0,
	       "executable given empty"))
		ok(p.executable.set && p.executable.v.n == 0,
		   "an explicit empty executable list stays empty");
	profile_free(&p);
}

/* ------------------------------------------------------------------ */
/* 2. Defaults of an empty profile.                                   */

static void test_defaults(void)
{
	struct profile p;
	struct sb_err e;
	if (!ok(parse("{}", &p, &e) == 0, "{} parses"))
		return;
	is_int(p.version, 1, "default version 1");
	ok(p.readable.v.n == 1 && strcmp(p.readable.v.v[0], "/") == 0,
	   "default readable is [\"/\"]");
	ok(p.executable.v.n == 1 && strcmp(p.executable.v.v[0], "/") == 0,
	   "default executable is readable U writable = [\"/\"]");
	ok(p.writable.v.n == 0 && p.read_only.v.n == 0 && p.hidden.v.n == 0 &&
	   p.caches.v.n == 0, "writable, read_only, hidden, caches empty");
	size_t nd = 0;
	bool same = true;
	for (; profile_default_devices[nd]; nd++)
		same = same && nd < p.devices.v.n &&
		       strcmp(p.devices.v.v[nd], profile_default_devices[nd]) == 0;
	ok(same && nd == p.devices.v.n && nd == 8 &&
	   strcmp(profile_default_devices[0], "/dev/null") == 0,
	   "default devices are the 8 of profile_default_devices");
	size_t np = 0;
	same = true;
	for (; profile_default_protect[np]; np++)
		same = same && np < p.protect.n &&
		       strcmp(p.protect.v[np], profile_default_protect[np]) == 0;
	ok(same && np == p.protect.n && np > 0 && !p.protect_set,
	   "protect is the built-in list, not marked as given");
	ok(p.die_with_parent && !p.new_session && !p.no_survivors,
	   "die_with_parent true, new_session false, no_survivors false");
	ok(p.network == NET_OFF && !p.tcp_bind.set && !p.tcp_connect.set,
	   "network off, no port lists");
	ok(p.unix_sockets == UNIX_SCOPED && p.signals == SIG_SCOPED,
	   "unix_sockets and signals scoped");
	ok(p.mounts == MOUNTS_AUTO && !p.tmp && !p.cwd && !p.user.set &&
	   p.unenforced == 0 && !p.best_effort && p.ncaps == 0,
	   "mounts auto; no tmp, cwd, user, caps; nothing unenforced");
	profile_free(&p);
}

/* ------------------------------------------------------------------ */
/* 3. The speccoder profile, unchanged.                               */

static const char speccoder[] =
	"{'writable':['/w'],'hidden':[],'read_only':[],'network':'off',"
	"'tmp':'/tmp/x','caches':[],'unenforced':{'trust_handoff':false,"
	"'workspace_sockets':false,'signal_scope':false,'carve':false}}";

static void test_speccoder(void)
{
	struct host h = host_abi(9);
	struct run r;
	run_fit(&r, speccoder, &h, &big_fs);
	ok(r.rc != -2 && r.p.writable.v.n == 1 && strcmp(r.p.tmp, "/tmp/x") == 0 &&
	   r.p.read_only.set && r.p.hidden.set && r.p.unenforced == 0,
	   "speccoder profile parses with its values");
	if (fit_ok(&r, "speccoder on ABI 9")) {
		const struct ll_path_rule *t = find_rule(&r.pl, "/tmp/x", ".tmp");
		ok(t && t->create_dir && t->is_dir && t->access == ll_fs_rights(9),
		   "missing tmp /tmp/x: a full-rights rule marked create_dir");
		is_int(rule_access(&r.pl, "/w", ".writable[0]"), (long long)(ll_fs_rights(9) & ~LL_FS_EXECUTE),
		       "workspace /w gets every ABI 9 right but execute from .writable");
		is_int(rule_access(&r.pl, "/w", ".executable[1]"), (long long)LL_FS_EXECUTE,
		       "execute on /w comes from the default executable list");
		ok(r.pl.landlock && r.pl.seccomp && r.pl.nleft == 0,
		   "landlock and seccomp on, nothing left out");
		ok(r.pl.mount_ns && !r.pl.expansion && r.pl.nmounts > 0,
		   "the built-in protect list is enforced with mounts");
	}
	run_free(&r);

	run_fit(&r, "{'writable':['/w'],'tmp':'/tmp'}", &h, &big_fs);
	const struct ll_path_rule *t = r.rc == 0 ? find_rule(&r.pl, "/tmp", ".tmp") : NULL;
	ok(t && !t->create_dir, "existing tmp /tmp: rule not marked create_dir");
	run_free(&r);
}

/* no_survivors: a PID namespace exactly when there is a mount namespace
 * (or the run already made one), else a subreaper with one notice naming
 * why; the plan JSON says which. */
static void test_survivors(void)
{
	struct host h = host_abi(7), none = host_abi(7), made = host_abi(7);
	none.mounts = false;
	none.mounts_errno = EPERM;
	made.mounts = false;
	made.pidns_made = true;
	struct run r;
	const char *prof = "{'writable':['/w'],'no_survivors':true,'unenforced':{'workspace_sockets':true}}";
	const struct { const char *name; const struct host *h; const char *extra; bool pid; const char *why; } c[] = {
		{"namespaces", &h, "", true, NULL},
		{"mounts off", &h, ",'mounts':'off'", false, "(mounts \"off\")"},
		{"no namespace", &none, "", false, "(no mount namespace here: Operation not permitted)"},
		{"planned again in its PID namespace", &made, "", true, NULL},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char sq[512];
		snprintf(sq, sizeof sq, "%.*s%s}", (int)strlen(prof) - 1, prof, c[i].extra);
		run_fit(&r, sq, c[i].h, &big_fs);
		if (fit_ok(&r, c[i].name)) {
			ok(r.pl.pid_ns == c[i].pid, "%s: pid_ns %d", c[i].name, c[i].pid);
			bool said = false, named = false;
			for (size_t k = 0; k < r.pl.notices.n; k++)
				if (strstr(r.pl.notices.v[k], ".no_survivors: no PID namespace")) {
					said = true;
					named = c[i].why && strstr(r.pl.notices.v[k], c[i].why);
				}
			ok(said == !c[i].pid && (c[i].pid || named), "%s: %s", c[i].name,
			   c[i].pid ? "no notice" : "one notice naming the subreaper and why");
			char *js = plan_json(&r.pl);
			ok(js && strstr(js, c[i].pid ? "\"no_survivors\": \"pid_namespace\"" : "\"no_survivors\": \"subreaper\""),
			   "%s: the plan JSON names the mechanism", c[i].name);
			free(js);
		}
		run_free(&r);
	}
	run_fit(&r, "{'writable':['/w'],'unenforced':{'workspace_sockets':true}}", &h, &big_fs);
	char *js = r.rc == 0 ? plan_json(&r.pl) : NULL;
	ok(js && !r.pl.pid_ns && strstr(js, "\"no_survivors\": false"), "absent: no PID namespace, JSON false");
	free(js);
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* 4a. No Landlock, no seccomp.                                       */

static void test_fit_no_landlock(void)
{
	struct host nosys = host_abi(0), off = host_abi(0);
	nosys.ll_errno = ENOSYS;
	off.ll_errno = EOPNOTSUPP;
	struct run a, b;
	run_fit(&a, "{}", &nosys, &big_fs);
	run_fit(&b, "{}", &off, &big_fs);
	fit_refused(&a, "no Landlock (ENOSYS)", "", "this kernel has no Landlock");
	fit_refused(&b, "Landlock off (EOPNOTSUPP)", "", "disabled at boot");
	ok(strcmp(a.err.why, b.err.why) != 0 && strstr(a.err.why, "refusing to run unconfined"),
	   "ENOSYS and EOPNOTSUPP give different reasons, both refusing to run unconfined");
	run_free(&a);
	run_free(&b);

	run_fit(&a, "{'best_effort':true}", &nosys, &big_fs);
	if (fit_ok(&a, "no Landlock with best_effort")) {
		ok(!a.pl.landlock && a.pl.nrules == 0 && a.pl.seccomp,
		   "best_effort: no Landlock rules, seccomp still on");
		ok(a.pl.nleft == 1 && strcmp(a.pl.left[0].part, "Landlock") == 0 &&
		   strcmp(a.pl.left[0].key, ".best_effort") == 0,
		   "left_out: Landlock, allowed by .best_effort");
		ok(left_line_has(&a.pl, "left out: Landlock ("), "the one left-out notice names it");
	}
	run_free(&a);

	struct host nosc = host_abi(9);
	nosc.seccomp = false;
	nosc.seccomp_errno = EINVAL;
	run_fit(&a, "{}", &nosc, &big_fs);
	fit_refused(&a, "no seccomp", "", "seccomp filtering is not available");
	run_free(&a);
	run_fit(&a, "{'best_effort':true}", &nosc, &big_fs);
	if (fit_ok(&a, "no seccomp with best_effort"))
		ok(!a.pl.seccomp && a.pl.nsc == 0 && a.pl.nleft == 1 &&
		   strcmp(a.pl.left[0].part, "seccomp filter") == 0,
		   "best_effort: seccomp filter left out, no rules");
	run_free(&a);
}

/* ------------------------------------------------------------------ */
/* 4b-d. Scopes and ABI gaps.                                         */

static void test_fit_abi_gaps(void)
{
	struct run r;
	struct host h4 = host_abi(4);
	/* without a namespace: what Landlock alone cannot do is refused */
	h4.mounts = false;

	run_fit(&r, "{}", &h4, &big_fs);
	fit_refused(&r, "default profile on ABI 4", ".signals",
		    "signal scope (needs Landlock ABI 6; this kernel has 4)");
	like(r.err.why, ".signals: signal scope (needs Landlock ABI 6; this kernel has 4); .unix_sockets: abstract unix socket scope (needs Landlock ABI 6",
	     "one refusal lists every part the host cannot enforce, with its location");
	like(r.err.why, "set in the profile: \"unenforced\":{\"signal_scope\":true,\"workspace_sockets\":true}",
	     "... and the exact JSON that would run without all of them");
	ok(r.pl.nrefused == 3 && strcmp(r.pl.refused[1].where, ".unix_sockets") == 0,
	   "the plan keeps all three refused parts (signals, abstract and pathname sockets) (for --check)");
	run_free(&r);

	run_fit(&r, "{'unenforced':{'signal_scope':true},'unix_sockets':'any'}", &h4, &big_fs);
	if (fit_ok(&r, "ABI 4 with unenforced.signal_scope")) {
		ok(r.pl.nleft == 1 && strcmp(r.pl.left[0].part, "signal scope") == 0 &&
		   strcmp(r.pl.left[0].reason, "needs Landlock ABI 6; this kernel has 4") == 0 &&
		   strcmp(r.pl.left[0].key, ".unenforced.signal_scope") == 0,
		   "left_out: signal scope, its reason and .unenforced.signal_scope");
		ok(left_line_has(&r.pl, "left out: signal scope (needs Landlock ABI 6; this kernel has 4; allowed by .unenforced.signal_scope)"),
		   "notice for the left-out signal scope");
		ok(!(r.pl.scoped & LL_SCOPE_SIGNAL), "signal scope not in the ruleset");
	}
	run_free(&r);

	/* With unix_sockets scoped, ABI 4 also lacks the abstract socket scope. */
	run_fit(&r, "{'unenforced':{'signal_scope':true}}", &h4, &big_fs);
	fit_refused(&r, "ABI 4, signal scope allowed, unix sockets scoped", ".unix_sockets",
		    "abstract unix socket scope (needs Landlock ABI 6; this kernel has 4)");
	run_free(&r);

	/* ABI 2: no truncate right. */
	/* with a namespace the read-only root and an empty network
	 * namespace close the truncate and abstract socket gaps below the ABI */
	struct host h4m = host_abi(4);
	run_fit(&r, "{}", &h4m, &big_fs);
	ok(r.rc == 1 && r.pl.nrefused == 1 && strcmp(r.pl.refused[0].where, ".signals") == 0 && r.pl.net_ns,
	   "ABI 4 with a namespace: only the signal scope is refused (abstract sockets: own network namespace)");
	run_free(&r);
	run_fit(&r, "{'network':'on','unenforced':{'signal_scope':true}}", &h4m, &big_fs);
	ok(r.rc == 1 && r.pl.nrefused == 1 && strcmp(r.pl.refused[0].where, ".unix_sockets") == 0,
	   "ABI 4, network on (no network namespace): the abstract socket scope is refused again");
	run_free(&r);
	struct host h2m = host_abi(2);
	run_fit(&r, "{'signals':'any','unix_sockets':'any'}", &h2m, &big_fs);
	ok(r.rc == 0 && r.pl.nleft == 0, "ABI 2 with a namespace: truncate outside the writable trees is closed by the read-only root");
	run_free(&r);
	/* no read-only root: seccomp refuses the two truncates Landlock
	 * below ABI 3 cannot see, nothing is refused or left out */
	run_fit(&r, "{'signals':'any','unix_sockets':'any','writable':['/']}", &h2m, &big_fs);
	ok(r.rc == 0 && r.pl.nleft == 0 && r.pl.truncate_filter && sc_count(&r.pl, "truncate") == 1 &&
	   sc_count(&r.pl, "open") > 0 && sc_count(&r.pl, "openat") > 0,
	   "ABI 2, writable / (no read-only root): truncate(2) and O_RDONLY|O_TRUNC refused by seccomp instead");
	run_free(&r);
	struct host h2 = host_abi(2);
	h2.mounts = false;
	run_fit(&r, "{'signals':'any','unix_sockets':'any'}", &h2, &big_fs);
	ok(r.rc == 0 && r.pl.nleft == 0 && r.pl.truncate_filter && sc_count(&r.pl, "truncate") == 1 &&
	   sv_has_prefix(&r.pl.remarks, "Landlock below ABI 3 cannot refuse truncate"),
	   "ABI 2 without mounts: not refused (speccoder cannot name truncate); seccomp closes it, --check remarks it");
	run_free(&r);
	run_fit(&r, "{'signals':'any','unix_sockets':'any'}", &h4m, &big_fs);
	ok(r.rc == 0 && !r.pl.truncate_filter && sc_count(&r.pl, "truncate") == 0,
	   "control: ABI 4 has the truncate right: no seccomp truncate rule");
	run_free(&r);
	run_fit(&r, "{'signals':'any','unix_sockets':'any','unenforced':{'truncate':true}}", &h2, &big_fs);
	if (fit_ok(&r, "ABI 2 with unenforced.truncate"))
		ok(r.pl.handled_fs == ll_fs_rights(2) && (r.pl.handled_fs & LL_FS_REFER) &&
		   !(r.pl.handled_fs & LL_FS_TRUNCATE) && r.pl.nleft == 1 &&
		   strcmp(r.pl.left[0].key, ".unenforced.truncate") == 0,
		   "ABI 2: refer handled, truncate left out by .unenforced.truncate");
	run_free(&r);

	/* ABI 7: pathname unix sockets need ABI 9. */
	/* Without a mount namespace for /run and /tmp views: */
	struct host h7 = host_abi(7), h9 = host_abi(9);
	h7.mounts = false;
	h7.mounts_errno = EPERM;
	run_fit(&r, "{}", &h7, &big_fs);
	fit_refused(&r, "default profile on ABI 7 without mounts", ".unix_sockets",
		    "pathname unix socket scope (sockets outside writable trees stay reachable) (needs Landlock ABI 9; this kernel has 7");
	like(r.err.why, "\"unenforced\":{\"workspace_sockets\":true}", "ABI 7 refusal names unenforced.workspace_sockets");
	run_free(&r);
	run_fit(&r, "{'unenforced':{'workspace_sockets':true}}", &h7, &big_fs);
	if (fit_ok(&r, "ABI 7 with unenforced.workspace_sockets"))
		ok(r.pl.nleft == 1 && !(r.pl.handled_fs & LL_FS_RESOLVE_UNIX) &&
		   r.pl.scoped == (LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET),
		   "ABI 7: both scopes on, pathname socket scope left out");
	run_free(&r);
	h7.mounts = true;
	run_fit(&r, "{}", &h7, &big_fs);
	if (fit_ok(&r, "default profile on ABI 7 with mounts"))
		ok(r.pl.nleft == 0 && r.pl.mount_ns, "ABI 7 with mounts: views, nothing left out");
	run_free(&r);

	run_fit(&r, "{}", &h9, &big_fs);
	if (fit_ok(&r, "default profile on ABI 9"))
		ok((r.pl.handled_fs & LL_FS_RESOLVE_UNIX) && r.pl.nleft == 0 &&
		   r.pl.scoped == (LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET),
		   "ABI 9: resolve_unix handled, both scopes, nothing left out");
	run_free(&r);

	run_fit(&r, "{'unix_sockets':'any','signals':'any'}", &h9, &big_fs);
	if (fit_ok(&r, "ABI 9, unix_sockets and signals any"))
		ok(!(r.pl.handled_fs & LL_FS_RESOLVE_UNIX) && r.pl.scoped == 0,
		   "unix_sockets any: resolve_unix not handled, no scope");
	run_free(&r);

	struct host h12 = host_abi(12);
	run_fit(&r, "{}", &h12, &big_fs);
	if (fit_ok(&r, "ABI 12 (newer than known)"))
		ok(r.pl.abi == LL_ABI_KNOWN && r.pl.handled_fs == ll_fs_rights(LL_ABI_KNOWN),
		   "a newer kernel is driven at LL_ABI_KNOWN");
	run_free(&r);
}

/* The index of `path` in a fake tree (its kept() "descriptor" is
 * FAKE_FD plus this), -1 if absent. */
static int fake_index(const struct fent *t, const char *path)
{
	for (int i = 0; t[i].path; i++)
		if (strcmp(t[i].path, path) == 0)
			return i;
	return -1;
}

/* What a rule carries besides its rights: the descriptor the view kept
 * when fit() resolved its path (only a path that met no symlink), the
 * profile's own string for a list entry that is its own canonical name,
 * and its location, rendered only when asked. */
static void test_fit_rule_sources(void)
{
	struct host h = host_abi(7);
	struct run r;
	run_fit(&r, "{'readable':['/usr','/lib','/etc/passwd'],'writable':['/w'],'devices':['/dev/null']}", &h, &big_fs);
	if (fit_ok(&r, "rule sources")) {
		const struct ll_path_rule *u = find_rule(&r.pl, "/usr", ".readable[0]");
		ok(u && u->fd == FAKE_FD + fake_index(big_tree, "/usr") && u->path == r.p.readable.v.v[0],
		   "a list entry: the kept descriptor, the profile's string (not a copy)");
		const struct ll_path_rule *l = find_rule(&r.pl, "/usr/lib", ".readable[1]");
		ok(l && l->fd == -1 && l->path != r.p.readable.v.v[1],
		   "an entry through a symlink (/lib): its canonical name copied, no descriptor");
		const struct ll_path_rule *f = find_rule(&r.pl, "/etc/passwd", ".readable[2]");
		ok(f && !f->is_dir && f->fd == FAKE_FD + fake_index(big_tree, "/etc/passwd"), "a file entry keeps its descriptor too");
		const struct ll_path_rule *w = find_rule(&r.pl, "/w", ".writable[0]");
		const struct ll_path_rule *wx = find_rule(&r.pl, "/w", ".executable[3]");
		ok(w && wx && w->fd == FAKE_FD + fake_index(big_tree, "/w") && wx->fd == w->fd &&
		   wx->access == LL_FS_EXECUTE && !(w->access & LL_FS_EXECUTE),
		   "the writable tree: its rule, and the default executable list's own (other carve-outs), one descriptor");
		const struct ll_path_rule *d = find_rule(&r.pl, "/dev/null", ".devices[0]");
		ok(d && d->fd == FAKE_FD + fake_index(big_tree, "/dev/null"), "a device keeps its descriptor");
		char b[PLAN_WHERE_MAX];
		ok(l && strcmp(plan_rule_where(&r.pl, l, b, sizeof b), ".readable[1]") == 0 && l->entry == 1 &&
		   plan_rule_from(&r.pl, l, ".readable[1]") && !plan_rule_from(&r.pl, l, ".readable[10]") &&
		   !plan_rule_from(&r.pl, l, ".readable") && !plan_rule_from(&r.pl, l, ".executable[1]") &&
		   plan_rule_in_list(l, ".readable") && !plan_rule_in_list(l, ".writable"),
		   "a location is a list and an entry, rendered \".readable[1]\"");
		char *js = plan_json(&r.pl);
		ok(js && strstr(js, "\".readable[1]\"") && strstr(js, "\".devices[0]\""), "--check names the rules' locations");
		free(js);
	}
	run_free(&r);

	/* an executable list of its own: separate rules, as written */
	run_fit(&r, "{'readable':['/usr','/etc'],'executable':['/usr']}", &h, &big_fs);
	if (fit_ok(&r, "executable set")) {
		ok(rule_access(&r.pl, "/usr", ".readable[0]") == GRANT_READ &&
		   rule_access(&r.pl, "/usr", ".executable[0]") == LL_FS_EXECUTE &&
		   rule_access(&r.pl, "/etc", ".readable[1]") == GRANT_READ && !find_rule(&r.pl, "/etc", ".executable[0]"),
		   "executable set: read rules and execute rules each from their own list");
	}
	run_free(&r);

	/* expansion: entries of a tree granted around /dev were never
	 * resolved, so they carry no descriptor; the tree itself does */
	struct host nm = host_abi(7);
	nm.mounts = false;
	run_fit(&r, "{'unenforced':{'workspace_sockets':true}}", &nm, &big_fs);
	if (fit_ok(&r, "readable / by expansion")) {
		const struct ll_path_rule *root = find_rule(&r.pl, "/", ".readable[0]");
		const struct ll_path_rule *usr = find_rule(&r.pl, "/usr", ".readable[0]");
		ok(root && root->fd == FAKE_FD + fake_index(big_tree, "/") && usr && usr->fd == -1,
		   "\"/\" keeps its descriptor, its listed entries none");
	}
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* 4e-h. Filesystem grants.                                           */

static void test_fit_dev_exclusion(void)
{
	struct host h = host_abi(9);
	struct run r;
	run_fit(&r, "{'devices':[]}", &h, &small_fs);
	if (fit_ok(&r, "readable / around /dev")) {
		const struct ll_path_rule *root = find_rule(&r.pl, "/", ".readable[0]");
		ok(root && root->is_dir && root->access == LL_FS_READ_DIR,
		   "\"/\" gets read_dir only");
		ok(rule_access(&r.pl, "/usr", ".readable[0]") == (GRANT_READ | GRANT_EXEC) &&
		   rule_access(&r.pl, "/etc", ".readable[0]") == (GRANT_READ | GRANT_EXEC) &&
		   rule_access(&r.pl, "/home", ".readable[0]") == (GRANT_READ | GRANT_EXEC),
		   "/usr, /etc, /home get read_file+read_dir, and execute: the default executable list rides on readable's rules");
		is_int((long long)rules_under(&r.pl, "/dev"), 0, "no rule on /dev or below");
		ok(!find_rule(&r.pl, "/lib", NULL), "no rule on the symlink /lib");
		ok(!find_rule(&r.pl, "/usr", ".executable[0]") && !find_rule(&r.pl, "/", ".executable[0]"),
		   "the default executable / makes no rules of its own");
		is_int((long long)r.pl.nrules, 4, "exactly 4 rules (\"/\" and its 3 entries around /dev)");
		ok(r.pl.expanded.n == 1 && strcmp(r.pl.expanded.v[0], "/") == 0,
		   "plan.expanded is [\"/\"]");
		ok(sv_has(&small_fs.listed, "/") && !sv_has(&small_fs.listed, "/dev"),
		   "\"/\" was listed, /dev never");
	}
	run_free(&r);
}

static void test_fit_fs(void)
{
	struct host h = host_abi(9);
	struct run r;

	/* f. inside /dev through a tree: refused; devices outside /dev: refused */
	run_fit(&r, "{'readable':['/dev/shm']}", &h, &big_fs);
	fit_refused(&r, "readable /dev/shm", ".readable[0]", "resolves inside /dev");
	is_str(r.err.path, "/dev/shm", "the refusal names the path");
	run_free(&r);
	run_fit(&r, "{'readable':['/usr','/devlink']}", &h, &big_fs);
	fit_refused(&r, "readable symlink to /dev/shm", ".readable[1]", "resolves inside /dev (/dev/shm)");
	run_free(&r);
	run_fit(&r, "{'devices':['/home']}", &h, &big_fs);
	fit_refused(&r, "devices /home", ".devices[0]", "not a device node or directory inside /dev");
	run_free(&r);
	run_fit(&r, "{'devices':['/dev/null','/dev']}", &h, &big_fs);
	fit_refused(&r, "devices /dev itself", ".devices[1]", "not a device node or directory inside /dev");
	run_free(&r);

	/* devices: nodes get file rights and an open check; a dir gets more */
	run_fit(&r, "{'devices':['/dev/null','/dev/shm','/dev/nope','/dev/tty']}", &h, &big_fs);
	if (fit_ok(&r, "devices /dev/null, /dev/shm, /dev/nope, /dev/tty")) {
		const struct ll_path_rule *n = find_rule(&r.pl, "/dev/null", ".devices[0]");
		ok(n && !n->is_dir && !n->open_check && n->access == GRANT_DEVICE,
		   "/dev/null: read+write+ioctl_dev, not a dir, not opened at start");
		ok(!find_rule(&r.pl, "/dev/tty", NULL) &&
		   sv_contains(&r.pl.notices, ".devices[3] \"/dev/tty\": skipped: none of the command's stdin, stdout and stderr is a terminal"),
		   "/dev/tty listed, no stdio terminal: not granted, with a notice");
		const struct ll_path_rule *s = find_rule(&r.pl, "/dev/shm", ".devices[1]");
		ok(s && s->is_dir && !s->open_check && s->access == GRANT_DEVDIR,
		   "/dev/shm listed in devices: directory rule with GRANT_DEVDIR");
		ok(sv_contains(&r.pl.notices, ".devices[2] \"/dev/nope\": skipped: No such file or directory"),
		   "a missing device is skipped with a notice");
	}
	run_free(&r);
	h.stdio_terminal = true;
	run_fit(&r, "{'devices':['/dev/tty']}", &h, &big_fs);
	if (fit_ok(&r, "devices /dev/tty with a terminal on stdio")) {
		const struct ll_path_rule *tt = find_rule(&r.pl, "/dev/tty", ".devices[0]");
		ok(tt && tt->open_check && !tt->quiet, "/dev/tty: granted, opened at start (no controlling terminal: skipped)");
	}
	run_free(&r);
	h.stdio_terminal = false;
	run_fit(&r, "{}", &h, &big_fs);
	if (fit_ok(&r, "default devices, no stdio terminal")) {
		ok(!find_rule(&r.pl, "/dev/tty", NULL) && r.pl.notices.n == 0, "default /dev/tty: not granted, silently");
	}
	run_free(&r);

	/* g. a file path never carries a directory right */
	run_fit(&r, "{'readable':['/w/file'],'writable':['/w']}", &h, &big_fs);
	if (fit_ok(&r, "readable file /w/file")) {
		const struct ll_path_rule *f = find_rule(&r.pl, "/w/file", ".readable[0]");
		ok(f && !f->is_dir && f->access == (LL_FS_READ_FILE | LL_FS_EXECUTE),
		   "file rule: read_file (and execute, the default executable list), no read_dir");
		bool only_file_rights = true;
		for (size_t i = 0; i < r.pl.nrules; i++)
			if (!r.pl.rules[i].is_dir &&
			    (r.pl.rules[i].access & ~LL_FS_FILE_RIGHTS))
				only_file_rights = false;
		ok(only_file_rights, "no rule on a file carries a directory-only right");
	}
	run_free(&r);

	/* h. missing or unreadable paths */
	run_fit(&r, "{'writable':['/missing']}", &h, &big_fs);
	fit_refused(&r, "missing workspace", ".writable[0]", "No such file or directory");
	is_str(r.err.path, "/missing", "the missing workspace's path is named");
	run_free(&r);
	run_fit(&r, "{'writable':['/secret']}", &h, &big_fs);
	fit_refused(&r, "unreadable workspace", ".writable[0]", "Permission denied");
	run_free(&r);
	run_fit(&r, "{'writable':['/w/file']}", &h, &big_fs);
	fit_refused(&r, "workspace is a file", ".writable[0]", "the workspace must be a directory");
	run_free(&r);
	run_fit(&r, "{'readable':['/usr','/nope','/secret'],'writable':['/w','/gone']}", &h, &big_fs);
	if (fit_ok(&r, "missing readable[1], unreadable readable[2], missing writable[1]")) {
		ok(sv_contains(&r.pl.notices, ".readable[1] \"/nope\": skipped: No such file or directory") &&
		   !find_rule(&r.pl, "/nope", NULL),
		   "readable[1] missing: notice naming .readable[1], no rule");
		ok(sv_contains(&r.pl.notices, ".readable[2] \"/secret\": skipped: Permission denied"),
		   "readable[2] unreadable: skipped with a notice");
		ok(sv_contains(&r.pl.notices, ".writable[1] \"/gone\""),
		   "writable[1] (not the workspace) missing: skipped with a notice");
	}
	run_free(&r);
}

/* tmp corner cases. */
static void test_fit_tmp(void)
{
	struct host h = host_abi(9);
	struct run r;
	run_fit(&r, "{'tmp':'/tmp/file'}", &h, &big_fs);
	fit_refused(&r, "tmp is a file", ".tmp", "exists and is not a directory");
	run_free(&r);
	run_fit(&r, "{'tmp':'/secret'}", &h, &big_fs);
	fit_refused(&r, "tmp unreadable", ".tmp", "Permission denied");
	run_free(&r);
	run_fit(&r, "{'tmp':'/dev/shm'}", &h, &big_fs);
	fit_refused(&r, "tmp /dev/shm (exists)", ".tmp", "resolves inside /dev");
	run_free(&r);
	/* A tmp under /dev is refused whether it exists yet or not. */
	run_fit(&r, "{'tmp':'/dev/newdir'}", &h, &big_fs);
	fit_refused(&r, "tmp /dev/newdir (missing)", ".tmp", "inside /dev");
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* 4i. Network.                                                       */

static void test_fit_network(void)
{
	struct host h4 = host_abi(4), h9 = host_abi(9), h10 = host_abi(10);
	struct run r;

	run_fit(&r, "{'network':'on','tcp_connect':[443],'signals':'any','unix_sockets':'any'}", &h4, &big_fs);
	if (fit_ok(&r, "network on, tcp_connect [443], ABI 4")) {
		ok(r.pl.handled_net & LL_NET_CONNECT_TCP, "connect_tcp handled");
		/* DESIGN.md: an absent tcp_bind stays unrestricted when
		 * network is "on": only the listed direction is handled. */
		ok(!(r.pl.handled_net & LL_NET_BIND_TCP),
		   "tcp_bind absent: bind_tcp not handled (binding stays unrestricted)");
		ok(r.pl.nports == 1 && r.pl.ports[0].port == 443 &&
		   r.pl.ports[0].access == LL_NET_CONNECT_TCP,
		   "one port rule: 443 connect_tcp");
		is_int(sc_err(sc_find(&r.pl, "sendto", 1, MASK1(3, MSG_FASTOPEN_FLAG, MSG_FASTOPEN_FLAG))),
		       EPERM, "sendto with MSG_FASTOPEN refused (EPERM)");
		ok(sc_find(&r.pl, "sendmsg", 1, MASK1(2, MSG_FASTOPEN_FLAG, MSG_FASTOPEN_FLAG)) != NULL,
		   "sendmsg with MSG_FASTOPEN refused");
		is_int(sc_err(sc_find(&r.pl, "socket", 2, CMP2(0, SC_EQ, AF_INET, 2, SC_EQ, IPPROTO_MPTCP_NR))),
		       EPROTONOSUPPORT, "socket(AF_INET, *, IPPROTO_MPTCP) refused (EPROTONOSUPPORT)");
		ok(!sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_INET)) &&
		   sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_PACKET)),
		   "network on: AF_INET allowed, AF_PACKET still refused");
		like(r.pl.remarks.n ? r.pl.remarks.v[0] : NULL, "UDP is not restricted",
		     "remark: UDP is not restricted");
	}
	run_free(&r);

	run_fit(&r, "{'network':'on','tcp_bind':[8080],'tcp_connect':[443],'signals':'any','unix_sockets':'any'}", &h4, &big_fs);
	if (fit_ok(&r, "network on, tcp_bind [8080] and tcp_connect [443]"))
		ok(r.pl.handled_net == (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) && r.pl.nports == 2 &&
		   r.pl.ports[0].port == 8080 && r.pl.ports[0].access == LL_NET_BIND_TCP,
		   "both TCP rights handled; 8080 bind_tcp and 443 connect_tcp");
	ok(r.pl.nports == 2 && strcmp(r.pl.ports[0].where, ".tcp_bind[0]") == 0 &&
	   strcmp(r.pl.ports[1].where, ".tcp_connect[0]") == 0,
	   "port rules name their profile entries (.tcp_bind[0], .tcp_connect[0])");
	run_free(&r);

	run_fit(&r, "{'network':'on'}", &h9, &big_fs);
	if (fit_ok(&r, "network on without lists"))
		ok(r.pl.handled_net == 0 && r.pl.nports == 0 && sc_count(&r.pl, "sendto") == 0,
		   "no port lists: nothing handled, no MSG_FASTOPEN rule");
	run_free(&r);

	struct host h3 = host_abi(3);
	run_fit(&r, "{'network':'on','tcp_connect':[443],'signals':'any','unix_sockets':'any'}", &h3, &big_fs);
	fit_refused(&r, "tcp_connect on ABI 3", ".tcp_connect",
		    "TCP port rules (needs Landlock ABI 4; this kernel has 3); to run without it, set in the profile: \"unenforced\":{\"tcp_ports\":true}");
	run_free(&r);
	run_fit(&r, "{'network':'on','tcp_connect':[443],'signals':'any','unix_sockets':'any','unenforced':{'tcp_ports':true}}", &h3, &big_fs);
	if (fit_ok(&r, "tcp_connect on ABI 3 with unenforced.tcp_ports"))
		ok(r.pl.nports == 0 && r.pl.handled_net == 0 && r.pl.nleft == 1 &&
		   strcmp(r.pl.left[0].key, ".unenforced.tcp_ports") == 0,
		   "TCP port rules left out by .unenforced.tcp_ports");
	run_free(&r);

	run_fit(&r, "{'network':'on','udp_connect':[53]}", &h9, &big_fs);
	fit_refused(&r, "udp_connect on ABI 9", ".udp_connect", "needs Landlock ABI 10; this kernel has 9");
	run_free(&r);
	run_fit(&r, "{'network':'on','udp_connect':[53]}", &h10, &big_fs);
	if (fit_ok(&r, "udp_connect on ABI 10"))
		ok((r.pl.handled_net & LL_NET_CONNECT_SEND_UDP) && r.pl.nports == 1 &&
		   r.pl.ports[0].port == 53 && r.pl.ports[0].access == LL_NET_CONNECT_SEND_UDP,
		   "ABI 10: port rule 53 connect_send_udp");
	run_free(&r);

	run_fit(&r, "{}", &h9, &big_fs);
	if (fit_ok(&r, "network off (default)")) {
		ok(r.pl.nports == 0 && r.pl.handled_net == ll_net_rights(9),
		   "network off: every TCP right handled, no port allowed");
		is_int(sc_err(sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_INET))), EAFNOSUPPORT,
		       "network off: socket(AF_INET) refused with EAFNOSUPPORT");
		ok(sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_INET6)) &&
		   sc_find(&r.pl, "socket", 1, CMP1(0, SC_GE, 46)),
		   "AF_INET6 and families >= AF_MAX refused too");
		ok(!sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_UNIX)) &&
		   !sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_NETLINK)),
		   "AF_UNIX and AF_NETLINK not refused by family");
		ok(sc_find(&r.pl, "socket", 2, CMP2(0, SC_EQ, AF_NETLINK, 2, SC_NE, 0)) != NULL,
		   "netlink other than NETLINK_ROUTE refused");
		ok(sc_count(&r.pl, "sendto") == 0, "network off: no MSG_FASTOPEN rule");
	}
	run_free(&r);

	run_fit(&r, "{'unix_sockets':'none'}", &h9, &big_fs);
	if (fit_ok(&r, "unix_sockets none"))
		is_int(sc_err(sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, AF_UNIX))), EAFNOSUPPORT,
		       "unix_sockets none: socket(AF_UNIX) refused");
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* 4j. The default seccomp filter and seccomp.allow / deny.           */

static void test_filter(void)
{
	struct host h = host_abi(9);
	h.persona = 8;
	struct run r;
	run_fit(&r, "{}", &h, &big_fs);
	if (fit_ok(&r, "default filter")) {
		ok(sc_find(&r.pl, "ptrace", 0, NULL) && sc_find(&r.pl, "mount", 0, NULL) &&
		   sc_find(&r.pl, "bpf", 0, NULL) && sc_find(&r.pl, "setns", 0, NULL),
		   "ptrace, mount, bpf, setns refused");
		ok(!sc_find(&r.pl, "uname", 0, NULL), "uname not refused by default");
		ok(sc_err(sc_find(&r.pl, "io_uring_setup", 0, NULL)) == ENOSYS &&
		   sc_err(sc_find(&r.pl, "clone3", 0, NULL)) == ENOSYS,
		   "io_uring_setup and clone3 get ENOSYS");
		ok(sc_find(&r.pl, "unshare", 1, MASK1(0, CLONE_NEWUSER_FLAG, CLONE_NEWUSER_FLAG)) &&
		   sc_find(&r.pl, "clone", 1, MASK1(0, CLONE_NEWUSER_FLAG, CLONE_NEWUSER_FLAG)),
		   "unshare/clone with CLONE_NEWUSER refused");
		ok(sc_find(&r.pl, "ioctl", 1, CMP1(1, SC_EQ, 0x5412)) != NULL,
		   "ioctl TIOCSTI refused");
		ok(sc_find(&r.pl, "personality", 1, CMP1(0, SC_NE, 8)) != NULL,
		   "personality other than the host's current persona refused");
	}
	run_free(&r);

	run_fit(&r, "{'seccomp':{'allow':['ptrace']}}", &h, &big_fs);
	if (fit_ok(&r, "seccomp.allow ptrace"))
		ok(sc_count(&r.pl, "ptrace") == 0 && sc_find(&r.pl, "perf_event_open", 0, NULL),
		   "allow ptrace: ptrace rule gone, rest of @debug kept");
	run_free(&r);

	run_fit(&r, "{'seccomp':{'allow':['@mount']}}", &h, &big_fs);
	if (fit_ok(&r, "seccomp.allow @mount"))
		ok(sc_count(&r.pl, "mount") == 0 && sc_count(&r.pl, "umount2") == 0 &&
		   sc_count(&r.pl, "chroot") == 0 && sc_find(&r.pl, "ptrace", 0, NULL),
		   "allow @mount: mount, umount2, chroot gone; ptrace kept");
	run_free(&r);

	/* An explicit deny wins over allow; allow cannot lift the network
	 * mode's socket-family rules nor the TIOCSTI rule's siblings. */
	run_fit(&r, "{'seccomp':{'allow':['@mount','socket'],'deny':['mount']}}", &h, &big_fs);
	if (fit_ok(&r, "allow @mount + deny mount")) {
		ok(sc_count(&r.pl, "mount") == 1 && sc_count(&r.pl, "umount2") == 0,
		   "deny mount wins over allow @mount; umount2 still allowed");
		ok(sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, 2)) != NULL,
		   "allow socket does not lift network off's AF_INET refusal");
	}
	run_free(&r);

	run_fit(&r, "{'seccomp':{'deny':['uname','@io-uring']}}", &h, &big_fs);
	if (fit_ok(&r, "seccomp.deny uname")) {
		const struct sc_rule *u = sc_find(&r.pl, "uname", 0, NULL);
		ok(u && u->err == EPERM && strcmp(u->why, "seccomp.deny") == 0,
		   "deny uname: an EPERM rule for uname");
	}
	run_free(&r);
}

/* A view that counts what fit() asks of the filesystem, per path. */
struct counting {
	struct fs_view inner;
	struct strvec resolved, lkinded, listed;
};

static int count_resolve(void *ctx, const char *path, char *out, size_t n, enum fs_kind *k)
{
	struct counting *c = ctx;
	sv_push(&c->resolved, path);
	return c->inner.resolve(c->inner.ctx, path, out, n, k);
}

static int count_lkind(void *ctx, const char *path, enum fs_kind *k)
{
	struct counting *c = ctx;
	sv_push(&c->lkinded, path);
	return c->inner.lkind(c->inner.ctx, path, k);
}

static int count_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	struct counting *c = ctx;
	sv_push(&c->listed, dir);
	return c->inner.list(c->inner.ctx, dir, cb, arg);
}

static int count_read(void *ctx, const char *path, char *buf, size_t n, size_t *len, bool *tr)
{
	struct counting *c = ctx;
	return c->inner.read(c->inner.ctx, path, buf, n, len, tr);
}

/* The first path of `v` asked more than once, or NULL. */
static const char *asked_twice(const struct strvec *v)
{
	for (size_t i = 0; i < v->n; i++)
		for (size_t j = i + 1; j < v->n; j++)
			if (strcmp(v->v[i], v->v[j]) == 0)
				return v->v[i];
	return NULL;
}

/* Start-up cost (issue 13): one fit() asks the filesystem about each
 * path at most once — resolve, lstat and listing alike — however many
 * lists, routes and carve-outs name it; and the default profile, with
 * no writable tree, looks at no home or git file at all. */
static void test_fit_probes_once(void)
{
	static const char *const profiles[] = {"{}", "{'writable':['/w']}",
		"{'writable':['/w','/w/sub'],'readable':['/usr','/usr']}",
		"{'writable':['/w'],'mounts':'off','unenforced':{'host_sockets':true}}",
		"{'writable':['/w'],'env':{'set':{'HOME':'/w/home'}}}", NULL};
	struct host h = host_abi(7);
	snprintf(h.home, sizeof h.home, "/home/u");
	for (size_t i = 0; profiles[i]; i++) {
		struct counting c = {view_of(&big_fs), {0}, {0}, {0}};
		struct fs_view v = {count_resolve, count_lkind, count_list, count_read, &c, NULL};
		struct run r;
		memset(&r, 0, sizeof r);
		if (parse(profiles[i], &r.p, &r.err)) {
			ok(0, "profile parses: %s", profiles[i]);
			continue;
		}
		r.rc = fit(&r.p, &h, &v, &r.pl, &r.err);
		const char *a = asked_twice(&c.resolved), *b = asked_twice(&c.lkinded),
			   *l = asked_twice(&c.listed);
		ok(r.rc >= 0 && !a && !b && !l, "%s: each path resolved, lstat'ed and listed at most once (%zu, %zu, %zu asked)%s%s%s%s%s%s",
		   profiles[i], c.resolved.n, c.lkinded.n, c.listed.n, a ? "; resolved twice: " : "", a ? a : "",
		   b ? "; lstat twice: " : "", b ? b : "", l ? "; listed twice: " : "", l ? l : "");
		if (i == 0) {
			bool home = false;
			for (size_t k = 0; k < c.resolved.n; k++)
				home |= strncmp(c.resolved.v[k], "/home/u/", 8) == 0 || strstr(c.resolved.v[k], "gitconfig");
			ok(!home, "{}: no file in the home nor git configuration looked at (no writable tree)");
		}
		sv_free(&c.resolved);
		sv_free(&c.lkinded);
		sv_free(&c.listed);
		run_free(&r);
	}
}

/* Every built-in rule names a syscall libseccomp knows (filter.c does
 * not look them up at run time): in every network and unix socket mode,
 * with the truncate filter, the denial report and port lists. */
static void test_filter_names(void)
{
	static const char *const profiles[] = {"{}", "{'network':'on'}",
		"{'network':'loopback'}", "{'network':'on','tcp_connect':[443],'tcp_bind':[8080]}",
		"{'unix_sockets':'none'}", "{'unix_sockets':'any'}", "{'denials':{'fd':3}}",
		"{'mounts':'off','unenforced':{'workspace_sockets':true}}",
		"{'seccomp':{'deny':['@io-uring','uname']}}", NULL};
	for (int abi = 1; abi <= 10; abi += abi < 3 ? 1 : 3) {
		struct host h = host_abi(abi);
		for (size_t i = 0; profiles[i]; i++) {
			struct run r;
			run_fit(&r, profiles[i], &h, &big_fs);
			size_t bad = 0;
			const char *first = "";
			for (size_t k = 0; r.rc >= 0 && k < r.pl.nsc; k++)
				if (!sc_name_valid(r.pl.sc[k].syscall) && bad++ == 0)
					first = r.pl.sc[k].syscall;
			ok(r.rc >= 0 && r.pl.nsc > 0 && bad == 0, "ABI %d %s: %zu rules, every name known to libseccomp%s%s",
			   abi, profiles[i], r.pl.nsc, bad ? "; unknown: " : "", first);
			run_free(&r);
		}
	}
}

/* ------------------------------------------------------------------ */
/* 4k. Keys of later issues; 4l. capabilities.                        */

static void test_not_yet(void)
{
	struct host h = host_abi(9);
	struct run r;
	/* user: root and the ids are checked by shim/user.c before fit */
	run_fit(&r, "{'user':{'uid':1000,'gid':1000}}", &h, &big_fs);
	fit_ok(&r, "user: fit accepts it");
	run_free(&r);
	h.mounts = false;
	h.mounts_errno = EPERM;
	run_fit(&r, "{'mounts':'required'}", &h, &big_fs);
	fit_refused(&r, "mounts required without a namespace", ".mounts", "a mount namespace (mounts \"required\") (no mount namespace here");
	run_free(&r);
	h.mounts = true;
	run_fit(&r, "{'writable':['/w'],'read_only':[],'hidden':[],'mounts':'off'}", &h, &big_fs);
	fit_ok(&r, "empty read_only and hidden, mounts off");
	run_free(&r);
	run_fit(&r, "{'writable':['/w'],'protect':[]}", &h, &big_fs);
	if (fit_ok(&r, "empty protect list"))
		ok(mount_is(&r.pl, "/w", MNT_RW) && mount_is(&r.pl, "/tmp", MNT_TMP) && r.pl.mount_ns &&
		   mount_is(&r.pl, "/", MNT_RO_ROOT) && r.pl.nmounts == 5 /* /, /tmp, /var/tmp, /w, /dev/shm */,
		   "protect: [] on ABI 9: no carve-out; the read-only root, the workspace brought back, private /tmp");
	run_free(&r);
	run_fit(&r, "{'tcp_connect':[443]}", &h, &big_fs);
	fit_refused(&r, "port list with network off", ".tcp_connect", "need network \"on\"");
	run_free(&r);
	h = host_abi(4);
	run_fit(&r, "{'unix_sockets':'none','unenforced':{'signal_scope':true}}", &h, &big_fs);
	if (fit_ok(&r, "unix_sockets none on ABI 4"))
		ok(r.pl.nleft == 1, "only the signal scope is left out (abstract scope not needed with none)");
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* Carve-outs: mounts where a namespace can be had, expansion else.    */

static const struct fent repo_tree[] = {
	{"/", FS_DIR, NULL, 0, 0},
	{"/usr", FS_DIR, NULL, 0, 0},
	{"/etc", FS_DIR, NULL, 0, 0},
	{"/etc/resolv.conf", FS_SYMLINK, "/run/resolv/stub.conf", 0, 0},
	{"/run", FS_DIR, NULL, 0, 0},
	{"/run/resolv", FS_DIR, NULL, 0, 0},
	{"/run/resolv/stub.conf", FS_FILE, NULL, 0, 0},
	{"/var", FS_DIR, NULL, 0, 0},
	{"/var/run", FS_SYMLINK, "/run", 0, 0},
	{"/tmp", FS_DIR, NULL, 0, 0},
	{"/tmp/ws", FS_DIR, NULL, 0, 0},
	{"/dev", FS_DIR, NULL, 0, 0},
	{"/dev/null", FS_FILE, NULL, 0, 0},
	{"/home", FS_DIR, NULL, 0, 0},
	{"/home/u", FS_DIR, NULL, 0, 0},
	{"/home/u/.ssh", FS_DIR, NULL, 0, 0},
	{"/home/u/.ssh/id", FS_FILE, NULL, 0, 0},
	{"/home/u/.netrc", FS_FILE, NULL, 0, 0},
	{"/home/u/.bashrc", FS_FILE, NULL, 0, 0},
	{"/r", FS_DIR, NULL, 0, 0},
	{"/r/src", FS_DIR, NULL, 0, 0},
	{"/r/README", FS_FILE, NULL, 0, 0},
	{"/r/.vscode", FS_SYMLINK, "/elsewhere", 0, 0},
	{"/r/.git", FS_DIR, NULL, 0, 0},
	{"/r/.git/HEAD", FS_FILE, NULL, 0, 0},
	{"/r/.git/config", FS_FILE, NULL, 0, 0},
	{"/r/.git/objects", FS_DIR, NULL, 0, 0},
	{"/r/.git/hooks", FS_DIR, NULL, 0, 0},
	{"/elsewhere", FS_DIR, NULL, 0, 0},
	{"/r/.idea", FS_SYMLINK, "/r/tools/idea", 0, 0},
	{"/r/tools", FS_DIR, NULL, 0, 0},
	{"/r/tools/idea", FS_DIR, NULL, 0, 0},
	{"/wt", FS_DIR, NULL, 0, 0},
	{"/wt/.git", FS_FILE, NULL, 0, 0},
	{NULL, FS_MISSING, NULL, 0, 0},
};
static struct fakefs repo_fs = {repo_tree, {0}, -1};

static const struct mount_rule *mount_at(const struct plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		if (strcmp(pl->mounts[i].path, path) == 0)
			return &pl->mounts[i];
	return NULL;
}

static int mount_index(const struct plan *pl, const char *path)
{
	const struct mount_rule *m = mount_at(pl, path);
	return m ? (int)(m - pl->mounts) : -1;
}

static bool mount_is(const struct plan *pl, const char *path, enum mount_op op)
{
	const struct mount_rule *m = mount_at(pl, path);
	return m && m->op == op;
}

static void test_carves(void)
{
	static const char prof[] =
		"{'writable':['/r'],'protect':['.git/hooks','.git/config','.envrc','.vscode'],"
		"'hidden':['/home/u/.ssh','/home/u/.netrc','/r/src/secret'],'read_only':['/r/README','/etc']}";
	struct host h = host_abi(7);
	struct run r;

	/* mounts */
	run_fit(&r, prof, &h, &repo_fs);
	if (fit_ok(&r, "carves with mounts")) {
		ok(r.pl.mount_ns && !r.pl.expansion, "mount namespace, no expansion");
		ok(mount_is(&r.pl, "/r/.git", MNT_PIN), ".git pinned (cannot be renamed away)");
		ok(mount_is(&r.pl, "/r/.git/hooks", MNT_RO_BIND) && mount_is(&r.pl, "/r/.git/config", MNT_RO_BIND),
		   ".git/hooks and .git/config bound read-only");
		ok(mount_index(&r.pl, "/r/.git") < mount_index(&r.pl, "/r/.git/hooks"),
		   "the parent's mount comes before the child's");
		ok(!mount_at(&r.pl, "/r/.envrc") && sv_contains(&r.pl.notices, "\"/r/.envrc\": does not exist, so it is not protected against creation"),
		   "missing listed .envrc: nothing created or mounted, one notice says it is not protected");
		ok(mount_is(&r.pl, "/r/.vscode", MNT_MASK_FILE) && !mount_at(&r.pl, "/elsewhere"),
		   "symlink .vscode covered, its target not followed");
		ok(mount_is(&r.pl, "/home/u/.ssh", MNT_MASK_DIR) && mount_is(&r.pl, "/home/u/.netrc", MNT_MASK_FILE),
		   "hidden directory and file masked");
		ok(!mount_at(&r.pl, "/r/src/secret") && sv_contains(&r.pl.notices, "/r/src/secret\": does not exist"),
		   "missing hidden path inside the workspace: no mount, a notice");
		ok(mount_is(&r.pl, "/r/README", MNT_RO_BIND), "read_only file inside the workspace bound read-only");
		ok(!mount_at(&r.pl, "/etc") && sv_contains(&r.pl.notices, "already read-only"),
		   "read_only outside writable trees: no mount, a notice");
		ok(mount_is(&r.pl, "/run", MNT_VIEW) && mount_is(&r.pl, "/tmp", MNT_TMP) && !mount_at(&r.pl, "/var/run"),
		   "ABI 7: a /run view and a private /tmp (/var/run is a link to /run)");
		is_int(rule_access(&r.pl, "/tmp", "/tmp (private)"), (long long)ll_fs_rights(7),
		       "the private /tmp is writable (and executable: no executable list)");
		ok(mount_is(&r.pl, "/run/resolv/stub.conf", MNT_KEEP), "resolv.conf's target kept inside the /run view");
		is_int(rule_access(&r.pl, "/r", ".writable[0]"), (long long)(ll_fs_rights(7) & ~LL_FS_EXECUTE),
		       "with mounts the workspace keeps every right");
		ok(r.pl.nleft == 0, "nothing left out: views enforce the pathname socket scope");
		char *js = plan_json(&r.pl);
		ok(js && strstr(js, "\"op\": \"private_tmp\"") && strstr(js, "\"carve\": \"mounts\"") && !strstr(js, "occupy"),
		   "--check JSON shows the mounts");
		free(js);
	}
	run_free(&r);

	/* a workspace under /tmp is brought back into the private /tmp */
	run_fit(&r, "{'writable':['/tmp/ws'],'protect':[]}", &h, &repo_fs);
	if (fit_ok(&r, "workspace under /tmp"))
		ok(mount_is(&r.pl, "/tmp", MNT_TMP) && mount_is(&r.pl, "/tmp/ws", MNT_KEEP) &&
		   mount_index(&r.pl, "/tmp") < mount_index(&r.pl, "/tmp/ws") && !mount_at(&r.pl, "/tmp")->content,
		   "private /tmp (a fresh tmpfs), then /tmp/ws kept");
	run_free(&r);
	run_fit(&r, "{'writable':['/tmp'],'protect':[]}", &h, &repo_fs);
	if (fit_ok(&r, "/tmp writable"))
		ok(mount_is(&r.pl, "/tmp", MNT_RW) && mount_at(&r.pl, "/tmp")->rw && mount_is(&r.pl, "/run", MNT_VIEW),
		   "a writable /tmp is the host's, brought back writable (nosuid) after the read-only root");
	run_free(&r);
	h = host_abi(9);
	run_fit(&r, "{'writable':['/r'],'protect':[]}", &h, &repo_fs);
	if (fit_ok(&r, "ABI 9"))
		ok(!mount_at(&r.pl, "/run") && mount_is(&r.pl, "/tmp", MNT_TMP) && (r.pl.handled_fs & LL_FS_RESOLVE_UNIX),
		   "ABI 9: no /run view (resolve_unix handled instead), still a private /tmp");
	run_free(&r);

	/* expansion */
	h = host_abi(7);
	h.mounts = false;
	h.mounts_errno = EPERM;
	run_fit(&r, prof, &h, &repo_fs);
	fit_refused(&r, "ABI 7 without mounts", ".unix_sockets", "\"unenforced\":{\"workspace_sockets\":true}");
	run_free(&r);
	static const char eprof[] =
		"{'writable':['/r'],'protect':['.git/hooks','.git/config','.envrc'],"
		"'hidden':['/home/u/.ssh'],'unenforced':{'workspace_sockets':true}}";
	run_fit(&r, eprof, &h, &repo_fs);
	if (fit_ok(&r, "carves by expansion")) {
		ok(r.pl.expansion && !r.pl.mount_ns && r.pl.nmounts == 0, "expansion, no namespace");
		is_int(rule_access(&r.pl, "/r", ".writable[0]"), (long long)LL_FS_READ_DIR,
		       "workspace root: listing only (no new entries)");
		ok(rule_access(&r.pl, "/r/src", ".writable[0]") == (long long)(ll_fs_rights(7) & ~LL_FS_EXECUTE),
		   "a sibling directory keeps every right");
		is_int(rule_access(&r.pl, "/r/.git", ".writable[0]"), (long long)LL_FS_READ_DIR,
		       ".git: listing only");
		ok(rule_access(&r.pl, "/r/.git/objects", ".writable[0]") > 0 &&
		   rule_access(&r.pl, "/r/.git/hooks", ".writable[0]") == 0 &&
		   rule_access(&r.pl, "/r/.git/config", ".writable[0]") == 0,
		   "objects writable; hooks and config get no writable rule");
		const struct ll_path_rule *hk = find_rule(&r.pl, "/r/.git/hooks", "read_only carve-out");
		ok(hk && hk->access == GRANT_READ, "hooks stay readable");
		ok(rules_under(&r.pl, "/home/u/.ssh") == 0, "hidden .ssh gets no rule at all");
		ok(sv_contains(&r.pl.notices, "new entries cannot be created directly in") &&
		   sv_contains(&r.pl.notices, "/r/.git"), "the notice names the directories");
		char *js = plan_json(&r.pl);
		ok(js && strstr(js, "\"carve\": \"expansion\""), "--check JSON says expansion");
		free(js);
	}
	run_free(&r);
	run_fit(&r, "{'writable':['/r'],'protect':['.git/hooks','.envrc'],'unenforced':{'host_sockets':true,'carve':true}}",
		&h, &repo_fs);
	if (fit_ok(&r, "carve left out")) {
		ok(rule_access(&r.pl, "/r", ".writable[0]") == (long long)(ll_fs_rights(7) & ~LL_FS_EXECUTE),
		   "nothing expanded: the workspace keeps every right");
		ok(r.pl.nleft == 3 && left_line_has(&r.pl, "allowed by .unenforced.carve") &&
		   left_line_has(&r.pl, "allowed by .unenforced.host_sockets"),
		   "each carve left out is named with its key");
	}
	run_free(&r);
	/* speccoder's trust_handoff: no protect list at all, in every mode;
	 * read_only still holds */
	for (int mounts = 0; mounts < 2; mounts++) {
		struct host hm = h;
		hm.mounts = mounts;
		run_fit(&r, "{'writable':['/r'],'read_only':['/r/README'],'protect_extra':['.npmrc'],'unenforced':{'host_sockets':true,'trust_handoff':true}}",
			&hm, &repo_fs);
		if (fit_ok(&r, mounts ? "trust_handoff, mounts" : "trust_handoff, no mounts")) {
			bool protected_any = false;
			for (size_t i = 0; i < r.pl.nmounts; i++)
				protected_any |= strstr(r.pl.mounts[i].where, "protect") != NULL;
			for (size_t i = 0; i < r.pl.nrules; i++)
				{
				char wb[PLAN_WHERE_MAX];
				protected_any |= strstr(plan_rule_where(&r.pl, &r.pl.rules[i], wb, sizeof wb), "protect") != NULL;
			}
			ok(!protected_any && sv_has_prefix(&r.pl.remarks, "unenforced.trust_handoff: no protect list"),
			   "trust_handoff (%s): no protect carve (built-in, .git names, protect_extra), remarked", mounts ? "mounts" : "expansion");
			ok(mounts ? mount_at(&r.pl, "/r/README") != NULL : rule_access(&r.pl, "/r", ".writable[0]") != (long long)(ll_fs_rights(7) & ~LL_FS_EXECUTE),
			   "trust_handoff (%s): read_only still holds", mounts ? "mounts" : "expansion");
		}
		run_free(&r);
	}
	h.mounts = true;
	run_fit(&r, "{'writable':['/r'],'protect':['.envrc'],'mounts':'off','unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "mounts off"))
		ok(r.pl.expansion && !r.pl.mount_ns, "mounts off: expansion even where mounts are possible");
	run_free(&r);

	/* symlinks, worktree .git files, placeholders, git dirs */
	h.mounts = true;
	run_fit(&r, "{'writable':['/r','/wt'],'protect':['.idea/','.git/hooks/','.vscode/','.envrc']}", &h, &repo_fs);
	if (fit_ok(&r, "symlink targets and worktrees, mounts")) {
		ok(mount_is(&r.pl, "/r/.idea", MNT_MASK_FILE) && mount_is(&r.pl, "/r/tools/idea", MNT_RO_BIND),
		   "a protected symlink is covered and its target inside a writable tree bound read-only");
		ok(mount_is(&r.pl, "/wt/.git", MNT_RO_BIND), "a worktree's .git file is bound read-only");
		ok(!mount_at(&r.pl, "/wt/.vscode") && !mount_at(&r.pl, "/wt/.envrc") &&
		   sv_contains(&r.pl.notices, "\"/wt/.envrc\": does not exist"),
		   "no placeholders: missing '.vscode/' and '.envrc' get no mount, a notice each");
	}
	run_free(&r);
	run_fit(&r, "{'writable':['/r/.git']}", &h, &repo_fs);
	if (fit_ok(&r, "writable git dir"))
		ok(mount_is(&r.pl, "/r/.git/hooks", MNT_RO_BIND) && mount_is(&r.pl, "/r/.git/config", MNT_RO_BIND) &&
		   !mount_at(&r.pl, "/r/.git/.envrc") && !mount_at(&r.pl, "/r/.git/.git"),
		   "a writable .git gets the .git names relative to its repository, no others");
	run_free(&r);
	h.mounts = false;
	run_fit(&r, "{'writable':['/r','/wt'],'protect':['.idea/','.git/hooks/'],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "symlink targets and worktrees, expansion")) {
		ok(rule_access(&r.pl, "/r/tools/idea", ".writable[0]") == 0 &&
		   find_rule(&r.pl, "/r/tools/idea", "read_only carve-out") != NULL,
		   "the symlink's target loses its writable rule, stays readable");
		ok(rule_access(&r.pl, "/wt/.git", ".writable[1]") == 0 &&
		   find_rule(&r.pl, "/wt/.git", "read_only carve-out") != NULL,
		   "a worktree's .git file loses its writable rule, stays readable");
	}
	run_free(&r);
	h.mounts = true;

	/* loopback */
	run_fit(&r, "{'network':'loopback'}", &h, &repo_fs);
	if (fit_ok(&r, "loopback"))
		ok(r.pl.net_ns && !sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, 2)),
		   "loopback: a network namespace, AF_INET allowed inside");
	run_free(&r);
	h.mounts = false;
	run_fit(&r, "{'network':'loopback','unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "loopback without a namespace"))
		ok(!r.pl.net_ns && sc_find(&r.pl, "socket", 1, CMP1(0, SC_EQ, 2)) &&
		   sv_contains(&r.pl.notices, "enforced as \"off\""),
		   "loopback without a namespace: enforced as off, with a notice");
	run_free(&r);
}

static void test_caps(void)
{
	struct host h = host_abi(9);
	struct run r;
	run_fit(&r, "{'capabilities':['CAP_NET_BIND_SERVICE']}", &h, &big_fs);
	fit_refused(&r, "capability not held", ".capabilities[0]", "cannot be kept");
	run_free(&r);

	h.cap_permitted = 1ULL << CAP_NET_BIND_SERVICE_NR;
	run_fit(&r, "{'capabilities':['net_bind_service']}", &h, &big_fs);
	if (fit_ok(&r, "capability held"))
		ok(r.pl.keep_caps == 1ULL << CAP_NET_BIND_SERVICE_NR, "keep_caps is CAP_NET_BIND_SERVICE");
	run_free(&r);

	run_fit(&r, "{'capabilities':['net_bind_service','sys_admin']}", &h, &big_fs);
	fit_refused(&r, "second capability not held", ".capabilities[1]", "cannot be kept");
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* 5. plan_json().                                                    */

static void test_plan_json(void)
{
	struct host h = host_abi(9);
	struct run r;
	run_fit(&r, speccoder, &h, &big_fs);
	if (!fit_ok(&r, "plan_json: speccoder plan")) {
		run_free(&r);
		return;
	}
	char *s = plan_json(&r.pl);
	json_error_t je;
	json_t *j = s ? json_loads(s, JSON_REJECT_DUPLICATES, &je) : NULL;
	if (ok(json_is_object(j), "plan_json output parses back as an object")) {
		json_t *rules = json_object_get(json_object_get(j, "landlock"), "path_rules");
		json_t *sc = json_object_get(json_object_get(j, "seccomp"), "rules");
		ok(json_is_array(rules) && json_array_size(rules) == r.pl.nrules &&
		   json_is_array(sc) && json_array_size(sc) == r.pl.nsc &&
		   json_is_array(json_object_get(j, "left_out")),
		   "landlock.path_rules, seccomp.rules, left_out: arrays of the plan's sizes");
		bool create = false;
		size_t i;
		json_t *o;
		json_array_foreach(rules, i, o)
			if (strcmp(json_string_value(json_object_get(o, "path")), "/tmp/x") == 0)
				create = json_is_true(json_object_get(o, "create"));
		ok(create, "the tmp rule says \"create\": true");
		ok(json_integer_value(json_object_get(json_object_get(j, "landlock"), "abi")) == 9,
		   "landlock.abi is 9");
	}
	json_decref(j);
	free(s);
	run_free(&r);

	struct host h0 = host_abi(0);
	run_fit(&r, "{'best_effort':true}", &h0, &big_fs);
	s = r.rc == 0 ? plan_json(&r.pl) : NULL;
	j = s ? json_loads(s, 0, &je) : NULL;
	json_t *left = json_object_get(j, "left_out");
	ok(json_array_size(left) == 1 &&
	   strcmp(json_string_value(json_object_get(json_array_get(left, 0), "allowed_by")), ".best_effort") == 0,
	   "plan_json left_out lists Landlock, allowed_by .best_effort");
	json_decref(j);
	free(s);
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* 6. carve_grant with two excluded paths at different depths.        */

static void test_carve(void)
{
	struct plan pl;
	struct sb_err e;
	struct strvec excl = {0};
	sv_push(&excl, "/dev");
	sv_push(&excl, "/home/u/.ssh");
	struct fs_view v = view_of(&big_fs);

	memset(&pl, 0, sizeof pl);
	memset(&e, 0, sizeof e);
	pl.handled_fs = ll_fs_rights(9);
	int rc = carve_grant(&pl, &v, "/", false, -1, FS_DIR, GRANT_READ, ".readable[0]", &excl, &e);
	is_int(rc, 0, "carve_grant / around /dev and /home/u/.ssh");
	ok(rule_access(&pl, "/", NULL) == LL_FS_READ_DIR &&
	   rule_access(&pl, "/home", NULL) == LL_FS_READ_DIR &&
	   rule_access(&pl, "/home/u", NULL) == LL_FS_READ_DIR,
	   "/, /home, /home/u: read_dir only");
	ok(rule_access(&pl, "/usr", NULL) == GRANT_READ && rule_access(&pl, "/etc", NULL) == GRANT_READ &&
	   rule_access(&pl, "/tmp", NULL) == GRANT_READ && rule_access(&pl, "/devel", NULL) == GRANT_READ,
	   "level 1 siblings /usr, /etc, /tmp, /devel granted whole");
	ok(rule_access(&pl, "/home/v", NULL) == GRANT_READ,
	   "level 2 sibling /home/v granted whole");
	ok(rule_access(&pl, "/home/u/proj", NULL) == GRANT_READ &&
	   rule_access(&pl, "/home/u/.ssh2", NULL) == GRANT_READ,
	   "level 3 siblings /home/u/proj and /home/u/.ssh2 granted whole");
	const struct ll_path_rule *b = find_rule(&pl, "/home/u/.bashrc", NULL);
	ok(b && !b->is_dir && b->access == LL_FS_READ_FILE, "level 3 file .bashrc: read_file only");
	ok(rules_under(&pl, "/home/u/.ssh") == 0 && rules_under(&pl, "/dev") == 0,
	   "nothing granted on or under /home/u/.ssh and /dev");
	ok(!find_rule(&pl, "/lib", NULL) && !find_rule(&pl, "/devlink", NULL) &&
	   !find_rule(&pl, "/usr/bin", NULL),
	   "no rule on symlinks, none below a tree granted whole");
	ok(pl.expanded.n == 3 && sv_has(&pl.expanded, "/") && sv_has(&pl.expanded, "/home") &&
	   sv_has(&pl.expanded, "/home/u"),
	   "expanded is exactly /, /home, /home/u");
	ok(!sv_has(&big_fs.listed, "/dev") && !sv_has(&big_fs.listed, "/home/u/.ssh"),
	   "excluded directories are never listed");
	plan_free(&pl);

	/* execute only: no listing right to give along the way */
	pl.handled_fs = ll_fs_rights(9);
	carve_grant(&pl, &v, "/", false, -1, FS_DIR, LL_FS_EXECUTE, ".executable[0]", &excl, &e);
	ok(!find_rule(&pl, "/", NULL) && !find_rule(&pl, "/home/u", NULL) &&
	   rule_access(&pl, "/home/u/proj", NULL) == LL_FS_EXECUTE,
	   "execute only: no rule on the way, execute on the siblings");
	plan_free(&pl);

	/* listing fails: fail closed, naming the directory */
	struct fs_view u = view_of(&unlistable_fs);
	pl.handled_fs = ll_fs_rights(9);
	rc = carve_grant(&pl, &u, "/", false, -1, FS_DIR, GRANT_READ, ".readable[0]", &excl, &e);
	ok(rc == -1 && strcmp(e.where, ".readable[0]") == 0 && strcmp(e.path, "/home/u") == 0 &&
	   strstr(e.why, "Permission denied"),
	   "unlistable /home/u: refused at .readable[0] naming /home/u");
	/* The listing error names the excluded path it was going around,
	 * not the first excluded path ("/dev"). */
	like(e.why, "/home/u/.ssh", "the listing error names the path gone around (/home/u/.ssh)");
	plan_free(&pl);
	sv_free(&excl);

	/* a carve-out path too long to build: named as the absolute path */
	char rel[5000];
	memset(rel, 'a', sizeof rel - 1);
	rel[sizeof rel - 1] = 0;
	memset(&pl, 0, sizeof pl);
	memset(&e, 0, sizeof e);
	char missing[64];
	rc = carve_mounts(&pl, &v, "/home/u", rel, false, ".protect[0]", missing, sizeof missing, &e);
	ok(rc == -1 && strcmp(e.where, ".protect[0]") == 0 &&
	   strncmp(e.path, "/home/u/aaaa", 12) == 0 && strcmp(e.why, "path too long") == 0,
	   "carve_mounts: a path too long is named absolute (/home/u/aaa...)");
	plan_free(&pl);
}

/* ------------------------------------------------------------------ */
/* Small pure helpers used by the messages above.                     */

static void test_helpers(void)
{
	struct sb_err e;
	char line[1400];
	sb_fail(&e, ".writable[1]", "/srv/x", "%s", "No such file or directory");
	sb_err_line(&e, line, sizeof line);
	is_str(line, "profile .writable[1] \"/srv/x\": No such file or directory",
	       "sb_err_line renders DESIGN.md's diagnostic form");
	ok((ll_fs_rights(3) & LL_FS_TRUNCATE) && !(ll_fs_rights(3) & LL_FS_IOCTL_DEV) &&
	   ll_net_rights(3) == 0 && ll_scopes(6) == (LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET) &&
	   ll_abi_of(0, LL_FS_RESOLVE_UNIX) == 9,
	   "Landlock rights per ABI (truncate 3, ioctl_dev 5, scopes 6, resolve_unix 9)");
	char n[64];
	cap_name(CAP_NET_BIND_SERVICE_NR, n, sizeof n);
	is_str(n, "CAP_NET_BIND_SERVICE", "cap_name(10)");
	ok(path_within("/a/b", "/a/b") && path_within("/a/b/c", "/a/b") &&
	   path_within("/x", "/") && path_within("/", "/"),
	   "path_within: the path itself, below it, anything below /");
	ok(!path_within("/a/bc", "/a/b") && !path_within("/a", "/a/b") &&
	   !path_within("/b", "/a"),
	   "path_within: a longer name, the parent and a sibling are not within");
	ok(env_entry_is("PATH=/bin", "PATH", 4) && env_entry_is("PATH=", "PATHX", 4) &&
	   !env_entry_is("PATHS=/x", "PATH", 4) && !env_entry_is("PATH", "PATH", 4) &&
	   !env_entry_is("PAT=1", "PATH", 4),
	   "env_entry_is: NAME= only, by the first n bytes of the name");
}


/* Defaults that never fight the user: nothing created, built-in protect
 * never costs function, a private /tmp, an ungranted home reads as absent,
 * quiet runs, one refusal for every part. */
static void test_defaults_never_fight(void)
{
	struct host h = host_abi(7);
	struct run r;
	/* built-in protect with mounts: existing names bound, missing ones
	 * listed for --check only (no notice, no placeholder) */
	run_fit(&r, "{'writable':['/r']}", &h, &repo_fs);
	if (fit_ok(&r, "built-in protect, mounts")) {
		ok(mount_is(&r.pl, "/r/.git/config", MNT_RO_BIND) && mount_is(&r.pl, "/r/.git/hooks", MNT_RO_BIND),
		   "existing .git/config and .git/hooks bound read-only");
		ok(!mount_at(&r.pl, "/r/.envrc") && sv_has(&r.pl.unprotected, "/r/.envrc") &&
		   sv_has(&r.pl.unprotected, "/r/.git/info"),
		   "missing built-in names: no mount, listed as unprotected");
		ok(r.pl.notices.n == 0 && r.pl.nleft == 0, "nothing to say on stderr");
		char *js = plan_json(&r.pl);
		ok(js && strstr(js, "\"unprotected\"") && strstr(js, "/r/.envrc"), "--check lists the unprotected names");
		free(js);
	}
	run_free(&r);
	/* built-in protect without a namespace: the workspace root and .git
	 * keep every right; what is left out is named once */
	h.mounts = false;
	h.mounts_errno = EPERM;
	snprintf(h.mounts_why, sizeof h.mounts_why, "mount propagation: Invalid argument: the root of this chroot is not a mount point");
	run_fit(&r, "{'writable':['/r'],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "built-in protect, no namespace")) {
		uint64_t all = ll_fs_rights(7) & ~LL_FS_EXECUTE;
		ok(rule_access(&r.pl, "/r", ".writable[0]") == (long long)all && rules_under(&r.pl, "/r/.git") == 0,
		   "the workspace root keeps every right, nothing expanded under it");
		ok(!r.pl.expansion || r.pl.expanded.n == 0, "no expansion at all");
		ok(left_line_has(&r.pl, "built-in protect of /r/.git/hooks, /r/.git/config") &&
		   left_line_has(&r.pl, "the root of this chroot is not a mount point"),
		   "one left-out notice names the built-in names and why there is no namespace");
		ok(sv_has(&r.pl.unprotected, "/r/.envrc"), "missing ones are listed for --check");
	}
	run_free(&r);
	/* explicit entries still expand without a namespace */
	run_fit(&r, "{'writable':['/r'],'read_only':['/r/README'],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "explicit read_only, no namespace"))
		ok(r.pl.expansion && rule_access(&r.pl, "/r/README", ".writable[0]") == 0 &&
		   find_rule(&r.pl, "/r/README", "read_only carve-out") != NULL,
		   "an explicit read_only entry is still expanded around");
	run_free(&r);
	/* an ungranted HOME: absent, never forbidden */
	snprintf(h.home, sizeof h.home, "/home/u");
	run_fit(&r, "{'readable':['/usr'],'writable':['/r'],'tmp':'/r/tmp','unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "ungranted home, no namespace, tmp"))
		ok(r.pl.home && strcmp(r.pl.home, "/r/tmp") == 0, "HOME points at tmp");
	run_free(&r);
	run_fit(&r, "{'readable':['/usr'],'writable':['/r'],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "ungranted home, no namespace, no tmp"))
		ok(r.pl.home && strcmp(r.pl.home, "/nonexistent") == 0, "HOME is /nonexistent (absent)");
	run_free(&r);
	run_fit(&r, "{'readable':['/usr'],'writable':['/r'],'env':{'set':{'HOME':'/home/u'}},'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "HOME set by the profile, no namespace"))
		ok(!r.pl.home && left_line_has(&r.pl, "$HOME \"/home/u\" as absent"),
		   "a HOME the profile sets is kept, and the gap is named");
	run_free(&r);
	run_fit(&r, "{'writable':['/r'],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "granted home"))
		ok(!r.pl.home, "a readable home is left alone");
	run_free(&r);
	h.mounts = true;
	run_fit(&r, "{'readable':['/usr','/home/u/.ssh'],'writable':['/r']}", &h, &repo_fs);
	if (fit_ok(&r, "ungranted home, mounts"))
		ok(mount_is(&r.pl, "/home/u", MNT_VIEW) && mount_is(&r.pl, "/home/u/.ssh", MNT_KEEP) && !r.pl.home,
		   "an empty view of the home, the granted tree inside brought back");
	run_free(&r);
	h.home[0] = 0;
	/* private /tmp: the profile's tmp bound there, or a tmpfs */
	run_fit(&r, "{'writable':['/r'],'tmp':'/r/tmp'}", &h, &repo_fs);
	if (fit_ok(&r, "tmp elsewhere")) {
		const struct mount_rule *m = mount_at(&r.pl, "/tmp");
		ok(m && m->op == MNT_TMP && m->content && strcmp(m->content, "/r/tmp") == 0, "tmp is bound on /tmp");
	}
	run_free(&r);
	run_fit(&r, "{'readable':['/','/tmp'],'writable':['/r']}", &h, &repo_fs);
	if (fit_ok(&r, "explicit readable /tmp"))
		ok(!mount_at(&r.pl, "/tmp"), "an explicit readable /tmp is the host's");
	run_free(&r);
	/* a hidden path under the private /tmp: nothing to cover */
	run_fit(&r, "{'writable':['/r'],'hidden':['/tmp/ws']}", &h, &repo_fs);
	if (fit_ok(&r, "hidden under /tmp"))
		ok(!mount_at(&r.pl, "/tmp/ws") && mount_is(&r.pl, "/tmp", MNT_TMP), "dropped: /tmp is private anyway");
	run_free(&r);
	run_fit(&r, "{'writable':['/tmp/ws'],'read_only':['/tmp/ws/x'],'hidden':['/tmp/ws']}", &h, &repo_fs);
	ok(r.rc == -1, "hidden equal to a writable tree is still an error");
	run_free(&r);
	/* quiet: default devices and missing caches say nothing */
	run_fit(&r, "{'writable':['/r'],'caches':['/nope']}", &h, &repo_fs);
	if (fit_ok(&r, "missing cache"))
		ok(r.pl.notices.n == 0, "a missing cache is silent");
	run_free(&r);
	run_fit(&r, "{'writable':['/r'],'devices':['/dev/nope']}", &h, &repo_fs);
	if (fit_ok(&r, "missing listed device"))
		ok(sv_contains(&r.pl.notices, ".devices[0] \"/dev/nope\": skipped"), "a listed device that is missing gets its notice");
	run_free(&r);
	/* holes (issue 10): a hidden file inside a read_only carve-out stays
	 * unreadable in expansion; hiding / is refused */
	h.mounts = false;
	run_fit(&r, "{'writable':['/r'],'read_only':['/r/.git'],'hidden':['/r/.git/config'],'protect':[],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "hidden inside read_only, expansion"))
		ok(rules_under(&r.pl, "/r/.git/config") == 0 && find_rule(&r.pl, "/r/.git/HEAD", "read_only carve-out") != NULL,
		   "the read_only tree is readable again around the hidden file, which gets no rule");
	run_free(&r);
	/* a path both hidden and read-only (hidden and protected, hidden and
	 * read_only, or a read-only file inside a hidden tree): hidden wins,
	 * as the mask over the read-only bind does with mounts (found by
	 * tests/stress: the protected name was readable again) */
	static const char *const both[][2] = {
		{"{'writable':['/r'],'hidden':['/r/.git/config'],'protect_extra':['.git/config'],'unenforced':{'workspace_sockets':true}}", "/r/.git/config"},
		{"{'writable':['/r'],'hidden':['/r/.git/config'],'read_only':['/r/.git/config'],'protect':[],'unenforced':{'workspace_sockets':true}}", "/r/.git/config"},
		{"{'writable':['/r'],'hidden':['/r/.git'],'read_only':['/r/.git/config'],'protect':[],'unenforced':{'workspace_sockets':true}}", "/r/.git"},
	};
	for (size_t b = 0; b < sizeof both / sizeof both[0]; b++) {
		run_fit(&r, both[b][0], &h, &repo_fs);
		if (fit_ok(&r, "hidden and read-only, expansion"))
			ok(rules_under(&r.pl, both[b][1]) == 0, "hidden and read-only, expansion (case %zu): %s gets no rule", b, both[b][1]);
		run_free(&r);
	}
	h.mounts = true;
	run_fit(&r, "{'hidden':['/']}", &h, &repo_fs);
	fit_refused(&r, "hidden /", ".hidden[0]", "would hide everything");
	run_free(&r);
	/* a profile path through a symlink inside a writable tree (planted
	 * by an earlier run) is refused; one outside every writable tree, or
	 * a writable tree that is itself a link, is followed as usual */
	run_fit(&r, "{'writable':['/r'],'tmp':'/r/.vscode/tmp'}", &h, &repo_fs);
	fit_refused(&r, "tmp through a symlink in the workspace", ".tmp", "goes through the symlink /r/.vscode inside the writable tree /r");
	run_free(&r);
	run_fit(&r, "{'writable':['/r','/r/.idea/x']}", &h, &repo_fs);
	fit_refused(&r, "a second writable tree through a symlink in the first", ".writable[1]", "the symlink /r/.idea");
	run_free(&r);
	run_fit(&r, "{'writable':['/r'],'readable':['/usr','/r/.vscode']}", &h, &repo_fs);
	fit_refused(&r, "a readable entry through a symlink in the workspace", ".readable[1]", "could have planted");
	run_free(&r);
	run_fit(&r, "{'writable':['/r'],'readable':['/var/run']}", &h, &repo_fs);
	fit_ok(&r, "a symlink outside every writable tree (/var/run) is followed");
	run_free(&r);
	/* mounts required and the signal scope: both in one refusal */
	struct host h4 = host_abi(4);
	h4.mounts = false;
	run_fit(&r, "{'mounts':'required','unix_sockets':'none'}", &h4, &repo_fs);
	ok(r.rc == 1 && r.pl.nrefused == 2, "two refused parts, one answer");
	like(r.err.why, "\"unenforced\":{\"signal_scope\":true},\"mounts\":\"auto\"", "... with the JSON for both");
	run_free(&r);
}

/* Issue 10, classes 3 and 4: a hidden path must stay hidden whatever the
 * host does during the run — replaced by rename (a mask sits on a name)
 * or created when it did not exist (no mask at all).  Outside the writable
 * trees Landlock goes around it in mount mode too; inside them mounts are
 * all there is, and --check says so. */
static void test_hidden_held(void)
{
	struct host h = host_abi(7);
	struct run r;
	static const char prof[] =
		"{'writable':['/r'],'protect':['.git/config'],'unenforced':{'workspace_sockets':true},"
		"'hidden':['/home/u/.ssh','/home/u/.aws/credentials','/r/src/secret','/nowhere/x']}";
	run_fit(&r, prof, &h, &repo_fs);
	if (fit_ok(&r, "hidden paths with mounts")) {
		ok(mount_is(&r.pl, "/home/u/.ssh", MNT_MASK_DIR), "the existing hidden directory is masked");
		ok(rules_under(&r.pl, "/home/u/.ssh") == 0 && rules_under(&r.pl, "/home/u/.aws") == 0,
		   "... and, like the missing ~/.aws/credentials, gets no Landlock rule");
		is_int(rule_access(&r.pl, "/home/u", ".readable[0]"), (long long)LL_FS_READ_DIR,
		       "the directory holding them is listable only (a file renamed in gets nothing)");
		is_int(rule_access(&r.pl, "/home/u/.bashrc", ".readable[0]"), (long long)(LL_FS_READ_FILE | LL_FS_EXECUTE),
		       "their siblings stay readable (and executable, by default)");
		ok(rule_access(&r.pl, "/nowhere", ".readable[0]") == 0 && rule_access(&r.pl, "/usr", ".readable[0]") != 0,
		   "a hidden path under a missing top-level directory: / goes around it");
		ok(sv_contains(&r.pl.remarks, "masked and also left out of the Landlock rules") &&
		   sv_contains(&r.pl.remarks, "/home/u/.ssh, /home/u/.aws/credentials, /nowhere/x"),
		   "a remark names them (and what the host creates next to them is not readable inside)");
		ok(sv_contains(&r.pl.remarks, "held by mounts on their names") &&
		   sv_contains(&r.pl.remarks, "rights inside: /r/.git/config"),
		   "--check remarks that .git/config is held by a mount on its name only");
		ok(sv_contains(&r.pl.remarks, "do not exist have no mount: created during the run (by the host or the command) they are readable and writable inside: /r/src/secret"),
		   "... and that a missing hidden name inside the workspace is not held");
		is_int(rule_access(&r.pl, "/r", ".writable[0]"), (long long)(ll_fs_rights(7) & ~LL_FS_EXECUTE),
		       "the workspace keeps every right (nothing inside it costs function)");
	}
	run_free(&r);
	/* under the private /tmp: not there at all, nothing to go around */
	run_fit(&r, "{'writable':['/r'],'protect':[],'hidden':['/tmp/ws'],'unenforced':{'workspace_sockets':true}}", &h, &repo_fs);
	if (fit_ok(&r, "hidden under the private /tmp"))
		ok(!sv_contains(&r.pl.remarks, "masked and also left out"), "no expansion for a path the private /tmp replaces");
	run_free(&r);
	/* expansion: a missing hidden path is gone around, in a writable tree too */
	h.mounts = false;
	h.mounts_errno = EPERM;
	run_fit(&r, prof, &h, &repo_fs);
	if (fit_ok(&r, "hidden paths by expansion")) {
		ok(rule_access(&r.pl, "/r/src", ".writable[0]") == (long long)LL_FS_READ_DIR &&
		   rule_access(&r.pl, "/r/src", ".readable[0]") == (long long)LL_FS_READ_DIR,
		   "the directory where the missing /r/src/secret would appear: listable only, for both grants");
		ok(rules_under(&r.pl, "/home/u/.aws") == 0 &&
		   rule_access(&r.pl, "/home/u", ".readable[0]") == (long long)LL_FS_READ_DIR,
		   "~/.aws/credentials (missing): ~ listable only, nothing under ~/.aws granted");
	}
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* git's config format (policy/gitconfig.c)                           */

static int cfg_collect(void *arg, const struct gitcfg_item *it)
{
	char *out = arg;
	size_t n = strlen(out);
	snprintf(out + n, 2048 - n, "%s|%s|%s=%s;", it->section, it->subsection ? it->subsection : "-",
		 it->key, it->value ? it->value : "(true)");
	return 0;
}

static void test_gitconfig(void)
{
	/* input, what the callback sees, the first malformed line (0: none);
	 * expectations checked against git 2.39's `git config --file F --list` */
	static const struct { const char *in, *want; size_t bad; } t[] = {
		{"[core]\n\thooksPath = .husky/_\n", "core|-|hookspath=.husky/_;", 0},
		{"[CoRe]\nHooksPATH=x", "core|-|hookspath=x;", 0},
		{"[includeIf \"gitdir:~/Work/\"]\npath = a.inc\n", "includeif|gitdir:~/Work/|path=a.inc;", 0},
		{"[Section.SubSection]\nk = v\n", "section|subsection|k=v;", 0},
		{"[s \"a\\\"b\\\\c\\x\"]\nk\n", "s|a\"b\\cx|k=(true);", 0},
		{"[s]\nk = \"  spaced \" tail  \n", "s|-|k=  spaced  tail;", 0},
		{"[s]\nk = a\\tb\\nc\\bd\\\\e\\\"f\n", "s|-|k=a\tb\nc\bd\\e\"f;", 0},
		{"[s]\nk = one \\\n  two\n", "s|-|k=one   two;", 0},
		{"[s]\r\nk = v\r\nj = w\r\n", "s|-|k=v;s|-|j=w;", 0},
		{"\xef\xbb\xbf[s]\nk = v", "s|-|k=v;", 0},
		{"# c\n; c\n[s] ; c\nk = v # c\nj = \"#x\" ;c\n", "s|-|k=v;s|-|j=#x;", 0},
		{"[s]\nk = v\n[t]\nbad line\nk2 = w\n", "s|-|k=v;", 4},
		{"[s]\nk = \"open\n", "", 2},
		{"[s]\nk = \\q\n", "", 2},
		{"k = v\n", "", 1},
		{"[s \"x\" ]\nk = v\n", "", 1},
		{"[s \"x\nk = v\n", "", 1},
		{"[unterminated", "", 1},
		{"[s]\n9k = v\n", "", 2},
		{"[s]\nk v\n", "", 2},
		{"[s]\nk-2 = v\\", "s|-|k-2=v;", 0},
		{"[s]\nk = a\\\n", "s|-|k=a;", 0},
		{"[a]k=1\n[b]\nj", "a|-|k=1;b|-|j=(true);", 0},
		{"", "", 0},
		{"\n\n\n", "", 0},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char got[2048] = "";
		size_t bad = gitcfg_parse(t[i].in, strlen(t[i].in), cfg_collect, got);
		is_str(got, t[i].want, "gitconfig %zu: items", i);
		is_int((int)bad, (int)t[i].bad, "gitconfig %zu: first malformed line", i);
	}
	/* not NUL-terminated, every prefix of a real file, and bytes 0-255 in
	 * every position: no crash, no read past the length (ASan) */
	static const char real[] = "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://x/y.git\n"
				   "[includeIf \"gitdir/i:C:\\\\x\"]\n\tpath = \"q\\\"uoted\" ; c\n";
	for (size_t n = 0; n <= sizeof real - 1; n++) {
		char *b = xmalloc(n ? n : 1);
		memcpy(b, real, n);
		char got[2048] = "";
		gitcfg_parse(b, n, cfg_collect, got);
		free(b);
	}
	ok(1, "gitconfig: every prefix of a real file parses without a crash");
	char got[2048] = "";
	gitcfg_parse(real, sizeof real - 1, cfg_collect, got);
	like(got, "includeif|gitdir/i:C:\\x|path=q\"uoted;", "gitconfig: escapes in subsection and value");
}

static void test_gitcfg_path(void)
{
	char out[64];
	ok(gitcfg_path("~/x.inc", "/home/u", "/r/.git", out, sizeof out) == 0 && strcmp(out, "/home/u/x.inc") == 0,
	   "gitcfg_path: ~/ takes HOME");
	ok(gitcfg_path("~", "/home/u", "/r", out, sizeof out) == 0 && strcmp(out, "/home/u") == 0, "gitcfg_path: ~ alone");
	ok(gitcfg_path("x.inc", "/home/u", "/r/.git", out, sizeof out) == 0 && strcmp(out, "/r/.git/x.inc") == 0,
	   "gitcfg_path: relative to the base");
	ok(gitcfg_path("/abs", NULL, "/r", out, sizeof out) == 0 && strcmp(out, "/abs") == 0, "gitcfg_path: absolute kept");
	ok(gitcfg_path(":(optional)~/o", "/h", "/r", out, sizeof out) == 0 && strcmp(out, "/h/o") == 0,
	   "gitcfg_path: :(optional) dropped");
	ok(gitcfg_path("~bob/x", "/h", "/r", out, sizeof out) < 0, "gitcfg_path: ~user not expanded");
	ok(gitcfg_path("~/x", NULL, "/r", out, sizeof out) < 0, "gitcfg_path: ~ without a HOME");
	ok(gitcfg_path("%(prefix)/etc/x", "/h", "/r", out, sizeof out) < 0, "gitcfg_path: %%(prefix) not expanded");
	ok(gitcfg_path("", "/h", "/r", out, sizeof out) < 0, "gitcfg_path: empty");
	ok(gitcfg_path("a-very-long-name-that-does-not-fit-in-the-buffer-given-here-at-all", "/h", "/r", out, sizeof out) < 0,
	   "gitcfg_path: too long");
}

/* A workspace /w holding: repository a (core.hooksPath .husky/_, an
 * include and an includeIf target, a linked worktree /w/wt), repository
 * b with a submodule vendor/lib (gitfile into .git/modules), a deep
 * repository beyond the walk's depth, and a home /w/home. */
static const struct fent git_tree[] = {
	{"/", FS_DIR, NULL, 0, 0},
	{"/w", FS_DIR, NULL, 0, 0},
	{"/w/a", FS_DIR, NULL, 0, 0},
	{"/w/a/.git", FS_DIR, NULL, 0, 0},
	{"/w/a/.git/config", FS_FILE, NULL, 0, 0},
	{"/w/a/.git/hooks", FS_DIR, NULL, 0, 0},
	{"/w/a/.git/worktrees", FS_DIR, NULL, 0, 0},
	{"/w/a/.git/worktrees/wt", FS_DIR, NULL, 0, 0},
	{"/w/a/.git/worktrees/wt/commondir", FS_FILE, NULL, 0, 0},
	{"/w/a/.git/worktrees/wt/gitdir", FS_FILE, NULL, 0, 0},
	{"/w/a/.husky", FS_DIR, NULL, 0, 0},
	{"/w/a/.husky/_", FS_DIR, NULL, 0, 0},
	{"/w/a/inc", FS_DIR, NULL, 0, 0},
	{"/w/a/inc/one.inc", FS_FILE, NULL, 0, 0},
	{"/w/a/inc/two.inc", FS_FILE, NULL, 0, 0},
	{"/w/a/inc/cond.inc", FS_FILE, NULL, 0, 0},
	{"/w/wt", FS_DIR, NULL, 0, 0},
	{"/w/wt/.git", FS_FILE, NULL, 0, 0},
	{"/w/b", FS_DIR, NULL, 0, 0},
	{"/w/b/.git", FS_DIR, NULL, 0, 0},
	{"/w/b/.git/config", FS_FILE, NULL, 0, 0},
	{"/w/b/.git/modules", FS_DIR, NULL, 0, 0},
	{"/w/b/.git/modules/lib", FS_DIR, NULL, 0, 0},
	{"/w/b/.git/modules/lib/config", FS_FILE, NULL, 0, 0},
	{"/w/b/.git/modules/lib/hooks", FS_DIR, NULL, 0, 0},
	{"/w/b/.gitmodules", FS_FILE, NULL, 0, 0},
	{"/w/b/vendor", FS_DIR, NULL, 0, 0},
	{"/w/b/vendor/lib", FS_DIR, NULL, 0, 0},
	{"/w/b/vendor/lib/.git", FS_FILE, NULL, 0, 0},
	{"/w/b/vendor/lib/.githooks", FS_DIR, NULL, 0, 0},
	{"/w/d1", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3/d4", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3/d4/d5", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3/d4/d5/.git", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3/d4/d5/.git/config", FS_FILE, NULL, 0, 0},
	{"/w/d1/d2/d3/r4", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3/r4/.git", FS_DIR, NULL, 0, 0},
	{"/w/d1/d2/d3/r4/.git/config", FS_FILE, NULL, 0, 0},
	{"/w/home", FS_DIR, NULL, 0, 0},
	{"/w/home/.ssh", FS_DIR, NULL, 0, 0},
	{"/w/home/.bash_profile", FS_FILE, NULL, 0, 0},
	{"/w/home/.gitconfig", FS_FILE, NULL, 0, 0},
	{"/w/home/.kube", FS_DIR, NULL, 0, 0},
	{"/w/home/.kube/config", FS_FILE, NULL, 0, 0},
	{"/w/home/global.inc", FS_FILE, NULL, 0, 0},
	{"/w/fifo", FS_FILE, NULL, 0, 0},
	{NULL, FS_MISSING, NULL, 0, 0},
};
static struct fakefs git_fs = {git_tree, {0}, -1};

static const struct ffile git_files[] = {
	{"/w/a/.git/config", "[core]\n\tbare = false\n\thooksPath = .husky/_\n[include]\n\tpath = ../inc/one.inc\n"
			     "[includeIf \"gitdir:~/x/\"]\n\tpath = ../inc/cond.inc\n"},
	{"/w/a/inc/one.inc", "[include]\n\tpath = two.inc\n"},
	{"/w/a/inc/two.inc", "[core]\n\tfsmonitor = true\n"},
	{"/w/a/.git/worktrees/wt/commondir", "../..\n"},
	{"/w/wt/.git", "gitdir: /w/a/.git/worktrees/wt\n"},
	{"/w/b/.gitmodules", "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = ../lib\n"},
	{"/w/b/vendor/lib/.git", "gitdir: ../../.git/modules/lib\n"},
	{"/w/b/.git/modules/lib/config", "[core]\n\tworktree = ../../../vendor/lib\n\thooksPath = .githooks\n"},
	{"/w/home/.gitconfig", "[include]\n\tpath = ~/global.inc\n"},
	{NULL, NULL},
};

static void test_git_routes(void)
{
	struct host h = host_abi(7);
	struct run r;
	fake_files = git_files;
	strcpy(h.home, "/w/home");
	run_fit(&r, "{'writable':['/w']}", &h, &git_fs);
	if (fit_ok(&r, "git routes")) {
		static const struct { const char *path, *from; } want[] = {
			{"/w/a/.git/config", "repository /w/a"},
			{"/w/a/.git/hooks", "repository /w/a"},
			{"/w/a/.husky/_", "core.hooksPath in /w/a/.git/config"},
			{"/w/a/inc/one.inc", "include.path in /w/a/.git/config"},
			{"/w/a/inc/two.inc", "include.path in /w/a/inc/one.inc"},
			{"/w/a/inc/cond.inc", "includeIf \"gitdir:~/x/\".path in /w/a/.git/config"},
			{"/w/a/.git/worktrees/wt/commondir", "linked worktree /w/a/.git/worktrees/wt"},
			{"/w/a/.git/worktrees/wt/gitdir", "linked worktree /w/a/.git/worktrees/wt"},
			{"/w/wt/.git", "gitfile of /w/wt"},
			{"/w/b/.git/config", "repository /w/b"},
			{"/w/b/.gitmodules", "repository /w/b"},
			{"/w/b/.git/modules", "repository /w/b"},
			{"/w/b/vendor/lib/.git", "submodule vendor/lib in /w/b/.gitmodules"},
			{"/w/b/vendor/lib/.githooks", "core.hooksPath in /w/b/.git/modules/lib/config"},
			{"/w/d1/d2/d3/r4/.git/config", "repository /w/d1/d2/d3/r4"},
			{"/w/home/.ssh", "$HOME file ~/.ssh/ of /w/home"},
			{"/w/home/.bash_profile", "$HOME file ~/.bash_profile of /w/home"},
			{"/w/home/.kube/config", "$HOME file ~/.kube/config of /w/home"},
			{"/w/home/global.inc", "include.path in /w/home/.gitconfig"},
		};
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
			const struct mount_rule *m = mount_at(&r.pl, want[i].path);
			char from[600];
			snprintf(from, sizeof from, ".protect (%s)", want[i].from);
			ok(m && m->op == MNT_RO_BIND, "git routes: %s bound read-only", want[i].path);
			if (!m) for (size_t j = 0; j < r.pl.nmounts; j++) diag("%d %s %s", r.pl.mounts[j].op, r.pl.mounts[j].path, r.pl.mounts[j].where);
			if (m)
				is_str(m->where, from, "git routes: ... named by its route");
		}
		ok(!mount_at(&r.pl, "/w/d1/d2/d3/d4/d5/.git/config"), "git routes: a repository 5 levels down is beyond the walk");
		bool remark = false, home = false;
		for (size_t i = 0; i < r.pl.remarks.n; i++) {
			remark |= strstr(r.pl.remarks.v[i], "search for repositories") != NULL;
			home |= strstr(r.pl.remarks.v[i], "holds the home /w/home") != NULL;
		}
		ok(!remark, "git routes: the directory bound is not hit here (no remark)");
		ok(home, "git routes: a writable home is remarked (PATH directories stay writable)");
	}
	run_free(&r);
	/* "protect" replaces the built-in list, derived routes included */
	run_fit(&r, "{'writable':['/w'],'protect':[]}", &h, &git_fs);
	if (fit_ok(&r, "git routes, protect []"))
		ok(!mount_at(&r.pl, "/w/a/.husky/_") && !mount_at(&r.pl, "/w/home/.ssh"),
		   "git routes: none with \"protect\": []");
	run_free(&r);
	/* a tree inside the repository: its config still followed upwards */
	run_fit(&r, "{'writable':['/w/a/.husky','/w/a/.git']}", &h, &git_fs);
	if (fit_ok(&r, "git routes, tree below the repository")) {
		ok(mount_is(&r.pl, "/w/a/.husky/_", MNT_RO_BIND), "git routes: hooksPath inside a tree below the work tree");
		ok(mount_is(&r.pl, "/w/a/.git/worktrees/wt/commondir", MNT_RO_BIND), "git routes: .git writable: worktree commondir");
	}
	run_free(&r);
	/* a hooks directory that is a writable tree itself: remarked */
	run_fit(&r, "{'writable':['/w/a/.husky/_']}", &h, &git_fs);
	if (fit_ok(&r, "git routes, hooks directory as the tree")) {
		bool remark = false;
		for (size_t i = 0; i < r.pl.remarks.n; i++)
			remark |= strstr(r.pl.remarks.v[i], "core.hooksPath \".husky/_\" in /w/a/.git/config is the writable tree /w/a/.husky/_") != NULL;
		ok(remark, "git routes: a hooks directory that is the writable tree is remarked");
	}
	run_free(&r);
	/* expansion: the derived routes are built-in: left out, named */
	h.mounts = false;
	run_fit(&r, "{'writable':['/w'],'unenforced':{'workspace_sockets':true}}", &h, &git_fs);
	if (fit_ok(&r, "git routes, no namespace")) {
		bool named = false;
		for (size_t i = 0; i < r.pl.nleft; i++)
			named |= strstr(r.pl.left[i].part, "/w/a/.husky/_") != NULL;
		ok(named, "git routes: without a namespace the left-out notice names them");
		ok(!r.pl.expansion, "git routes: ... and nothing is expanded for them");
	}
	run_free(&r);
	fake_files = NULL;

	/* the search bound: 2100 directories below /b, a repository in the
	 * last one; the search stops at 2048 listings and remarks it */
	size_t nd = 2100;
	struct fent *big = xcalloc(nd + 5, sizeof *big);
	char **names = xcalloc(nd + 5, sizeof *names);
	big[0] = (struct fent){"/", FS_DIR, NULL, 0, 0};
	big[1] = (struct fent){"/b", FS_DIR, NULL, 0, 0};
	for (size_t i = 0; i < nd; i++) {
		names[i] = xasprintf("/b/d%04zu", i);
		big[i + 2] = (struct fent){names[i], FS_DIR, NULL, 0, 0};
	}
	names[nd] = xasprintf("/b/d%04zu/.git", nd - 1);
	big[nd + 2] = (struct fent){names[nd], FS_DIR, NULL, 0, 0};
	struct fakefs bfs = {big, {0}, -1};
	h.mounts = true;
	run_fit(&r, "{'writable':['/b']}", &h, &bfs);
	if (fit_ok(&r, "git routes, search bound")) {
		bool remark = false;
		for (size_t i = 0; i < r.pl.remarks.n; i++)
			remark |= strstr(r.pl.remarks.v[i], "search for repositories in /b stopped after 2048 directories") != NULL;
		ok(remark, "git routes: a search that hits its bound is remarked");
		size_t nb = 0;
		for (size_t i = 0; i < bfs.listed.n; i++)
			nb += strncmp(bfs.listed.v[i], "/b", 2) == 0;
		ok(nb == 2048, "git routes: ... after 2048 listings below /b (got %zu)", nb);
	}
	run_free(&r);
	sv_free(&bfs.listed);
	for (size_t i = 0; i <= nd; i++)
		free(names[i]);
	free(names);
	free(big);
}

/* sv_dedupe: the first of each kept in place, later equals dropped, the
 * vector still NULL-terminated (the unprotected list of hundreds of
 * writable trees relies on it instead of sv_has before every push). */
/* loc_entry() spells a location as printf would, and cuts to fit. */
static void test_loc_entry(void)
{
	static const size_t idx[] = {0, 7, 10, 9999, 10000, 4294967295u};
	for (size_t k = 0; k < sizeof idx / sizeof idx[0]; k++) {
		char want[64], got[64];
		snprintf(want, sizeof want, ".%s[%zu]", "readable", idx[k]);
		ok(strcmp(loc_entry(got, sizeof got, "readable", idx[k]), want) == 0, "loc_entry: %s (%s)", want, got);
	}
	char small[8];
	ok(strcmp(loc_entry(small, sizeof small, "readable", 12), ".readab") == 0, "loc_entry: cut to the buffer");
}

static void test_sv_dedupe(void)
{
	struct strvec v = {0};
	const char *in[] = {"/b", "/a", "/b", "/c", "/a", "/a", "/d", "/c"};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
		sv_push(&v, in[i]);
	sv_dedupe(&v);
	char got[64] = "";
	for (size_t i = 0; i < v.n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", v.v[i]);
	ok(strcmp(got, "/b /a /c /d") == 0 && v.n == 4 && v.v[4] == NULL,
	   "sv_dedupe keeps the first of each in order (got \"%s\")", got);
	sv_dedupe(&v);
	ok(v.n == 4, "sv_dedupe of a vector without duplicates changes nothing");
	sv_free(&v);
	struct strvec e = {0};
	sv_dedupe(&e);
	ok(e.n == 0, "sv_dedupe of an empty vector");
}

/* ------------------------------------------------------------------ */
/* Profiles of thousands of paths (issue 13): what fit() asks of the   */
/* filesystem per entry.                                               */

/* Every path under /many (and / itself) is a directory spelled
 * canonically; the view counts what fit() asks. */
struct tally {
	unsigned resolve, lkind, list, read;
};

static int tally_resolve(void *ctx, const char *path, char *out, size_t n, enum fs_kind *kind)
{
	struct tally *c = ctx;
	c->resolve++;
	if (strcmp(path, "/") != 0 && strncmp(path, "/many/", 6) != 0)
		return -ENOENT;
	if (strlen(path) >= n)
		return -ENAMETOOLONG;
	strcpy(out, path);
	*kind = FS_DIR;
	return 0;
}

static int tally_lkind(void *ctx, const char *path, enum fs_kind *kind)
{
	struct tally *c = ctx;
	c->lkind++;
	*kind = strcmp(path, "/") == 0 || strncmp(path, "/many/", 6) == 0 ? FS_DIR : FS_MISSING;
	return 0;
}

static int tally_list(void *ctx, const char *dir, fs_entry_cb cb, void *arg)
{
	struct tally *c = ctx;
	(void)dir, (void)cb, (void)arg;
	c->list++;
	return 0;
}

static int tally_read(void *ctx, const char *path, char *buf, size_t n, size_t *len, bool *truncated)
{
	struct tally *c = ctx;
	(void)path, (void)buf, (void)n;
	c->read++;
	*len = 0;
	*truncated = false;
	return -ENOENT;
}

/* fit() of {"readable":[N entries],"writable":["/many/ws"]} (executable
 * left to its default: the same entries) on `h`: its counts in *c, the
 * plan's rule count returned (-1: fit failed). */
static long fit_many(size_t n, const struct host *h, struct tally *c)
{
	size_t cap = 64 + n * 24;
	char *js = xmalloc(cap);
	size_t o = (size_t)snprintf(js, cap, "{\"unenforced\":{\"host_sockets\":true},\"writable\":[\"/many/ws\"],\"readable\":[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(js + o, cap - o, "%s\"/many/d%05zu\"", i ? "," : "", i);
	snprintf(js + o, cap - o, "]}");
	struct profile p;
	struct plan pl;
	struct sb_err e = {{0}, {0}, {0}};
	long rules = -1;
	memset(c, 0, sizeof *c);
	struct fs_view v = {tally_resolve, tally_lkind, tally_list, tally_read, c, NULL};
	if (profile_parse(js, strlen(js), &p, &e) == 0) {
		if (fit(&p, h, &v, &pl, &e) == 0) {
			rules = (long)pl.nrules;
			plan_free(&pl);
		} else {
			diag("fit: %s %s: %s", e.where, e.path, e.why);
		}
		profile_free(&p);
	}
	free(js);
	return rules;
}

static void test_fit_many_paths(void)
{
	struct host hosts[2] = {host_abi(7), host_abi(7)};
	hosts[1].mounts = false; /* expansion: no mount namespace */
	for (int k = 0; k < 2; k++) {
		const char *t = k ? "no mounts" : "mounts";
		struct tally a, b;
		long ra = fit_many(1000, &hosts[k], &a), rb = fit_many(3000, &hosts[k], &b);
		ok(ra > 0 && rb > 0, "%s: 1,000 and 3,000 readable paths fit", t);
		is_int(rb - ra, 2000, "%s: 2,000 more paths, 2,000 more rules (readable and the default executable in one each)", t);
		/* each entry asked once: the executable default shares the
		 * readable entry's answer, and no walk over the lists (views,
		 * keeps, carve-outs, grants) asks again */
		is_int((long long)b.resolve - a.resolve, 2000, "%s: one resolve() per added path", t);
		ok(a.lkind == b.lkind && a.list == b.list && a.read == b.read,
		   "%s: no lkind(), list() or read() per added path (%u/%u, %u/%u, %u/%u)", t,
		   a.lkind, b.lkind, a.list, b.list, a.read, b.read);
	}
}

int main(void)
{
	test_sv_dedupe();
	test_loc_entry();
	test_parse_errors();
	test_parse_memory();
	test_parse_suggestions();
	test_parse_accepts();
	test_defaults();
	test_speccoder();
	test_survivors();
	test_fit_no_landlock();
	test_fit_abi_gaps();
	test_fit_dev_exclusion();
	test_fit_rule_sources();
	test_fit_fs();
	test_fit_tmp();
	test_fit_network();
	test_filter();
	test_filter_names();
	test_fit_probes_once();
	test_not_yet();
	test_carves();
	test_hidden_held();
	test_defaults_never_fight();
	test_caps();
	test_plan_json();
	test_carve();
	test_helpers();
	test_gitconfig();
	test_gitcfg_path();
	test_git_routes();
	test_fit_many_paths();
	sv_free(&git_fs.listed);
	sv_free(&small_fs.listed);
	sv_free(&big_fs.listed);
	sv_free(&unlistable_fs.listed);
	return done_testing();
}

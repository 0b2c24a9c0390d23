/* Strict profile parser over jansson (DESIGN.md "Profile (JSON, version 1)").
 * Table-driven: one handler per key; every error names the JSON location. */
#include "profile.h"

#include <errno.h>
#include <stddef.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* A trailing '/' marks a directory (documentation only: a name that does
 * not exist is never created, just listed by --check as unprotected). */
const char *const profile_default_protect[] = {
	".git/hooks/", ".git/config", ".git/config.worktree", ".git/commondir",
	".git/info/", ".git/modules/", ".gitmodules",
	".envrc", ".vscode/", ".idea/", ".codex/", ".claude/", ".cargo/config.toml",
	".cargo/config", ".npmrc", ".pypirc", ".bashrc", ".profile", ".zshrc",
	NULL};

const char *const profile_default_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/pts", "/dev/ptmx", NULL};

static const struct { const char *name; unsigned bit; } unenforced_names[] = {
	{"trust_handoff", UNF_TRUST_HANDOFF},
	{"workspace_sockets", UNF_WORKSPACE_SOCKETS},
	{"signal_scope", UNF_SIGNAL_SCOPE},
	{"carve", UNF_CARVE},
	{"truncate", UNF_TRUNCATE},
	{"tcp_ports", UNF_TCP_PORTS},
	{"udp_ports", UNF_UDP_PORTS},
	{"host_sockets", UNF_HOST_SOCKETS},
};

const char *unenforced_name(unsigned part)
{
	for (size_t i = 0; i < sizeof unenforced_names / sizeof unenforced_names[0]; i++)
		if (unenforced_names[i].bit == part)
			return unenforced_names[i].name;
	return NULL;
}

/* ---- typed accessors: each returns 0 or -1 with err naming `loc` ---- */

static const char *type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static int want(const json_t *j, json_type t, const char *what,
		const char *loc, struct sb_err *err)
{
	if (json_typeof(j) == t || (t == JSON_TRUE && json_is_boolean(j)))
		return 0;
	return sb_fail(err, loc, NULL, "must be %s, not %s", what, type_name(j));
}

/* A non-empty string without NUL bytes; `*out` borrows from j. */
static int get_str(const json_t *j, const char *loc, struct sb_err *err,
		   const char **out)
{
	if (want(j, JSON_STRING, "a string", loc, err))
		return -1;
	const char *s = json_string_value(j);
	size_t n = json_string_length(j);
	if (n == 0)
		return sb_fail(err, loc, NULL, "must not be empty");
	if (strlen(s) != n)
		return sb_fail(err, loc, NULL, "must not contain a NUL byte");
	*out = s;
	return 0;
}

static int get_path(const json_t *j, const char *loc, struct sb_err *err,
		    const char **out)
{
	if (get_str(j, loc, err, out))
		return -1;
	if ((*out)[0] != '/')
		return sb_fail(err, loc, *out, "must be an absolute path");
	if (strlen(*out) >= 4096)
		return sb_fail(err, loc, NULL, "path longer than PATH_MAX");
	return 0;
}

static int get_bool(const json_t *j, const char *loc, struct sb_err *err,
		    bool *out)
{
	if (want(j, JSON_TRUE, "a boolean", loc, err))
		return -1;
	*out = json_is_true(j);
	return 0;
}

static int get_uint(const json_t *j, const char *loc, struct sb_err *err,
		    uint64_t max, uint64_t *out)
{
	if (want(j, JSON_INTEGER, "an integer", loc, err))
		return -1;
	json_int_t v = json_integer_value(j);
	if (v < 0 || (uint64_t)v > max)
		return sb_fail(err, loc, NULL, "%lld is out of range 0-%llu",
			       (long long)v, (unsigned long long)max);
	*out = (uint64_t)v;
	return 0;
}

/* One of `choices` (NULL-terminated); index into *out. */
static int get_enum(const json_t *j, const char *loc, struct sb_err *err,
		    const char *const *choices, int *out)
{
	const char *s;
	if (get_str(j, loc, err, &s))
		return -1;
	for (int i = 0; choices[i]; i++)
		if (strcmp(choices[i], s) == 0) {
			*out = i;
			return 0;
		}
	char list[256] = "";
	for (int i = 0; choices[i]; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"",
			 i ? ", " : "", choices[i]);
	return sb_fail(err, loc, NULL, "\"%s\" is not one of %s", s, list);
}

static int get_array(const json_t *j, const char *loc, struct sb_err *err)
{
	return want(j, JSON_ARRAY, "an array", loc, err);
}

/* An unknown key at `loc` of an object whose keys are fixed, the
 * candidates already fed to `near`: "unknown WHAT; did you mean "x"?" when
 * one is a typo away, else "unknown WHAT", followed by " (INTRO a, b, c)"
 * listing every candidate when `intro` is set. */
static int unknown_near(const char *loc, const char *what,
			const struct sb_near *near, const char *intro,
			struct sb_err *err)
{
	char s[2 * SB_NEAR_MAX + 16];
	if (sb_near_format(near, s, sizeof s))
		return sb_fail(err, loc, NULL, "unknown %s; did you mean %s?", what, s);
	if (!intro)
		return sb_fail(err, loc, NULL, "unknown %s", what);
	return sb_fail(err, loc, NULL, "unknown %s (%s%s)", what, intro, near->all);
}

/* unknown_near() for key `name` against a NULL-terminated list: the
 * `known` table of k_env, k_user and k_seccomp, which must name the same
 * keys as their strcmp() dispatch (tests/schema/profile.t compares that
 * dispatch with the schema). */
static int unknown_key(const char *loc, const char *name,
		       const char *const *known, struct sb_err *err)
{
	struct sb_near near;
	sb_near_init(&near, name);
	for (; *known; known++)
		sb_near_add(&near, *known);
	return unknown_near(loc, "key", &near, "expected ", err);
}

/* ---- key handlers ---- */

typedef int (*key_fn)(const json_t *j, const char *loc, struct profile *p,
		      struct sb_err *err);

/* A list of paths, each checked in order (get_path() formats a location
 * only for a bad one) and copied into the profile's arena `strs`. */
static int paths_into(const json_t *j, const char *loc, struct pathlist *pl,
		      struct str_arena *strs, struct sb_err *err)
{
	if (get_array(j, loc, err))
		return -1;
	size_t n = json_array_size(j);
	pl->set = true;
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_array_get(j, i);
		const char *s = json_string_value(e);
		size_t len = s ? strlen(s) : 0;
		if (!(s && s[0] == '/' && len == json_string_length(e) && len < 4096)) {
			char l[128];
			snprintf(l, sizeof l, "%s[%zu]", loc, i);
			if (get_path(e, l, err, &s))
				return -1;
		}
		sv_push_own(&pl->v, str_arena_dup(strs, s));
	}
	return 0;
}

/* Names: non-empty strings without '/' at the start (protect entries are
 * relative to each writable tree). */
static int names_into(const json_t *j, const char *loc, struct strvec *sv,
		      bool relative_paths, struct sb_err *err)
{
	if (get_array(j, loc, err))
		return -1;
	size_t i;
	json_t *e;
	json_array_foreach(j, i, e) {
		char l[128];
		const char *s;
		snprintf(l, sizeof l, "%s[%zu]", loc, i);
		if (get_str(e, l, err, &s))
			return -1;
		if (relative_paths && (s[0] == '/' || strstr(s, "..")))
			return sb_fail(err, l, s, "must be a path relative to the writable tree, without \"..\"");
		sv_push(sv, s);
	}
	return 0;
}

#define PATHS_KEY(field) \
	static int k_##field(const json_t *j, const char *loc, struct profile *p, struct sb_err *err) \
	{ return paths_into(j, loc, &p->field, &p->strs, err); }
PATHS_KEY(readable)
PATHS_KEY(executable)
PATHS_KEY(writable)
PATHS_KEY(read_only)
PATHS_KEY(hidden)
PATHS_KEY(caches)
PATHS_KEY(devices)

/* A key taking one of a few strings, in the order of its enum's values. */
#define ENUM_KEY(field, type, ...) \
	static int k_##field(const json_t *j, const char *loc, struct profile *p, struct sb_err *err) \
	{ \
		static const char *const c[] = {__VA_ARGS__, NULL}; \
		int v; \
		if (get_enum(j, loc, err, c, &v)) \
			return -1; \
		p->field = (type)v; \
		return 0; \
	}
ENUM_KEY(mounts, enum mounts_mode, "auto", "off", "required")
ENUM_KEY(network, enum net_mode, "off", "loopback", "on")
ENUM_KEY(unix_sockets, enum unix_mode, "scoped", "any", "none")
ENUM_KEY(signals, enum signal_mode, "scoped", "any")

static int k_version(const json_t *j, const char *loc, struct profile *p,
		     struct sb_err *err)
{
	if (want(j, JSON_INTEGER, "an integer", loc, err))
		return -1;
	if (json_integer_value(j) != 1)
		return sb_fail(err, loc, NULL, "version %lld is not supported (this shim reads version 1)",
			       (long long)json_integer_value(j));
	p->version = 1;
	return 0;
}

static int k_protect(const json_t *j, const char *loc, struct profile *p,
		     struct sb_err *err)
{
	p->protect_set = true;
	sv_free(&p->protect);
	return names_into(j, loc, &p->protect, true, err);
}

static int k_protect_extra(const json_t *j, const char *loc, struct profile *p,
			   struct sb_err *err)
{
	return names_into(j, loc, &p->protect_extra, true, err);
}

static int k_tmp(const json_t *j, const char *loc, struct profile *p,
		 struct sb_err *err)
{
	const char *s;
	if (get_path(j, loc, err, &s))
		return -1;
	if (strcmp(s, "/") == 0)
		return sb_fail(err, loc, s, "must not be the root directory");
	p->tmp = xstrdup(s);
	return 0;
}

static int k_cwd(const json_t *j, const char *loc, struct profile *p,
		 struct sb_err *err)
{
	const char *s;
	if (get_path(j, loc, err, &s))
		return -1;
	p->cwd = xstrdup(s);
	return 0;
}

static int ports_into(const json_t *j, const char *loc, struct portlist *pl,
		      bool zero_ok, struct sb_err *err)
{
	if (get_array(j, loc, err))
		return -1;
	pl->set = true;
	pl->v = xcalloc(json_array_size(j), sizeof *pl->v);
	size_t i;
	json_t *e;
	json_array_foreach(j, i, e) {
		char l[128];
		uint64_t v;
		snprintf(l, sizeof l, "%s[%zu]", loc, i);
		if (get_uint(e, l, err, 65535, &v))
			return -1;
		if (v == 0 && !zero_ok)
			return sb_fail(err, l, NULL, "port 0 is only meaningful for bind (any ephemeral port)");
		pl->v[pl->n++] = (uint16_t)v;
	}
	return 0;
}

/* Port 0 in a bind list allows binding an ephemeral port (Landlock treats
 * bind to port 0 as a request for port 0, kernel net_test "port_zero"). */
static int k_tcp_bind(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return ports_into(j, loc, &p->tcp_bind, true, err); }
static int k_tcp_connect(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return ports_into(j, loc, &p->tcp_connect, false, err); }
static int k_udp_bind(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return ports_into(j, loc, &p->udp_bind, true, err); }
static int k_udp_connect(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return ports_into(j, loc, &p->udp_connect, false, err); }

/* An environment variable name: non-empty, no '=' (POSIX leaves the rest
 * to the application, so nothing more is refused). */
static int env_name(const json_t *j, const char *loc, bool star_ok,
		    struct sb_err *err, const char **out)
{
	if (get_str(j, loc, err, out))
		return -1;
	const char *eq = strchr(*out, '=');
	if (eq)
		return sb_fail(err, loc, NULL, "\"%s\" is not a variable name (contains '=')", *out);
	const char *star = strchr(*out, '*');
	if (star && (!star_ok || star[1] != 0))
		return sb_fail(err, loc, NULL, "\"%s\": '*' is only allowed at the end of a keep pattern", *out);
	return 0;
}

static int k_env(const json_t *j, const char *loc, struct profile *p,
		 struct sb_err *err)
{
	static const char *const known[] = {"clear", "keep", "set", "unset", NULL};
	if (want(j, JSON_OBJECT, "an object", loc, err))
		return -1;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)j, k, v) {
		char l[128];
		snprintf(l, sizeof l, "%s.%s", loc, k);
		if (strcmp(k, "clear") == 0) {
			if (get_bool(v, l, err, &p->env.clear))
				return -1;
		} else if (strcmp(k, "keep") == 0 || strcmp(k, "unset") == 0) {
			bool keep = k[0] == 'k';
			if (get_array(v, l, err))
				return -1;
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e) {
				char l2[160];
				const char *s;
				snprintf(l2, sizeof l2, "%s[%zu]", l, i);
				if (env_name(e, l2, keep, err, &s))
					return -1;
				sv_push(keep ? &p->env.keep : &p->env.unset, s);
			}
		} else if (strcmp(k, "set") == 0) {
			if (want(v, JSON_OBJECT, "an object", l, err))
				return -1;
			const char *name;
			json_t *val;
			json_object_foreach(v, name, val) {
				char l2[256];
				const char *s, *dummy;
				snprintf(l2, sizeof l2, "%s.%s", l, name);
				json_t *tmp = json_string(name);
				int bad = !tmp || env_name(tmp, l2, false, err, &dummy);
				json_decref(tmp);
				if (bad)
					return -1;
				if (want(val, JSON_STRING, "a string", l2, err))
					return -1;
				s = json_string_value(val);
				if (strlen(s) != json_string_length(val))
					return sb_fail(err, l2, NULL, "must not contain a NUL byte");
				sv_push_own(&p->env.set, xasprintf("%s=%s", name, s));
			}
		} else {
			return unknown_key(l, k, known, err);
		}
	}
	return 0;
}

static int k_keep_fds(const json_t *j, const char *loc, struct profile *p,
		      struct sb_err *err)
{
	if (get_array(j, loc, err))
		return -1;
	p->keep_fds = xcalloc(json_array_size(j), sizeof *p->keep_fds);
	size_t i;
	json_t *e;
	json_array_foreach(j, i, e) {
		char l[128];
		uint64_t v;
		snprintf(l, sizeof l, "%s[%zu]", loc, i);
		if (get_uint(e, l, err, 0x7fffffff, &v))
			return -1;
		if (v <= 2)
			return sb_fail(err, l, NULL, "descriptors 0-2 are always kept; list only descriptors above 2");
		p->keep_fds[p->nkeep_fds++] = (int)v;
	}
	return 0;
}

/* "denials": {"fd": N}.  An object, so what is reported can grow
 * without a second key; N > 2 (stdio belongs to the command). */
static int k_denials(const json_t *j, const char *loc, struct profile *p,
		     struct sb_err *err)
{
	static const char *const known[] = {"fd", NULL};
	if (want(j, JSON_OBJECT, "an object", loc, err))
		return -1;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)j, k, v) {
		char l[128];
		uint64_t n;
		snprintf(l, sizeof l, "%s.%s", loc, k);
		if (strcmp(k, "fd") != 0)
			return unknown_key(l, k, known, err);
		if (get_uint(v, l, err, 0x7fffffff, &n))
			return -1;
		if (n <= 2)
			return sb_fail(err, l, NULL, "descriptors 0-2 belong to the command; give a descriptor above 2");
		p->denials_fd = (int)n;
	}
	if (p->denials_fd < 0)
		return sb_fail(err, loc, NULL, "needs fd");
	return 0;
}

static int k_die_with_parent(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return get_bool(j, loc, err, &p->die_with_parent); }
static int k_new_session(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return get_bool(j, loc, err, &p->new_session); }
static int k_no_survivors(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return get_bool(j, loc, err, &p->no_survivors); }
static int k_best_effort(const json_t *j, const char *loc, struct profile *p, struct sb_err *err)
{ return get_bool(j, loc, err, &p->best_effort); }

static int k_capabilities(const json_t *j, const char *loc, struct profile *p,
			  struct sb_err *err)
{
	if (get_array(j, loc, err))
		return -1;
	p->caps = xcalloc(json_array_size(j), sizeof *p->caps);
	size_t i;
	json_t *e;
	json_array_foreach(j, i, e) {
		char l[128];
		const char *s;
		snprintf(l, sizeof l, "%s[%zu]", loc, i);
		if (get_str(e, l, err, &s))
			return -1;
		int c = cap_by_name(s);
		if (c < 0)
			return sb_fail(err, l, NULL, "\"%s\" is not a capability name (see capabilities(7))", s);
		p->caps[p->ncaps++] = c;
	}
	return 0;
}

static int k_user(const json_t *j, const char *loc, struct profile *p,
		  struct sb_err *err)
{
	static const char *const known[] = {"uid", "gid", "groups", "name", NULL};
	if (want(j, JSON_OBJECT, "an object", loc, err))
		return -1;
	const char *k;
	json_t *v;
	p->user.set = true;
	json_object_foreach((json_t *)j, k, v) {
		char l[128];
		uint64_t n;
		snprintf(l, sizeof l, "%s.%s", loc, k);
		if (strcmp(k, "uid") == 0 || strcmp(k, "gid") == 0) {
			if (get_uint(v, l, err, 0xfffffffe, &n))
				return -1;
			*(k[0] == 'u' ? &p->user.uid : &p->user.gid) = (uint32_t)n;
			p->user.has_ids = true;
		} else if (strcmp(k, "groups") == 0) {
			if (get_array(v, l, err))
				return -1;
			p->user.groups = xcalloc(json_array_size(v), sizeof *p->user.groups);
			p->user.groups_set = true;
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e) {
				char l2[160];
				snprintf(l2, sizeof l2, "%s[%zu]", l, i);
				if (get_uint(e, l2, err, 0xfffffffe, &n))
					return -1;
				p->user.groups[p->user.ngroups++] = (uint32_t)n;
			}
		} else if (strcmp(k, "name") == 0) {
			const char *s;
			if (get_str(v, l, err, &s))
				return -1;
			p->user.name = xstrdup(s);
		} else {
			return unknown_key(l, k, known, err);
		}
	}
	if (p->user.name && p->user.has_ids)
		return sb_fail(err, loc, NULL, "give either name or uid/gid, not both");
	if (!p->user.name && !(json_object_get(j, "uid") && json_object_get(j, "gid")))
		return sb_fail(err, loc, NULL, "needs name, or both uid and gid");
	return 0;
}

static int k_rlimits(const json_t *j, const char *loc, struct profile *p,
		     struct sb_err *err)
{
	if (want(j, JSON_OBJECT, "an object", loc, err))
		return -1;
	p->rlimits = xcalloc(json_object_size(j), sizeof *p->rlimits);
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)j, k, v) {
		char l[128];
		struct rlimit_rule *r = &p->rlimits[p->nrlimits];
		snprintf(l, sizeof l, "%s.%s", loc, k);
		r->resource = rlimit_by_name(k, &r->name);
		if (r->resource < 0) {
			struct sb_near near;
			sb_near_init(&near, k);
			for (size_t i = 0; rlimit_name(i); i++)
				sb_near_add(&near, rlimit_name(i));
			return unknown_near(l, "limit", &near, "prlimit(1) names: ", err);
		}
		if (json_is_array(v)) {
			char l2[160];
			if (json_array_size(v) != 2)
				return sb_fail(err, l, NULL, "must be a number or [soft, hard]");
			snprintf(l2, sizeof l2, "%s[0]", l);
			if (get_uint(json_array_get(v, 0), l2, err, INT64_MAX, &r->soft))
				return -1;
			snprintf(l2, sizeof l2, "%s[1]", l);
			if (get_uint(json_array_get(v, 1), l2, err, INT64_MAX, &r->hard))
				return -1;
			if (r->soft > r->hard)
				return sb_fail(err, l, NULL, "soft limit %llu is above hard limit %llu",
					       (unsigned long long)r->soft, (unsigned long long)r->hard);
		} else {
			if (get_uint(v, l, err, INT64_MAX, &r->soft))
				return -1;
			r->hard = r->soft;
		}
		p->nrlimits++;
	}
	return 0;
}

/* True if seccomp.deny entry `s` (a syscall or a known @group) would
 * refuse execve, the last call the shim makes (shim/exec.c) after its
 * filter is loaded.  execveat stays deniable: the shim does not use it. */
static bool covers_execve(const char *s)
{
	if (s[0] != '@')
		return strcmp(s, "execve") == 0;
	for (const char *const *m = sc_group_members(s); m && *m; m++)
		if (strcmp(*m, "execve") == 0)
			return true;
	return false;
}

static int k_seccomp(const json_t *j, const char *loc, struct profile *p,
		     struct sb_err *err)
{
	static const char *const known[] = {"deny", "allow", NULL};
	if (want(j, JSON_OBJECT, "an object", loc, err))
		return -1;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)j, k, v) {
		char l[128];
		snprintf(l, sizeof l, "%s.%s", loc, k);
		bool deny = strcmp(k, "deny") == 0;
		if (!deny && strcmp(k, "allow") != 0)
			return unknown_key(l, k, known, err);
		if (get_array(v, l, err))
			return -1;
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			char l2[160];
			const char *s;
			snprintf(l2, sizeof l2, "%s[%zu]", l, i);
			if (get_str(e, l2, err, &s))
				return -1;
			if (s[0] == '@' ? !sc_group_members(s) : !sc_name_valid(s))
				return sb_fail(err, l2, NULL, "unknown %s \"%s\"",
					       s[0] == '@' ? "syscall group" : "syscall", s);
			/* Found here rather than as a 126 "Operation not
			 * permitted" from the shim's own last call. */
			if (deny && covers_execve(s))
				return sb_fail(err, l2, s, "%sthe sandbox needs execve to start the command; deny it inside the command instead",
					       s[0] == '@' ? "contains execve: " : "");
			sv_push(deny ? &p->seccomp_deny : &p->seccomp_allow, s);
		}
	}
	return 0;
}

static int k_unenforced(const json_t *j, const char *loc, struct profile *p,
			struct sb_err *err)
{
	if (want(j, JSON_OBJECT, "an object", loc, err))
		return -1;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)j, k, v) {
		char l[128];
		bool on;
		unsigned bit = 0;
		snprintf(l, sizeof l, "%s.%s", loc, k);
		for (size_t i = 0; i < sizeof unenforced_names / sizeof unenforced_names[0]; i++)
			if (strcmp(unenforced_names[i].name, k) == 0)
				bit = unenforced_names[i].bit;
		if (!bit) {
			struct sb_near near;
			sb_near_init(&near, k);
			for (size_t i = 0; i < sizeof unenforced_names / sizeof unenforced_names[0]; i++)
				sb_near_add(&near, unenforced_names[i].name);
			return unknown_near(l, "part", &near, "expected ", err);
		}
		if (get_bool(v, l, err, &on))
			return -1;
		if (on)
			p->unenforced |= bit;
	}
	return 0;
}

static const struct { const char *key; key_fn fn; } keys[] = {
	{"version", k_version}, {"readable", k_readable},
	{"executable", k_executable}, {"writable", k_writable},
	{"read_only", k_read_only}, {"hidden", k_hidden}, {"mounts", k_mounts},
	{"protect", k_protect}, {"protect_extra", k_protect_extra},
	{"tmp", k_tmp}, {"caches", k_caches}, {"devices", k_devices},
	{"network", k_network}, {"tcp_bind", k_tcp_bind},
	{"tcp_connect", k_tcp_connect}, {"udp_bind", k_udp_bind},
	{"udp_connect", k_udp_connect}, {"unix_sockets", k_unix_sockets},
	{"signals", k_signals}, {"env", k_env}, {"cwd", k_cwd},
	{"keep_fds", k_keep_fds}, {"die_with_parent", k_die_with_parent},
	{"new_session", k_new_session}, {"no_survivors", k_no_survivors},
	{"capabilities", k_capabilities},
	{"user", k_user}, {"rlimits", k_rlimits}, {"seccomp", k_seccomp},
	{"unenforced", k_unenforced}, {"best_effort", k_best_effort},
	{"denials", k_denials},
};

static void defaults(struct profile *p)
{
	memset(p, 0, sizeof *p);
	p->version = 1;
	p->readable.key = "readable";
	p->executable.key = "executable";
	p->writable.key = "writable";
	p->read_only.key = "read_only";
	p->hidden.key = "hidden";
	p->caches.key = "caches";
	p->devices.key = "devices";
	p->die_with_parent = true;
	p->denials_fd = -1;
	for (int i = 0; profile_default_protect[i]; i++)
		sv_push(&p->protect, profile_default_protect[i]);
}

/* ---- the parsed document's memory ---- */

/* jansson allocates a node and a string per JSON string (and a malloc
 * header and size-class rounding for each): the document of a profile of
 * 10,000 paths took 1 MB, which musl's allocator kept after it was freed,
 * under everything fit() allocates later.  While one profile is parsed,
 * jansson's allocations are bumped from a few chunks instead, and the
 * chunks freed at once when the document is (large chunks are mmap'd:
 * their pages go back to the kernel).  json_set_alloc_funcs() takes
 * functions without a context, hence this one pointer, set only inside
 * profile_parse() (single-threaded). */
struct doc_chunk {
	char *base;
	size_t cap; /* bytes */
};
struct doc_arena {
	struct doc_chunk *chunk;
	size_t n;    /* chunks */
	size_t used; /* of the last one */
};
static struct doc_arena *doc_arena_now;

/* Bytes: the first chunk (a profile of a few keys fits) and the largest;
 * a request over DOC_OWN is malloc'd on its own — an array's table,
 * which jansson replaces by one twice the size as it grows: in a chunk,
 * each old table would stay to the end (128 KiB for 10,000 strings),
 * while malloc takes it back.  DOC_ALIGN:
 * jansson's nodes hold pointers, size_t, double and long long at most
 * (jansson.h, jansson_private.h), never long double (max_align_t's 16
 * would round every string of a path list up by 8 more bytes). */
enum { DOC_CHUNK0 = 4096, DOC_CHUNK_MAX = 1 << 20, DOC_OWN = 1024, DOC_ALIGN = 8 };
_Static_assert(_Alignof(double) <= DOC_ALIGN && _Alignof(long long) <= DOC_ALIGN &&
	       _Alignof(void *) <= DOC_ALIGN && _Alignof(size_t) <= DOC_ALIGN,
	       "jansson's nodes fit the document arena's alignment");

static void *doc_malloc(size_t n)
{
	struct doc_arena *a = doc_arena_now;
	n = (n + DOC_ALIGN - 1) & ~(size_t)(DOC_ALIGN - 1);
	if (n > DOC_OWN)
		return malloc(n); /* (doc_free tells it from the chunks) */
	if (!a->n || a->used + n > a->chunk[a->n - 1].cap) {
		size_t cap = a->n ? a->chunk[a->n - 1].cap * 2 : DOC_CHUNK0;
		while (cap < n)
			cap *= 2;
		if (cap > DOC_CHUNK_MAX)
			cap = DOC_CHUNK_MAX;
		char *c = malloc(cap);
		if (!c)
			return NULL; /* (jansson reports it: the parse fails) */
		struct doc_chunk *cs = realloc(a->chunk, (a->n + 1) * sizeof *cs);
		if (!cs) {
			free(c);
			return NULL;
		}
		a->chunk = cs;
		a->chunk[a->n++] = (struct doc_chunk){c, cap};
		a->used = 0;
	}
	void *p = a->chunk[a->n - 1].base + a->used;
	a->used += n;
	return p;
}

/* Memory in a chunk comes back with the arena; anything else was
 * malloc'd by doc_malloc on its own. */
static void doc_free(void *p)
{
	struct doc_arena *a = doc_arena_now;
	if (!p)
		return;
	for (size_t i = 0; i < a->n; i++)
		if ((char *)p >= a->chunk[i].base && (char *)p < a->chunk[i].base + a->chunk[i].cap)
			return;
	free(p);
}

/* jansson's allocation functions.  From 2.15 it has a realloc of its
 * own, which json_set_alloc_funcs() clears (its own emulation then
 * copies on every growth): it is saved and given back with the others.
 * NULL during a parse: the arena cannot grow a block in place, and
 * jansson's emulation knows the sizes it copies. */
struct doc_alloc {
	json_malloc_t malloc_fn;
	json_free_t free_fn;
#if JANSSON_VERSION_HEX >= 0x020f00
	json_realloc_t realloc_fn;
#endif
};

static void doc_alloc_get(struct doc_alloc *a)
{
#if JANSSON_VERSION_HEX >= 0x020f00
	json_get_alloc_funcs2(&a->malloc_fn, &a->realloc_fn, &a->free_fn);
#else
	json_get_alloc_funcs(&a->malloc_fn, &a->free_fn);
#endif
}

static void doc_alloc_set(const struct doc_alloc *a)
{
#if JANSSON_VERSION_HEX >= 0x020f00
	json_set_alloc_funcs2(a->malloc_fn, a->realloc_fn, a->free_fn);
#else
	json_set_alloc_funcs(a->malloc_fn, a->free_fn);
#endif
}

static void doc_arena_free(struct doc_arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->chunk[i].base);
	free(a->chunk);
	memset(a, 0, sizeof *a);
}

static int parse_doc(json_t *root, struct profile *p, struct sb_err *err);

static int parse(const char *buf, size_t len, char *own, struct profile *p,
		 struct sb_err *err);

int profile_parse(const char *buf, size_t len, struct profile *p,
		  struct sb_err *err)
{
	return parse(buf, len, NULL, p, err);
}

int profile_parse_text(char *text, size_t len, struct profile *p, struct sb_err *err)
{
	return parse(text, len, text, p, err);
}

/* `own`: the caller's malloc'd `buf`, freed once jansson has read it. */
static int parse(const char *buf, size_t len, char *own, struct profile *p,
		 struct sb_err *err)
{
	json_error_t je;
	defaults(p);
	struct doc_arena arena = {0};
	struct doc_alloc was;
	doc_alloc_get(&was);
	doc_arena_now = &arena;
	doc_alloc_set(&(struct doc_alloc){.malloc_fn = doc_malloc, .free_fn = doc_free});
	/* JSON_ALLOW_NUL so a "\u0000" reaches get_str() and is refused with
	 * its location instead of a bare line/column. */
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	free(own);
	int rc;
	if (!root)
		rc = sb_fail(err, NULL, NULL, "profile is not valid JSON: line %d column %d: %s",
			     je.line, je.column, je.text);
	else
		rc = parse_doc(root, p, err);
	json_decref(root);
	doc_alloc_set(&was);
	doc_arena_now = NULL;
	doc_arena_free(&arena);
	if (rc)
		profile_free(p);
	return rc;
}

/* The document's keys into `p` (defaults already set).  0, or -1 with
 * `err`; the caller frees `p` then.  Nothing of `root` may be kept: its
 * memory goes with the parse. */
static int parse_doc(json_t *root, struct profile *p, struct sb_err *err)
{
	int rc = 0;
	if (!json_is_object(root)) {
		rc = sb_fail(err, ".", NULL, "must be an object, not %s", type_name(root));
		goto out;
	}
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v) {
		char loc[128];
		key_fn fn = NULL;
		snprintf(loc, sizeof loc, ".%s", k);
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (strcmp(keys[i].key, k) == 0)
				fn = keys[i].fn;
		if (!fn) {
			struct sb_near near;
			sb_near_init(&near, k);
			for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
				sb_near_add(&near, keys[i].key);
			rc = unknown_near(loc, "key", &near, NULL, err);
			goto out;
		}
		if ((rc = fn(v, loc, p, err)))
			goto out;
	}
	/* the command must not hold the report: it could write lines of
	 * its own into it */
	for (size_t i = 0; p->denials_fd >= 0 && i < p->nkeep_fds; i++)
		if (p->keep_fds[i] == p->denials_fd) {
			char l[64];
			snprintf(l, sizeof l, ".keep_fds[%zu]", i);
			rc = sb_fail(err, l, NULL, "descriptor %d is .denials.fd, which the command must not inherit", p->denials_fd);
			goto out;
		}
	if (!p->readable.set)
		sv_push_own(&p->readable.v, str_arena_dup(&p->strs, "/"));
	if (!p->devices.set)
		for (int i = 0; profile_default_devices[i]; i++)
			sv_push_own(&p->devices.v, str_arena_dup(&p->strs, profile_default_devices[i]));
	if (!p->executable.set) {
		for (size_t i = 0; i < p->readable.v.n; i++)
			sv_push_own(&p->executable.v, p->readable.v.v[i]);
		for (size_t i = 0; i < p->writable.v.n; i++)
			sv_push_own(&p->executable.v, p->writable.v.v[i]);
		/* compilers and test runners execute what they build in TMPDIR */
		if (p->tmp)
			sv_push_own(&p->executable.v, p->tmp);
	}
out:
	return rc;
}

void profile_free(struct profile *p)
{
	struct pathlist *pls[] = {&p->readable, &p->executable, &p->writable,
		&p->read_only, &p->hidden, &p->caches, &p->devices};
	for (size_t i = 0; i < sizeof pls / sizeof pls[0]; i++)
		free(pls[i]->v.v); /* (the strings: p->strs) */
	str_arena_free(&p->strs);
	sv_free(&p->protect);
	sv_free(&p->protect_extra);
	free(p->tmp);
	free(p->cwd);
	free(p->tcp_bind.v);
	free(p->tcp_connect.v);
	free(p->udp_bind.v);
	free(p->udp_connect.v);
	sv_free(&p->env.keep);
	sv_free(&p->env.set);
	sv_free(&p->env.unset);
	free(p->keep_fds);
	free(p->caps);
	free(p->user.groups);
	free(p->user.name);
	free(p->rlimits);
	sv_free(&p->seccomp_deny);
	sv_free(&p->seccomp_allow);
	memset(p, 0, sizeof *p);
}

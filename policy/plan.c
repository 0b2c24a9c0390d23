/* Plan lifetime and its JSON rendering (what --check prints). */
#include "plan.h"

#include <jansson.h>
#include <stdarg.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landlock_abi.h"
#include "names.h"

static void left_free(struct left_out *l, size_t n);

void plan_free(struct plan *pl)
{
	free(pl->rules); /* (their strings: pl->strs, pl->wheres) */
	str_arena_free(&pl->strs);
	si_free(&pl->wheres);
	for (size_t i = 0; i < pl->nmounts; i++) {
		free(pl->mounts[i].path);
		free(pl->mounts[i].where);
	}
	free(pl->mounts);
	for (size_t i = 0; i < pl->nports; i++)
		free(pl->ports[i].where);
	free(pl->ports);
	sv_free(&pl->expanded);
	free(pl->sc);
	sv_free(&pl->notices);
	sv_free(&pl->remarks);
	left_free(pl->left, pl->nleft);
	left_free(pl->refused, pl->nrefused);
	sv_free(&pl->unprotected);
	free(pl->home);
	sv_free(&pl->trees);
	memset(pl, 0, sizeof *pl);
}

/* The profile's list keys a rule's location can start with: a location
 * ".key[N]" is kept as the key's number here and N. */
static const char *const list_keys[] = {
	".readable", ".executable", ".writable", ".caches", ".devices",
	".read_only", ".hidden", ".protect", NULL};

/* `where` as (list key number, entry) when it is ".key[N]" of a known
 * key, else -1 (*key untouched). */
static int32_t where_entry(const char *where, uint8_t *key)
{
	const char *b = strchr(where, '[');
	if (!b || b == where || b[1] < '0' || b[1] > '9' || (b[1] == '0' && b[2] != ']'))
		return -1;
	char *end;
	errno = 0;
	unsigned long n = strtoul(b + 1, &end, 10);
	if (errno || n > INT32_MAX || end[0] != ']' || end[1])
		return -1;
	for (size_t k = 0; list_keys[k]; k++)
		if (strlen(list_keys[k]) == (size_t)(b - where) &&
		    memcmp(list_keys[k], where, (size_t)(b - where)) == 0) {
			*key = (uint8_t)k;
			return (int32_t)n;
		}
	return -1;
}

_Static_assert(LL_FS_RESOLVE_UNIX < (1ULL << 31), "struct ll_path_rule keeps 32 bits of filesystem rights");

struct ll_path_rule *plan_add_rule_kept(struct plan *pl, const char *path, bool lent, int fd,
					const char *where, uint64_t access, bool is_dir)
{
	if (!is_dir)
		access &= LL_FS_FILE_RIGHTS;
	access &= pl->handled_fs;
	/* landlock_add_rule refuses an empty access mask (ENOMSG); a rule
	 * granting nothing is simply not needed. */
	if (!access)
		return NULL;
	if (pl->nrules == pl->caprules) {
		pl->caprules = pl->caprules ? pl->caprules * 2 : 32;
		pl->rules = xrealloc(pl->rules, pl->caprules * sizeof *pl->rules);
	}
	uint8_t key = PLAN_WHERE_WHOLE;
	int32_t entry = where_entry(where, &key);
	if (entry < 0) {
		bool added;
		entry = (int32_t)si_add(&pl->wheres, where, &added);
	}
	pl->rules[pl->nrules] = (struct ll_path_rule){
		.path = lent ? path : str_arena_dup(&pl->strs, path),
		.access = (uint32_t)access, .entry = entry, .fd = fd, .key = key, .is_dir = is_dir};
	return &pl->rules[pl->nrules++];
}

struct ll_path_rule *plan_add_rule(struct plan *pl, const char *path, const char *where,
				   uint64_t access, bool is_dir)
{
	return plan_add_rule_kept(pl, path, false, -1, where, access, is_dir);
}

const char *plan_rule_where(const struct plan *pl, const struct ll_path_rule *r, char *buf, size_t n)
{
	if (r->key == PLAN_WHERE_WHOLE)
		return (size_t)r->entry < pl->wheres.n ? pl->wheres.str[r->entry] : "?";
	snprintf(buf, n, "%s[%ld]", list_keys[r->key], (long)r->entry);
	return buf;
}

bool plan_rule_in_list(const struct ll_path_rule *r, const char *key)
{
	return r->key != PLAN_WHERE_WHOLE && strcmp(list_keys[r->key], key) == 0;
}

bool plan_rule_from(const struct plan *pl, const struct ll_path_rule *r, const char *where)
{
	uint8_t key = PLAN_WHERE_WHOLE;
	int32_t entry = where_entry(where, &key);
	if (entry >= 0)
		return r->key == key && r->entry == entry;
	return r->key == PLAN_WHERE_WHOLE && (size_t)r->entry < pl->wheres.n &&
	       strcmp(pl->wheres.str[r->entry], where) == 0;
}

static int op_rank(enum mount_op op)
{
	switch (op) {
	case MNT_PIN: return 0;
	case MNT_RO_BIND: return 1;
	default: return 2; /* masks, views, tmp, keep replace what is there */
	}
}

struct mount_rule *plan_add_mount(struct plan *pl, enum mount_op op, const char *path,
				  const char *where, bool is_dir)
{
	for (size_t i = 0; i < pl->nmounts; i++) {
		struct mount_rule *m = &pl->mounts[i];
		if (strcmp(m->path, path) != 0)
			continue;
		/* one rule per path: the strongest wins */
		if (op_rank(op) > op_rank(m->op)) {
			m->op = op;
			m->is_dir = is_dir;
			m->content = NULL;
			free(m->where);
			m->where = xstrdup(where);
		}
		return m;
	}
	pl->mounts = xgrow(pl->mounts, pl->nmounts, sizeof *pl->mounts);
	pl->mounts[pl->nmounts] = (struct mount_rule){op, xstrdup(path), xstrdup(where), is_dir, NULL, false};
	return &pl->mounts[pl->nmounts++];
}

void plan_notice(struct plan *pl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[1024];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sv_push(&pl->notices, buf);
}

void plan_left(struct plan *pl, bool refused, const char *where, const char *part,
	       const char *reason, const char *key)
{
	struct left_out **a = refused ? &pl->refused : &pl->left;
	size_t *n = refused ? &pl->nrefused : &pl->nleft;
	*a = xgrow(*a, *n, sizeof **a);
	(*a)[(*n)++] = (struct left_out){xstrdup(part), xstrdup(reason), xstrdup(key),
					 xstrdup(where ? where : "")};
}

void plan_left_line(const struct plan *pl, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (size_t i = 0; i < pl->nleft && o + 1 < n; i++) {
		const struct left_out *l = &pl->left[i];
		int w = snprintf(buf + o, n - o, "%s%s (%s; %s%s)", i ? "; " : "left out: ",
				 l->part, l->reason, l->key[0] == '.' ? "allowed by " : "", l->key);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

static void left_free(struct left_out *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].part);
		free(l[i].reason);
		free(l[i].key);
		free(l[i].where);
	}
	free(l);
}

static json_t *rights(int kind, uint64_t mask)
{
	json_t *a = json_array();
	for (int b = 0; b < 64; b++)
		if (mask & (1ULL << b)) {
			const char *n = ll_right_name(kind, 1ULL << b);
			json_array_append_new(a, json_string(n ? n : "?"));
		}
	return a;
}

static json_t *strs(const struct strvec *sv)
{
	json_t *a = json_array();
	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, json_string(sv->v[i]));
	return a;
}

const char *plan_errno_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ENOSYS: return "ENOSYS";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	default: return "?";
	}
}

static json_t *sc_json(const struct plan *pl)
{
	static const char *const ops[] = {"==", "!=", ">=", "&mask=="};
	json_t *a = json_array();
	for (size_t i = 0; i < pl->nsc; i++) {
		const struct sc_rule *r = &pl->sc[i];
		json_t *o = json_pack("{s:s, s:s, s:s}", "syscall", r->syscall,
				      "action", plan_errno_name(r->err), "why", r->why);
		if (r->ncmp) {
			json_t *c = json_array();
			for (unsigned k = 0; k < r->ncmp; k++) {
				json_t *x = json_pack("{s:i, s:s, s:I}", "arg", r->cmp[k].arg,
						      "op", ops[r->cmp[k].op],
						      "value", (json_int_t)r->cmp[k].datum);
				if (r->cmp[k].op == SC_MASKED_EQ)
					json_object_set_new(x, "mask", json_integer(r->cmp[k].mask));
				json_array_append_new(c, x);
			}
			json_object_set_new(o, "when", c);
		}
		json_array_append_new(a, o);
	}
	return a;
}

char *plan_json(const struct plan *pl)
{
	const struct profile *p = pl->prof;
	json_t *root = json_object();
	json_t *ll = json_object();
	json_object_set_new(ll, "enforced", json_boolean(pl->landlock));
	json_object_set_new(ll, "abi", json_integer(pl->abi));
	json_object_set_new(ll, "handled_access_fs", rights(0, pl->handled_fs));
	json_object_set_new(ll, "handled_access_net", rights(1, pl->handled_net));
	json_object_set_new(ll, "scoped", rights(2, pl->scoped));
	json_t *rules = json_array();
	for (size_t i = 0; i < pl->nrules; i++) {
		const struct ll_path_rule *r = &pl->rules[i];
		char w[PLAN_WHERE_MAX];
		json_t *o = json_pack("{s:s, s:s, s:o}", "path", r->path, "from", plan_rule_where(pl, r, w, sizeof w),
				      "access", rights(0, r->access));
		if (r->create_dir)
			json_object_set_new(o, "create", json_true());
		json_array_append_new(rules, o);
	}
	json_object_set_new(ll, "path_rules", rules);
	json_t *ports = json_array();
	for (size_t i = 0; i < pl->nports; i++)
		json_array_append_new(ports, json_pack("{s:i, s:o}", "port", pl->ports[i].port,
						       "access", rights(1, pl->ports[i].access)));
	json_object_set_new(ll, "port_rules", ports);
	json_object_set_new(ll, "expanded_around", strs(&pl->expanded));
	json_object_set_new(root, "landlock", ll);

	static const char *const ops[] = {"pin", "read_only", "mask_dir", "mask_file",
		"private_tmp", "view", "keep", "private_tmpfs", "private_devpts", "read_only_root", "writable"};
	json_t *ns = json_pack("{s:b, s:b, s:b, s:s}", "mount", pl->mount_ns, "network", pl->net_ns,
			       "pid", pl->pid_ns,
			       "carve", pl->expansion ? "expansion" : pl->mount_ns ? "mounts" : "none");
	json_t *mnts = json_array();
	for (size_t i = 0; i < pl->nmounts; i++)
		json_array_append_new(mnts, json_pack("{s:s, s:s, s:s}", "op", ops[pl->mounts[i].op],
						      "path", pl->mounts[i].path, "from", pl->mounts[i].where));
	json_object_set_new(ns, "mounts", mnts);
	json_object_set_new(root, "namespaces", ns);

	json_t *sc = json_object();
	json_object_set_new(sc, "enforced", json_boolean(pl->seccomp));
	json_object_set_new(sc, "default_action", json_string("allow"));
	json_object_set_new(sc, "bad_arch_action", json_string("kill_process"));
	json_object_set_new(sc, "rules", sc_json(pl));
	if (pl->denials_fd >= 0)
		json_object_set_new(sc, "denials", json_pack("{s:i}", "fd", pl->denials_fd));
	json_object_set_new(root, "seccomp", sc);

	json_t *caps = json_array();
	for (int c = 0; c < 64; c++)
		if (pl->keep_caps & (1ULL << c)) {
			char n[64];
			cap_name(c, n, sizeof n);
			json_array_append_new(caps, json_string(n));
		}
	json_object_set_new(root, "capabilities_kept", caps);
	json_object_set_new(root, "no_new_privs", json_true());

	json_t *env = json_pack("{s:b, s:o, s:o, s:o}", "clear", p->env.clear,
				"keep", strs(&p->env.keep), "unset", strs(&p->env.unset),
				"set", strs(&p->env.set));
	if (p->tmp)
		json_object_set_new(env, "tmpdir", json_string(p->tmp));
	if (pl->home)
		json_object_set_new(env, "home", json_string(pl->home));
	json_object_set_new(root, "env", env);
	json_t *rl = json_object();
	for (size_t i = 0; i < p->nrlimits; i++)
		json_object_set_new(rl, p->rlimits[i].name,
				    json_pack("[I,I]", (json_int_t)p->rlimits[i].soft,
					      (json_int_t)p->rlimits[i].hard));
	json_object_set_new(root, "rlimits", rl);
	json_object_set_new(root, "die_with_parent", json_boolean(p->die_with_parent));
	json_object_set_new(root, "new_session", json_boolean(p->new_session));
	/* how no process outlives the command: shim/life.c */
	json_object_set_new(root, "no_survivors", !p->no_survivors ? json_false()
			    : json_string(pl->pid_ns ? "pid_namespace" : "subreaper"));
	if (p->cwd)
		json_object_set_new(root, "cwd", json_string(p->cwd));
	if (p->user.set) {
		/* ids as resolved by the shim (shim/user.c) before fit */
		json_t *g = json_array();
		for (size_t i = 0; i < p->user.ngroups; i++)
			json_array_append_new(g, json_integer(p->user.groups[i]));
		json_t *u = json_pack("{s:I, s:I, s:o}", "uid", (json_int_t)p->user.uid,
				      "gid", (json_int_t)p->user.gid, "groups", g);
		if (p->user.name)
			json_object_set_new(u, "name", json_string(p->user.name));
		json_object_set_new(root, "user", u);
	}

	json_t *left = json_array();
	for (size_t i = 0; i < pl->nleft; i++)
		json_array_append_new(left, json_pack("{s:s, s:s, s:s}", "part", pl->left[i].part,
						      "reason", pl->left[i].reason,
						      "allowed_by", pl->left[i].key));
	json_object_set_new(root, "left_out", left);
	json_t *refused = json_array();
	for (size_t i = 0; i < pl->nrefused; i++)
		json_array_append_new(refused, json_pack("{s:s, s:s, s:s, s:s}", "part", pl->refused[i].part,
							 "reason", pl->refused[i].reason,
							 "where", pl->refused[i].where,
							 "allow_with", pl->refused[i].key));
	json_object_set_new(root, "refused", refused);
	json_object_set_new(root, "unprotected", strs(&pl->unprotected));
	json_object_set_new(root, "notices", strs(&pl->notices));
	json_object_set_new(root, "remarks", strs(&pl->remarks));
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return s;
}

/* Plan lifetime and its JSON rendering (what --check prints). */
#include "plan.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "landlock_abi.h"
#include "names.h"

void plan_free(struct plan *pl)
{
	for (size_t i = 0; i < pl->nrules; i++) {
		free(pl->rules[i].path);
		free(pl->rules[i].where);
	}
	free(pl->rules);
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
	for (size_t i = 0; i < pl->nleft; i++) {
		free(pl->left[i].part);
		free(pl->left[i].reason);
		free(pl->left[i].key);
	}
	free(pl->left);
	memset(pl, 0, sizeof *pl);
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

static const char *errno_name(int e)
{
	switch (e) {
	case 1: return "EPERM";
	case 38: return "ENOSYS";
	case 93: return "EPROTONOSUPPORT";
	case 97: return "EAFNOSUPPORT";
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
				      "action", errno_name(r->err), "why", r->why);
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
		json_t *o = json_pack("{s:s, s:s, s:o}", "path", r->path, "from", r->where,
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
		"occupy", "view", "keep", "private_tmpfs", "private_devpts"};
	json_t *ns = json_pack("{s:b, s:b, s:s}", "mount", pl->mount_ns, "network", pl->net_ns,
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
	json_object_set_new(root, "env", env);
	json_t *rl = json_object();
	for (size_t i = 0; i < p->nrlimits; i++)
		json_object_set_new(rl, p->rlimits[i].name,
				    json_pack("[I,I]", (json_int_t)p->rlimits[i].soft,
					      (json_int_t)p->rlimits[i].hard));
	json_object_set_new(root, "rlimits", rl);
	json_object_set_new(root, "die_with_parent", json_boolean(p->die_with_parent));
	json_object_set_new(root, "new_session", json_boolean(p->new_session));
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
	json_object_set_new(root, "notices", strs(&pl->notices));
	json_object_set_new(root, "remarks", strs(&pl->remarks));
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return s;
}

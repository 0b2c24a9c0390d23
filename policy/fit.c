/* fit: decide the whole plan before anything is applied. */
#include "fit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landlock_abi.h"
#include "names.h"

void plan_add_rule(struct plan *pl, const char *path, const char *where,
		   uint64_t access, bool is_dir)
{
	if (!is_dir)
		access &= LL_FS_FILE_RIGHTS;
	access &= pl->handled_fs;
	/* landlock_add_rule refuses an empty access mask (ENOMSG); a rule
	 * granting nothing is simply not needed. */
	if (!access)
		return;
	if (pl->nrules == pl->caprules) {
		pl->caprules = pl->caprules ? pl->caprules * 2 : 32;
		pl->rules = xrealloc(pl->rules, pl->caprules * sizeof *pl->rules);
	}
	pl->rules[pl->nrules++] = (struct ll_path_rule){
		.path = xstrdup(path), .where = xstrdup(where),
		.access = access, .is_dir = is_dir};
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

/* A part the host cannot enforce: left out (with a notice) when the
 * profile allows it, otherwise a refusal naming `where` and the key that
 * would allow it.  Returns 0 or -1. */
static int gap(struct plan *pl, const struct profile *p, unsigned part,
	       const char *where, const char *what, const char *reason,
	       struct sb_err *err)
{
	const char *name = part ? unenforced_name(part) : NULL;
	char key[64];
	if (part && (p->unenforced & part))
		snprintf(key, sizeof key, ".unenforced.%s", name);
	else if (p->best_effort)
		snprintf(key, sizeof key, ".best_effort");
	else if (name)
		return sb_fail(err, where, NULL, "%s %s (to run without it, set unenforced.%s)",
			       what, reason, name);
	else
		return sb_fail(err, where, NULL, "%s %s (to run without it, set best_effort)",
			       what, reason);
	pl->left = xrealloc(pl->left, (pl->nleft + 1) * sizeof *pl->left);
	pl->left[pl->nleft++] = (struct left_out){
		xstrdup(what), xstrdup(reason), xstrdup(key)};
	plan_notice(pl, "left out: %s: %s (allowed by %s)", what, reason, key);
	return 0;
}

static int not_yet(const char *where, const char *what, struct sb_err *err)
{
	return sb_fail(err, where, NULL, "%s is not available yet in this version of __sandbox; remove the key to run without it", what);
}

/* Later layers (mounts, carve-outs, loopback, user switch) are refused
 * when asked for, never ignored. */
static int refuse_unbuilt(const struct profile *p, struct sb_err *err)
{
	if (p->read_only.v.n)
		return not_yet(".read_only", "read-only carve-outs", err);
	if (p->hidden.v.n)
		return not_yet(".hidden", "hidden paths", err);
	if (p->protect_set && p->protect.n)
		return not_yet(".protect", "the protect list", err);
	if (p->protect_extra.n)
		return not_yet(".protect_extra", "the protect list", err);
	if (p->mounts == MOUNTS_REQUIRED)
		return not_yet(".mounts", "a mount namespace", err);
	if (p->network == NET_LOOPBACK)
		return not_yet(".network", "the loopback network namespace", err);
	if (p->user.set)
		return not_yet(".user", "switching user", err);
	return 0;
}

static bool path_within(const char *inner, const char *outer)
{
	size_t n = strlen(outer);
	if (strcmp(outer, "/") == 0)
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == 0 || inner[n] == '/');
}

/* Resolve one profile path; 1 if usable (canon/kind set), 0 if skipped
 * with a notice, -1 on a refusal. */
static int resolve_entry(struct plan *pl, const struct fs_view *fs,
			 const char *where, const char *path, bool must_exist,
			 char *canon, size_t n, enum fs_kind *kind,
			 struct sb_err *err)
{
	int r = fs->resolve(fs->ctx, path, canon, n, kind);
	if (r == 0)
		return 1;
	if (must_exist)
		return sb_fail(err, where, path, "%s", strerror(-r));
	plan_notice(pl, "%s \"%s\": skipped: %s", where, path, strerror(-r));
	return 0;
}

/* Grant every path of one list; trees that contain /dev are granted
 * around it, trees inside /dev are refused (devices are granted through
 * `devices` only, DESIGN.md "Filesystem"). */
static int grant_list(struct plan *pl, const struct fs_view *fs,
		      const struct pathlist *l, uint64_t access, bool first_required,
		      const struct strvec *excluded, const char *tmp, struct sb_err *err)
{
	for (size_t i = 0; i < l->v.n; i++) {
		char where[96], canon[4096];
		enum fs_kind kind;
		/* tmp may not exist yet: its own rule below carries execute */
		if (tmp && strcmp(l->v.v[i], tmp) == 0)
			continue;
		snprintf(where, sizeof where, ".%s[%zu]", l->key, i);
		int r = resolve_entry(pl, fs, where, l->v.v[i], first_required && i == 0,
				      canon, sizeof canon, &kind, err);
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		if (path_within(canon, "/dev") && strcmp(canon, "/") != 0)
			return sb_fail(err, where, l->v.v[i], "resolves inside /dev (%s); device nodes are granted through \"devices\" only", canon);
		if (first_required && i == 0 && kind != FS_DIR)
			return sb_fail(err, where, l->v.v[i], "the workspace must be a directory");
		if (carve_grant(pl, fs, canon, kind, access, where, excluded, err))
			return -1;
	}
	return 0;
}

static int grant_devices(struct plan *pl, const struct fs_view *fs,
			 const struct profile *p, struct sb_err *err)
{
	for (size_t i = 0; i < p->devices.v.n; i++) {
		char where[96], canon[4096];
		enum fs_kind kind;
		snprintf(where, sizeof where, ".devices[%zu]", i);
		int r = resolve_entry(pl, fs, where, p->devices.v.v[i], false,
				      canon, sizeof canon, &kind, err);
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		if (!path_within(canon, "/dev") || strcmp(canon, "/dev") == 0)
			return sb_fail(err, where, p->devices.v.v[i], "resolves to %s, which is not a device node or directory inside /dev", canon);
		size_t before = pl->nrules;
		plan_add_rule(pl, canon, where,
			      kind == FS_DIR ? GRANT_DEVDIR : GRANT_DEVICE,
			      kind == FS_DIR);
		/* Opening a device node (not O_PATH) is what fails without a
		 * terminal (/dev/tty: ENXIO); the shim tries it and skips. */
		if (pl->nrules > before && kind != FS_DIR)
			pl->rules[pl->nrules - 1].open_check = true;
	}
	return 0;
}

static int fit_landlock(const struct profile *p, const struct host *h,
			const struct fs_view *fs, struct plan *pl, struct sb_err *err)
{
	if (h->ll_abi <= 0) {
		const char *why = h->ll_errno == EOPNOTSUPP
			? "Landlock is built into this kernel but disabled at boot (add landlock to the lsm= boot parameter)"
			: "this kernel has no Landlock (needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK)";
		if (!p->best_effort)
			return sb_fail(err, NULL, NULL, "%s; refusing to run unconfined (set best_effort to run without it)", why);
		return gap(pl, p, 0, NULL, "Landlock", why, err);
	}
	int abi = h->ll_abi > LL_ABI_KNOWN ? LL_ABI_KNOWN : h->ll_abi;
	char have[64];
	snprintf(have, sizeof have, "; this kernel has %d", h->ll_abi);
	pl->landlock = true;
	pl->abi = abi;
	pl->handled_fs = ll_fs_rights(abi);
	if (p->unix_sockets == UNIX_ANY)
		pl->handled_fs &= ~LL_FS_RESOLVE_UNIX;

	if (abi < 2)
		sv_push(&pl->remarks, "Landlock ABI 1: renaming or linking across directories is always refused (refer needs ABI 2)");
	if (abi < 3) {
		char r[96];
		snprintf(r, sizeof r, "needs Landlock ABI 3%s", have);
		if (gap(pl, p, UNF_TRUNCATE, ".writable", "truncate restriction (files outside writable trees can be truncated)", r, err))
			return -1;
	}

	/* Network: one ruleset with the filesystem rights, so a second layer
	 * never vetoes refer (REFERENCE.md). With network off TCP/UDP sockets
	 * cannot even be created (seccomp), so Landlock's port rules are a
	 * second wall there, not a requirement. */
	uint64_t net = ll_net_rights(abi);
	bool tcp_lists = p->tcp_bind.set || p->tcp_connect.set;
	bool udp_lists = p->udp_bind.set || p->udp_connect.set;
	if (p->network != NET_ON) {
		const char *k = p->tcp_bind.set ? ".tcp_bind" : p->tcp_connect.set ? ".tcp_connect" :
				p->udp_bind.set ? ".udp_bind" : p->udp_connect.set ? ".udp_connect" : NULL;
		if (k)
			return sb_fail(err, k, NULL, "port lists need network \"on\" (network \"off\" refuses every TCP and UDP socket)");
		pl->handled_net = net;
	} else {
		if (tcp_lists) {
			if (abi < 4) {
				char r[96];
				snprintf(r, sizeof r, "needs Landlock ABI 4%s", have);
				if (gap(pl, p, UNF_TCP_PORTS, p->tcp_bind.set ? ".tcp_bind" : ".tcp_connect", "TCP port rules", r, err))
					return -1;
			} else {
				/* an absent list stays unrestricted (DESIGN.md) */
				pl->handled_net |= (p->tcp_bind.set ? LL_NET_BIND_TCP : 0) |
						   (p->tcp_connect.set ? LL_NET_CONNECT_TCP : 0);
			}
		}
		if (udp_lists) {
			if (abi < 10) {
				char r[96];
				snprintf(r, sizeof r, "needs Landlock ABI 10%s", have);
				if (gap(pl, p, UNF_UDP_PORTS, p->udp_bind.set ? ".udp_bind" : ".udp_connect", "UDP port rules", r, err))
					return -1;
			} else {
				pl->handled_net |= (p->udp_bind.set ? LL_NET_BIND_UDP : 0) |
						   (p->udp_connect.set ? LL_NET_CONNECT_SEND_UDP : 0);
			}
		} else {
			sv_push(&pl->remarks, "network \"on\" without udp_bind/udp_connect: UDP is not restricted");
		}
		const struct { const struct portlist *l; uint64_t a; } pls[] = {
			{&p->tcp_bind, LL_NET_BIND_TCP}, {&p->tcp_connect, LL_NET_CONNECT_TCP},
			{&p->udp_bind, LL_NET_BIND_UDP}, {&p->udp_connect, LL_NET_CONNECT_SEND_UDP}};
		for (size_t k = 0; k < 4; k++) {
			if (!(pl->handled_net & pls[k].a))
				continue;
			for (size_t i = 0; i < pls[k].l->n; i++) {
				pl->ports = xrealloc(pl->ports, (pl->nports + 1) * sizeof *pl->ports);
				pl->ports[pl->nports++] = (struct ll_port_rule){pls[k].l->v[i], pls[k].a};
			}
		}
	}

	/* Scopes (ABI 6). */
	if (p->signals == SIG_SCOPED) {
		if (abi >= 6) {
			pl->scoped |= LL_SCOPE_SIGNAL;
		} else {
			char r[96];
			snprintf(r, sizeof r, "needs Landlock ABI 6%s", have);
			if (gap(pl, p, UNF_SIGNAL_SCOPE, ".signals", "signal scope", r, err))
				return -1;
		}
	}
	if (p->unix_sockets != UNIX_ANY) {
		/* with "none" no AF_UNIX socket can be created (seccomp), so the
		 * scopes are a second wall, not a requirement */
		if (abi >= 6) {
			pl->scoped |= LL_SCOPE_ABSTRACT_UNIX_SOCKET;
		} else if (p->unix_sockets == UNIX_SCOPED) {
			char r[96];
			snprintf(r, sizeof r, "needs Landlock ABI 6%s", have);
			if (gap(pl, p, UNF_WORKSPACE_SOCKETS, ".unix_sockets", "abstract unix socket scope", r, err))
				return -1;
		}
		/* Pathname sockets: FS_RESOLVE_UNIX (ABI 9), granted on writable
		 * trees and tmp only; below that only mounts could hide host
		 * daemons' sockets, and they are not built yet. */
		if (abi < 9 && p->unix_sockets == UNIX_SCOPED) {
			char r[160];
			snprintf(r, sizeof r, "needs Landlock ABI 9%s (mount views of /run and /tmp are not available yet)", have);
			if (gap(pl, p, UNF_WORKSPACE_SOCKETS, ".unix_sockets", "pathname unix socket scope (sockets outside writable trees stay reachable)", r, err))
				return -1;
		}
	}

	/* Filesystem grants.  /dev is never reached through a tree. */
	struct strvec excl = {0};
	sv_push(&excl, "/dev");
	int rc = -1;
	uint64_t all = ll_fs_rights(abi);
	/* Execute comes from `executable` alone (its default holds the
	 * writable trees and tmp), so an explicit list narrows it. */
	if (grant_list(pl, fs, &p->writable, all & ~LL_FS_EXECUTE, true, &excl, NULL, err) ||
	    grant_list(pl, fs, &p->readable, GRANT_READ, false, &excl, NULL, err) ||
	    grant_list(pl, fs, &p->executable, GRANT_EXEC, false, &excl, p->tmp, err) ||
	    grant_list(pl, fs, &p->caches, GRANT_READ, false, &excl, NULL, err) ||
	    grant_devices(pl, fs, p, err))
		goto out;
	if (p->tmp) {
		char canon[4096];
		enum fs_kind kind;
		int r = fs->resolve(fs->ctx, p->tmp, canon, sizeof canon, &kind);
		if (r == 0 && kind != FS_DIR) {
			sb_fail(err, ".tmp", p->tmp, "exists and is not a directory");
			goto out;
		}
		if (r < 0 && r != -ENOENT) {
			sb_fail(err, ".tmp", p->tmp, "%s", strerror(-r));
			goto out;
		}
		if (path_within(r == 0 ? canon : p->tmp, "/dev")) {
			sb_fail(err, ".tmp", p->tmp, "resolves inside /dev");
			goto out;
		}
		/* The literal path: the shim refuses a symlink there itself. */
		bool exec = sv_has(&p->executable.v, p->tmp);
		plan_add_rule(pl, p->tmp, ".tmp", exec ? all : all & ~LL_FS_EXECUTE, true);
		pl->rules[pl->nrules - 1].create_dir = r == -ENOENT;
	}
	rc = 0;
out:
	sv_free(&excl);
	return rc;
}

static int fit_caps(const struct profile *p, const struct host *h,
		    struct plan *pl, struct sb_err *err)
{
	for (size_t i = 0; i < p->ncaps; i++) {
		int c = p->caps[i];
		if (c >= 64 || !(h->cap_permitted & (1ULL << c))) {
			char where[64];
			snprintf(where, sizeof where, ".capabilities[%zu]", i);
			char name[64];
			cap_name(c, name, sizeof name);
			return sb_fail(err, where, NULL, "%s is not held by this process, so it cannot be kept", name);
		}
		pl->keep_caps |= 1ULL << c;
	}
	return 0;
}

int fit(const struct profile *p, const struct host *h, const struct fs_view *fs,
	struct plan *pl, struct sb_err *err)
{
	memset(pl, 0, sizeof *pl);
	pl->prof = p;
	if (refuse_unbuilt(p, err) || fit_landlock(p, h, fs, pl, err) ||
	    fit_caps(p, h, pl, err))
		goto fail;
	if (!h->seccomp) {
		char r[128];
		snprintf(r, sizeof r, "is not available on this kernel: %s", strerror(h->seccomp_errno));
		if (!p->best_effort) {
			sb_fail(err, NULL, NULL, "seccomp filtering %s; refusing to run unconfined (set best_effort to run without it)", r);
			goto fail;
		}
		if (gap(pl, p, 0, NULL, "seccomp filter", r, err))
			goto fail;
	} else {
		pl->seccomp = true;
		filter_build(p, h, (pl->handled_net & (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)) && p->network == NET_ON, pl);
	}
	if (p->writable.v.n && p->protect.n)
		plan_notice(pl, "the built-in protect list (.git/hooks, .git/config, .envrc, ...) is not enforced yet: writable trees are writable throughout");
	return 0;
fail:
	plan_free(pl);
	return -1;
}

/* fit: decide the whole plan before anything is applied. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carve.h"
#include "fit_int.h"
#include "fscache.h"
#include "landlock_abi.h"
#include "names.h"

/* Resolve one profile path; 1 if usable (canon/kind set), 0 if skipped
 * (with a notice unless `quiet`: a default entry, or a cache that is
 * simply not there yet), -1 on a refusal. */
static int resolve_entry(struct plan *pl, const struct fs_view *fs,
			 const char *where, const char *path, bool must_exist,
			 bool quiet, char *canon, size_t n, enum fs_kind *kind,
			 struct sb_err *err)
{
	int r = fs->resolve(fs->ctx, path, canon, n, kind);
	if (r == 0)
		return 1;
	if (must_exist)
		return sb_fail(err, where, path, "%s", strerror(-r));
	if (!quiet)
		plan_notice(pl, "%s \"%s\": skipped: %s", where, path, strerror(-r));
	return 0;
}

/* Grant the paths of one list from entry `from` on; trees that contain
 * /dev are granted around it, trees inside /dev are refused (devices are
 * granted through `devices` only, DESIGN.md "Filesystem"). */
static int grant_list(struct fitctx *fc, const struct pathlist *l, size_t from, uint64_t access,
		      bool first_required, const struct strvec *excluded,
		      const char *tmp, struct sb_err *err)
{
	struct plan *pl = fc->pl;
	for (size_t i = from; i < l->v.n; i++) {
		char where[96];
		const char *canon;
		enum fs_kind kind;
		/* tmp may not exist yet: its own rule below carries execute */
		if (tmp && strcmp(l->v.v[i], tmp) == 0)
			continue;
		loc_entry(where, sizeof where, l->key, i);
		bool quiet = !l->set || strcmp(l->key, "caches") == 0;
		int r = fit_entry(fc, l, i, &canon, &kind);
		if (r && first_required && i == 0)
			return sb_fail(err, where, l->v.v[i], "%s", strerror(-r));
		if (r && !quiet)
			plan_notice(pl, "%s \"%s\": skipped: %s", where, l->v.v[i], strerror(-r));
		if (r)
			continue;
		if (path_within(canon, "/dev") && strcmp(canon, "/") != 0)
			return sb_fail(err, where, l->v.v[i], "resolves inside /dev (%s); device nodes are granted through \"devices\" only", canon);
		if (first_required && i == 0 && kind != FS_DIR)
			return sb_fail(err, where, l->v.v[i], "the workspace must be a directory");
		/* (a list entry that is its own canonical name: the profile's
		 * string, which outlives the plan) */
		if (carve_grant(pl, fc->fs, canon, canon == l->v.v[i], fit_entry_kept(fc, l, i), kind,
				access, where, excluded, err))
			return -1;
	}
	return 0;
}

static int grant_devices(struct plan *pl, const struct fs_view *fs,
			 const struct profile *p, const struct host *h,
			 struct sb_err *err)
{
	for (size_t i = 0; i < p->devices.v.n; i++) {
		char where[96], canon[4096];
		enum fs_kind kind;
		snprintf(where, sizeof where, ".devices[%zu]", i);
		int r = resolve_entry(pl, fs, where, p->devices.v.v[i], false,
				      !p->devices.set, canon, sizeof canon, &kind, err);
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		int kept = fs_view_kept(fs);
		if (!path_within(canon, "/dev") || strcmp(canon, "/dev") == 0)
			return sb_fail(err, where, p->devices.v.v[i], "resolves to %s, which is not a device node or directory inside /dev", canon);
		if (strcmp(canon, "/dev/tty") == 0 && !h->stdio_terminal) {
			/* A command none of whose stdio is a terminal (a server
			 * on pipes) must not reach the user's terminal through
			 * the controlling one: a fake prompt, reading what is
			 * typed, taking the foreground process group. */
			if (p->devices.set)
				plan_notice(pl, "%s \"%s\": skipped: none of the command's stdin, stdout and stderr is a terminal", where, p->devices.v.v[i]);
			continue;
		}
		if (strcmp(canon, "/dev/pts") == 0 && !pl->mount_ns) {
			/* The host's /dev/pts holds every terminal of this user:
			 * without a private instance (mount namespace) only the
			 * command's own terminal is granted. */
			for (int t = 0; t < 3; t++)
				if (h->stdio_tty[t][0] && (t == 0 || strcmp(h->stdio_tty[t], h->stdio_tty[t - 1]) != 0))
					plan_add_rule(pl, h->stdio_tty[t], where, GRANT_DEVICE, false);
			sv_push(&pl->remarks, "/dev/pts: no mount namespace for a private instance, so only the terminal on the command's stdio is granted (new pseudo-terminals cannot be opened)");
			continue;
		}
		struct ll_path_rule *ru = plan_add_rule_kept(pl, canon, false, kept, where,
							    kind == FS_DIR ? GRANT_DEVDIR : GRANT_DEVICE,
							    kind == FS_DIR);
		/* The controlling terminal is the one device whose presence
		 * depends on the session (no terminal: ENXIO); the shim opens
		 * it for real and skips it — silently when it came from the
		 * default list.  Other nodes are not opened: that would
		 * allocate a pty for /dev/ptmx on every start. */
		if (ru && strcmp(canon, "/dev/tty") == 0) {
			ru->open_check = true;
			ru->quiet = !p->devices.set;
		}
	}
	return 0;
}


void fit_gap(struct fitctx *fc, unsigned part, const char *where,
	     const char *what, const char *reason)
{
	const struct profile *p = fc->p;
	const char *name = part ? unenforced_name(part) : NULL;
	char key[64];
	if (part && (p->unenforced & part))
		snprintf(key, sizeof key, ".unenforced.%s", name);
	else if (p->best_effort)
		snprintf(key, sizeof key, ".best_effort");
	else {
		/* Landlock or seccomp missing altogether: say what not
		 * leaving it out means */
		char r[600];
		snprintf(r, sizeof r, "%s%s", reason, name ? "" : "; refusing to run unconfined");
		snprintf(key, sizeof key, "%s%s", name ? "unenforced." : "best_effort", name ? name : "");
		plan_left(fc->pl, true, where, what, r, key);
		return;
	}
	plan_left(fc->pl, false, where, what, reason, key);
}

/* The memo slot of entry i of list `l` (the default executable list's
 * entries are readable's and writable's: theirs), asked on first use;
 * with rc 0, its canonical name in *canon (the entry itself, or the
 * copy kept aside). */
static const struct fit_canon *memo_slot(const struct fitctx *fc, const struct pathlist *l,
					 size_t i, const char **canon)
{
	const struct profile *p = fc->p;
	const struct pathlist *lists[4] = {&p->writable, &p->readable, &p->executable, &p->caches};
	size_t k = 0;
	while (k < 4 && lists[k] != l)
		k++;
	if (k == 4 || i >= l->v.n)
		abort(); /* (a caller's mistake, not input) */
	/* the default executable list: readable's entries, then writable's
	 * (the same strings, lent by profile_parse) */
	if (l == &p->executable && !p->executable.set && i < p->readable.v.n + p->writable.v.n)
		return i < p->readable.v.n ? memo_slot(fc, &p->readable, i, canon)
					   : memo_slot(fc, &p->writable, i - p->readable.v.n, canon);
	struct fit_memo *m = fc->memo;
	if (!m->v[k])
		m->v[k] = xcalloc(l->v.n + 1, sizeof *m->v[k]);
	struct fit_canon *c = &m->v[k][i];
	if (!c->state) {
		char buf[4096];
		enum fs_kind got = FS_MISSING;
		c->fd = -1;
		/* through the cache: an entry listed twice, or in two lists,
		 * or resolved again by the git routes, the home files or a
		 * carve-out, gets the same answer from one look; the
		 * profile's string lives longer than the cache, so the cache
		 * keeps it instead of a copy */
		const char *path = l->v.v[i];
		int rc = fc->cache ? fs_cache_resolve_lent(fc->cache, path, buf, sizeof buf, &got)
				   : fc->fs->resolve(fc->fs->ctx, path, buf, sizeof buf, &got);
		c->rc = rc16(rc);
		c->kind = (unsigned char)got;
		c->state = 1;
		if (rc == 0) {
			c->fd = fs_view_kept(fc->fs);
			if (strcmp(buf, path) != 0) {
				if (!m->copy[k])
					m->copy[k] = xcalloc(l->v.n + 1, sizeof *m->copy[k]);
				m->copy[k][i] = xstrdup(buf);
				c->state = 2;
			}
		}
	}
	*canon = c->state == 2 ? m->copy[k][i] : l->v.v[i];
	return c;
}

int fit_entry(const struct fitctx *fc, const struct pathlist *l, size_t i,
	      const char **canon, enum fs_kind *kind)
{
	const char *name;
	const struct fit_canon *c = memo_slot(fc, l, i, &name);
	if (c->rc)
		return c->rc;
	*canon = name;
	*kind = (enum fs_kind)c->kind;
	return 0;
}

int fit_entry_kept(const struct fitctx *fc, const struct pathlist *l, size_t i)
{
	const char *name;
	const struct fit_canon *c = memo_slot(fc, l, i, &name);
	return c->rc ? -1 : c->fd;
}

void fitctx_free(struct fitctx *fc)
{
	const struct profile *p = fc->p;
	const struct pathlist *lists[4] = {&p->writable, &p->readable, &p->executable, &p->caches};
	for (size_t k = 0; fc->memo && k < 4; k++) {
		for (size_t i = 0; fc->memo->copy[k] && i < lists[k]->v.n; i++)
			free(fc->memo->copy[k][i]);
		free(fc->memo->copy[k]);
		free(fc->memo->v[k]);
	}
	free(fc->memo);
	for (size_t i = 0; fc->wcanon && i < fc->p->writable.v.n; i++)
		free(fc->wcanon[i]);
	free(fc->wcanon);
	for (size_t i = 0; i < fc->ncv; i++) {
		free(fc->cv[i].tree);
		free(fc->cv[i].rel);
		free(fc->cv[i].abs);
		free(fc->cv[i].cut);
	}
	free(fc->cv);
	sv_free(&fc->priv_tmp);
	sv_free(&fc->home_view);
	sv_free(&fc->excl_r);
	sv_free(&fc->excl_w);
	sv_free(&fc->ro_read);
}

static bool has_mount(const struct plan *pl, enum mount_op op)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		if (pl->mounts[i].op == op)
			return true;
	return false;
}

/* Landlock itself, its ABI, and truncate (ABI 3).  Returns false when
 * there is no Landlock to build rules for. */
static bool fit_ll_base(struct fitctx *fc, char *have, size_t n)
{
	const struct host *h = fc->h;
	struct plan *pl = fc->pl;
	if (h->ll_abi <= 0) {
		const char *why = h->ll_errno == EOPNOTSUPP
			? "built into this kernel but disabled at boot: add landlock to the lsm= boot parameter"
			: "this kernel has no Landlock: needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK";
		fit_gap(fc, 0, "", "Landlock", why);
		return false;
	}
	/* two statements: cppcheck 2.10 misreads the ternary form as < 1 */
	int abi = h->ll_abi;
	if (abi > LL_ABI_KNOWN)
		abi = LL_ABI_KNOWN;
	snprintf(have, n, "; this kernel has %d", h->ll_abi);
	pl->landlock = true;
	pl->abi = abi;
	pl->handled_fs = ll_fs_rights(abi);
	if (fc->p->unix_sockets == UNIX_ANY)
		pl->handled_fs &= ~LL_FS_RESOLVE_UNIX;
	if (abi < 2)
		sv_push(&pl->remarks, "Landlock ABI 1: renaming or linking across directories is always refused (refer needs ABI 2)");
	/* Below ABI 3 Landlock cannot refuse truncate; with the read-only
	 * root of a mount namespace nothing outside the writable trees can
	 * be truncated anyway (EROFS). */
	/* Without it, the two ways to truncate a file not opened for
	 * writing — truncate(2) and open(O_RDONLY|O_TRUNC), which Landlock
	 * below ABI 3 checks as a read — are refused by seccomp everywhere
	 * (ftruncate needs a descriptor Landlock let open for writing).  A
	 * speccoder profile cannot name truncate, so this must not refuse. */
	if (abi < 3 && !has_mount(pl, MNT_RO_ROOT)) {
		if (fc->p->unenforced & UNF_TRUNCATE) {
			char r[96];
			snprintf(r, sizeof r, "needs Landlock ABI 3%s", have);
			fit_gap(fc, UNF_TRUNCATE, ".writable", "truncate restriction (files outside writable trees can be truncated)", r);
		} else {
			pl->truncate_filter = true;
			sv_push(&pl->remarks, "Landlock below ABI 3 cannot refuse truncate: truncate(2) by path and O_RDONLY|O_TRUNC opens are refused everywhere (EACCES, seccomp); ftruncate on a file opened for writing works");
		}
	}
	return true;
}

/* Port rules of one direction: TCP from ABI 4, UDP from ABI 10; an absent
 * list stays unrestricted (DESIGN.md). */
static void fit_ll_portlists(struct fitctx *fc, const char *have)
{
	const struct profile *p = fc->p;
	struct plan *pl = fc->pl;
	const struct { bool set; int abi; unsigned part; const char *what; const char *key;
		       uint64_t bind, conn; const struct portlist *b, *c; } proto[2] = {
		{p->tcp_bind.set || p->tcp_connect.set, 4, UNF_TCP_PORTS, "TCP port rules",
		 p->tcp_bind.set ? ".tcp_bind" : ".tcp_connect", LL_NET_BIND_TCP, LL_NET_CONNECT_TCP,
		 &p->tcp_bind, &p->tcp_connect},
		{p->udp_bind.set || p->udp_connect.set, 10, UNF_UDP_PORTS, "UDP port rules",
		 p->udp_bind.set ? ".udp_bind" : ".udp_connect", LL_NET_BIND_UDP, LL_NET_CONNECT_SEND_UDP,
		 &p->udp_bind, &p->udp_connect}};
	for (int k = 0; k < 2; k++) {
		if (!proto[k].set) {
			if (k == 1)
				sv_push(&pl->remarks, "network without udp_bind/udp_connect: UDP is not restricted");
			continue;
		}
		if (pl->abi < proto[k].abi) {
			char r[96];
			snprintf(r, sizeof r, "needs Landlock ABI %d%s", proto[k].abi, have);
			fit_gap(fc, proto[k].part, proto[k].key, proto[k].what, r);
			continue;
		}
		pl->handled_net |= (proto[k].b->set ? proto[k].bind : 0) | (proto[k].c->set ? proto[k].conn : 0);
	}
}

/* Network: one ruleset with the filesystem rights, so a second layer
 * never vetoes refer (REFERENCE.md).  With network off TCP/UDP sockets
 * cannot even be created (seccomp), so Landlock's port rules are a second
 * wall there, not a requirement. */
static int fit_ll_net(struct fitctx *fc, const char *have, struct sb_err *err)
{
	const struct profile *p = fc->p;
	struct plan *pl = fc->pl;
	if (fc->net == NET_OFF) {
		const char *k = p->tcp_bind.set ? ".tcp_bind" : p->tcp_connect.set ? ".tcp_connect" :
				p->udp_bind.set ? ".udp_bind" : p->udp_connect.set ? ".udp_connect" : NULL;
		if (k)
			return sb_fail(err, k, NULL, "port lists need network \"on\" or \"loopback\" (network \"off\" refuses every TCP and UDP socket)");
		pl->handled_net = ll_net_rights(pl->abi);
		return 0;
	}
	fit_ll_portlists(fc, have);
	const struct { const struct portlist *l; uint64_t a; const char *key; } pls[] = {
		{&p->tcp_bind, LL_NET_BIND_TCP, "tcp_bind"},
		{&p->tcp_connect, LL_NET_CONNECT_TCP, "tcp_connect"},
		{&p->udp_bind, LL_NET_BIND_UDP, "udp_bind"},
		{&p->udp_connect, LL_NET_CONNECT_SEND_UDP, "udp_connect"}};
	for (size_t k = 0; k < 4; k++) {
		if (!(pl->handled_net & pls[k].a))
			continue;
		for (size_t i = 0; i < pls[k].l->n; i++) {
			pl->ports = xgrow(pl->ports, pl->nports, sizeof *pl->ports);
			pl->ports[pl->nports++] = (struct ll_port_rule){pls[k].l->v[i], pls[k].a,
				xasprintf(".%s[%zu]", pls[k].key, i)};
		}
	}
	return 0;
}

/* A unix socket scope the host cannot enforce.  speccoder's
 * workspace_sockets closes more: no unix socket at all (AF_UNIX refused
 * by seccomp, sockets in writable trees included — its own words);
 * host_sockets leaves the host's reachable; neither refuses, suggesting
 * the one that closes.  Noted once however many scopes are missing. */
static void socket_gap(struct fitctx *fc, const char *what, const char *reason)
{
	struct plan *pl = fc->pl;
	if (fc->p->unenforced & UNF_WORKSPACE_SOCKETS) {
		if (pl->unix_sockets != UNIX_NONE)
			plan_left(pl, false, ".unix_sockets", "unix sockets (every AF_UNIX socket refused, as unix_sockets \"none\", instead of a scope this host lacks)",
				  reason, ".unenforced.workspace_sockets");
		pl->unix_sockets = UNIX_NONE;
		return;
	}
	fit_gap(fc, (fc->p->unenforced & UNF_HOST_SOCKETS) ? UNF_HOST_SOCKETS : UNF_WORKSPACE_SOCKETS,
		".unix_sockets", what, reason);
}

/* Scopes (ABI 6) and pathname unix sockets (FS_RESOLVE_UNIX, ABI 9;
 * below it the mount views where a namespace can be had). */
static void fit_ll_scopes(struct fitctx *fc, const char *have)
{
	const struct profile *p = fc->p;
	struct plan *pl = fc->pl;
	char r[512];
	snprintf(r, sizeof r, "needs Landlock ABI 6%s", have);
	if (p->signals == SIG_SCOPED) {
		if (pl->abi >= 6)
			pl->scoped |= LL_SCOPE_SIGNAL;
		else
			fit_gap(fc, UNF_SIGNAL_SCOPE, ".signals", "signal scope", r);
	}
	if (p->unix_sockets == UNIX_ANY)
		return;
	/* with "none" no AF_UNIX socket can be created (seccomp), so the
	 * scopes are a second wall, not a requirement */
	/* below ABI 6, a network namespace of its own does it: abstract
	 * names are per network namespace */
	if (pl->abi >= 6)
		pl->scoped |= LL_SCOPE_ABSTRACT_UNIX_SOCKET;
	else if (p->unix_sockets == UNIX_SCOPED && !pl->net_ns)
		socket_gap(fc, "abstract unix socket scope", r);
	if (pl->abi < 9 && p->unix_sockets == UNIX_SCOPED && !fc->views) {
		snprintf(r, sizeof r, "needs Landlock ABI 9%s, or a mount namespace for a view of /run and a private /tmp (%s)",
			 have, fc->why);
		socket_gap(fc, "pathname unix socket scope (sockets outside writable trees stay reachable)", r);
	}
}

/* tmp: the literal path (the shim refuses a symlink there itself),
 * created by the shim when missing. */
static int fit_ll_tmp(struct fitctx *fc, uint64_t all, struct sb_err *err)
{
	const struct profile *p = fc->p;
	char canon[4096];
	enum fs_kind kind;
	if (!p->tmp)
		return 0;
	int r = fc->fs->resolve(fc->fs->ctx, p->tmp, canon, sizeof canon, &kind);
	if (r == 0 && kind != FS_DIR)
		return sb_fail(err, ".tmp", p->tmp, "exists and is not a directory");
	if (r < 0 && r != -ENOENT)
		return sb_fail(err, ".tmp", p->tmp, "%s", strerror(-r));
	if (path_within(r == 0 ? canon : p->tmp, "/dev"))
		return sb_fail(err, ".tmp", p->tmp, "resolves inside /dev");
	bool exec = sv_has(&p->executable.v, p->tmp);
	struct ll_path_rule *ru = plan_add_rule(fc->pl, p->tmp, ".tmp", exec ? all : all & ~LL_FS_EXECUTE, true);
	if (ru)
		ru->create_dir = r == -ENOENT;
	return 0;
}

/* The notice naming the directories where expansion blocks new entries
 * (only those inside writable trees, where the command could otherwise
 * create them). */
static void fit_ll_expanded(struct fitctx *fc)
{
	struct plan *pl = fc->pl;
	char list[1024] = "";
	if (!pl->expansion)
		return;
	for (size_t i = 0; i < pl->expanded.n && strlen(list) < 900; i++) {
		bool w = false;
		for (size_t j = 0; j < pl->nrules && !w; j++)
			w = plan_rule_in_list(&pl->rules[j], ".writable") &&
			    path_within(pl->expanded.v[i], pl->rules[j].path);
		if (w)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				 list[0] ? ", " : "", pl->expanded.v[i]);
	}
	if (list[0])
		plan_notice(pl, "carve-outs by Landlock expansion (%s): new entries cannot be created directly in %s",
			    fc->why, list);
}

/* More specific wins (expansion): an executable entry inside a hidden
 * tree that a readable tree holds is readable again too, as with mounts
 * (there it is brought back inside the mask, under the readable rule) —
 * a script is read by its interpreter.  0 or -1 with `err`. */
static int grant_exec_in_hidden(struct fitctx *fc, struct sb_err *err)
{
	const struct pathlist *x = &fc->p->executable;
	for (size_t i = 0; x->set && !fc->pl->mount_ns && i < x->v.n; i++) {
		char where[96];
		const char *canon;
		enum fs_kind k;
		if (fit_entry(fc, x, i, &canon, &k))
			continue;
		for (size_t c = 0; c < fc->ncv; c++) {
			const struct carve *cv = &fc->cv[c];
			if (!cv->hidden || !cv->exists || strcmp(canon, cv->abs) == 0 ||
			    !path_within(canon, cv->abs) || !fit_readable(fc, cv->abs))
				continue;
			snprintf(where, sizeof where, ".executable[%zu]", i);
			if (carve_grant(fc->pl, fc->fs, canon, false, fit_entry_kept(fc, x, i), k, GRANT_READ,
					where, &fc->excl_r, err))
				return -1;
			break;
		}
	}
	return 0;
}

/* Filesystem grants.  /dev is never reached through a tree, nor is a
 * hidden path; writable trees go around read-only carve-outs (expansion
 * mode; with mounts the lists hold /dev only).  Execute comes from
 * `executable` alone (its default holds the writable trees and tmp). */
static int fit_ll_grants(struct fitctx *fc, struct sb_err *err)
{
	const struct profile *p = fc->p;
	struct plan *pl = fc->pl;
	const struct fs_view *fs = fc->fs;
	uint64_t all = ll_fs_rights(pl->abi);
	/* The default executable list starts with the readable entries
	 * (profile_parse), granted around the same paths: one rule each,
	 * from .readable, carries both (a profile of 10,000 paths makes
	 * 10,000 rules, not 20,000; Landlock ORs two rules on one inode
	 * anyway). */
	size_t exec_from = p->executable.set ? 0 : p->readable.v.n;
	uint64_t read = p->executable.set ? GRANT_READ : GRANT_READ | GRANT_EXEC;
	if (grant_list(fc, &p->writable, 0, all & ~LL_FS_EXECUTE, true, &fc->excl_w, NULL, err) ||
	    grant_list(fc, &p->readable, 0, read, false, &fc->excl_r, NULL, err) ||
	    grant_list(fc, &p->executable, exec_from, GRANT_EXEC, false, &fc->excl_r, p->tmp, err) ||
	    grant_list(fc, &p->caches, 0, GRANT_READ, false, &fc->excl_r, NULL, err) ||
	    grant_devices(pl, fs, p, fc->h, err) || grant_exec_in_hidden(fc, err))
		return -1;
	if (fc->shm)
		plan_add_rule(pl, "/dev/shm", "/dev/shm (private)", GRANT_DEVDIR, true);
	/* the private /tmp and /var/tmp: writable, executable unless the
	 * profile lists its own executable trees */
	for (size_t i = 0; i < fc->priv_tmp.n; i++) {
		char where[32];
		snprintf(where, sizeof where, "%s (private)", fc->priv_tmp.v[i]);
		plan_add_rule(pl, fc->priv_tmp.v[i], where, p->executable.set ? all & ~LL_FS_EXECUTE : all, true);
	}
	/* an empty view of an ungranted $HOME lists as empty rather than
	 * failing (listing only: what is brought back inside has its own
	 * rules) */
	for (size_t i = 0; i < fc->home_view.n; i++)
		plan_add_rule(pl, fc->home_view.v[i], "$HOME (an empty view)", LL_FS_READ_DIR, true);
	/* read-only carve-outs are readable again, around the hidden paths
	 * inside them (a hidden token in a read_only state directory); one
	 * that is itself hidden or inside a hidden tree (a name both hidden
	 * and protected) stays unreadable: hidden wins, as the mask over the
	 * read-only bind does with mounts */
	for (size_t i = 0; i < fc->ro_read.n; i++) {
		char canon[4096];
		enum fs_kind k;
		bool hidden = false;
		if (fs->resolve(fs->ctx, fc->ro_read.v[i], canon, sizeof canon, &k) != 0)
			continue;
		int kept = fs_view_kept(fs);
		for (size_t j = 0; j < fc->excl_r.n && !hidden; j++)
			hidden = path_within(canon, fc->excl_r.v[j]);
		if (!hidden && carve_grant(pl, fs, canon, false, kept, k, GRANT_READ, "read_only carve-out", &fc->excl_r, err))
			return -1;
	}
	if (fit_ll_tmp(fc, all, err))
		return -1;
	fit_ll_expanded(fc);
	return 0;
}

static int fit_landlock(struct fitctx *fc, struct sb_err *err)
{
	char have[64];
	if (!fit_ll_base(fc, have, sizeof have))
		return 0;
	if (fit_ll_net(fc, have, err))
		return -1;
	fit_ll_scopes(fc, have);
	return fit_ll_grants(fc, err);
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

/* The denial report needs SECCOMP_RET_USER_NOTIF (Linux 5.0) and a
 * listener told when the last process of the sandbox is gone (POLLHUP on
 * the listener once the filter has no users: Linux 5.8, commit "seccomp:
 * notify about unused filter"); without the second the listener could
 * not know when to exit.  It is not a protection, so best_effort may
 * leave it out; otherwise the caller asked for a report and gets a
 * refusal rather than silence. */
static void fit_denials(struct fitctx *fc)
{
	int major = 0, minor = 0;
	sscanf(fc->h->release, "%d.%d", &major, &minor);
	char r[200] = "";
	if (!fc->h->seccomp_user_notif)
		snprintf(r, sizeof r, "seccomp user notification is not available on this kernel");
	else if (major < 5 || (major == 5 && minor < 8))
		snprintf(r, sizeof r, "needs Linux 5.8 (the listener learns when the sandbox is gone); this kernel is %s",
			 fc->h->release[0] ? fc->h->release : "unknown");
	if (!r[0]) {
		fc->pl->denials_fd = fc->p->denials_fd;
		return;
	}
	bool be = fc->p->best_effort;
	plan_left(fc->pl, !be, ".denials", "denial report", r, be ? ".best_effort" : "best_effort");
}

static void fit_seccomp(struct fitctx *fc)
{
	struct plan *pl = fc->pl;
	if (!fc->h->seccomp) {
		char r[160];
		snprintf(r, sizeof r, "seccomp filtering is not available on this kernel: %s",
			 strerror(fc->h->seccomp_errno));
		fit_gap(fc, 0, "", "seccomp filter", r);
		return;
	}
	pl->seccomp = true;
	if (fc->p->denials_fd >= 0)
		fit_denials(fc);
	filter_build(fc->p, fc->h, (pl->handled_net & (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)) && pl->network != NET_OFF, pl);
}

/* no_survivors: a PID namespace rides on the mount namespace (a fresh
 * /proc must be mounted over the host's, or /proc/PID would name host
 * processes to a command that is pid 2); without one, a subreaper does
 * what it can, and the notice says what escapes it (README "Known
 * limits"). */
static void fit_survivors(struct fitctx *fc)
{
	struct plan *pl = fc->pl;
	if (!fc->p->no_survivors)
		return;
	pl->pid_ns = pl->mount_ns || fc->h->pidns_made;
	if (pl->pid_ns)
		return;
	plan_notice(pl, ".no_survivors: no PID namespace (%s): a subreaper kills what is left of the sandbox when the command ends; what escapes it: descendants of a command whose shim is itself killed with SIGKILL; /proc lists the host's processes",
		    fc->why);
}

/* One error naming every refused part, with the JSON that would allow
 * them all (one round trip, not one per part).  An `unenforced` object
 * the profile already has is part of the suggestion, which replaces it
 * (adding a second one would be a duplicate key). */
static void refusal(const struct plan *pl, struct sb_err *err)
{
	char list[1024] = "", unf[256] = "", other[128] = "";
	const struct profile *p = pl->prof;
	for (size_t i = 0; i < pl->nrefused; i++) {
		const struct left_out *r = &pl->refused[i];
		size_t o = strlen(list);
		snprintf(list + o, sizeof list - o, "%s%s%s%s (%s)", i ? "; " : "", r->where,
			 r->where[0] ? ": " : "", r->part, r->reason);
		if (strncmp(r->key, "unenforced.", 11) == 0) {
			char quoted[64];
			snprintf(quoted, sizeof quoted, "\"%s\"", r->key + 11);
			if (!strstr(unf, quoted)) {
				o = strlen(unf);
				snprintf(unf + o, sizeof unf - o, "%s\"%s\":true", o ? "," : "", r->key + 11);
			}
		} else if (strcmp(r->key, "best_effort") == 0 && !strstr(other, "best_effort")) {
			o = strlen(other);
			snprintf(other + o, sizeof other - o, "%s\"best_effort\":true", o ? "," : "");
		} else if (strcmp(r->key, "mounts") == 0 && !strstr(other, "mounts")) {
			o = strlen(other);
			snprintf(other + o, sizeof other - o, "%s\"mounts\":\"auto\"", o ? "," : "");
		}
	}
	/* the parts the profile already leaves out stay in the object */
	bool merged = unf[0] && p->unenforced;
	for (unsigned b = 1; merged && b && b <= p->unenforced; b <<= 1) {
		const char *name = (p->unenforced & b) ? unenforced_name(b) : NULL;
		char quoted[64];
		snprintf(quoted, sizeof quoted, "\"%s\"", name ? name : "");
		if (name && !strstr(unf, quoted))
			snprintf(unf + strlen(unf), sizeof unf - strlen(unf), ",%s:true", quoted);
	}
	char fix[512];
	snprintf(fix, sizeof fix, "%s%s%s%s%s", unf[0] ? "\"unenforced\":{" : "", unf, unf[0] ? "}" : "",
		 unf[0] && other[0] ? "," : "", other);
	/* the sockets' two trades: the suggestion closes more */
	bool sockets = strstr(unf, "\"workspace_sockets\"") != NULL;
	sb_fail(err, NULL, NULL, "this host cannot enforce %s; to run without %s, set in the profile%s: %s%s",
		list, pl->nrefused > 1 ? "them" : "it",
		merged ? " (replacing its \"unenforced\")" : "", fix,
		sockets ? " (workspace_sockets refuses every unix socket; \"host_sockets\":true instead leaves the host's reachable)" : "");
}

int fit(const struct profile *p, const struct host *h, const struct fs_view *raw,
	struct plan *pl, struct sb_err *err)
{
	struct fs_cache cache;
	fs_cache_view(&cache, raw);
	int rc = fit_cached(p, h, &cache, pl, err);
	fs_cache_free(&cache);
	return rc;
}

int fit_cached(const struct profile *p, const struct host *h, struct fs_cache *cache,
	       struct plan *pl, struct sb_err *err)
{
	const struct fs_view *view = &cache->view;
	memset(pl, 0, sizeof *pl);
	pl->prof = p;
	pl->unix_sockets = p->unix_sockets;
	pl->denials_fd = -1;
	struct fitctx fc = {.p = p, .h = h, .fs = view, .pl = pl,
			    .memo = xcalloc(1, sizeof *fc.memo), .cache = cache};
	int bad = fit_ns(&fc, err) || fit_landlock(&fc, err) || fit_caps(p, h, pl, err);
	if (!bad)
		fit_survivors(&fc);
	if (!bad && !pl->net_ns && pl->unix_sockets != UNIX_NONE)
		sv_push(&pl->remarks, "no network namespace: an abstract unix socket the command binds can be reached by host processes (the Landlock scope only stops the command reaching out)");
	if (!bad && p->tcp_bind.set && pl->network != NET_OFF)
		sv_push(&pl->remarks, "tcp_bind: listen() on a socket never bound takes an ephemeral port without Landlock's bind check; tcp_bind limits explicit binds only");
	pl->network = fc.net;
	if (!bad)
		fit_seccomp(&fc);
	fitctx_free(&fc);
	if (bad) {
		plan_free(pl);
		return -1;
	}
	if (pl->nrefused) {
		refusal(pl, err);
		return 1;
	}
	return 0;
}

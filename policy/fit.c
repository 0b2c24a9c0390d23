/* fit: decide the whole plan before anything is applied. */
#include "fit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fscache.h"
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
			 const struct profile *p, const struct host *h,
			 struct sb_err *err)
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
		size_t before = pl->nrules;
		plan_add_rule(pl, canon, where,
			      kind == FS_DIR ? GRANT_DEVDIR : GRANT_DEVICE,
			      kind == FS_DIR);
		/* The controlling terminal is the one device whose presence
		 * depends on the session (no terminal: ENXIO); the shim opens
		 * it for real and skips it.  Other nodes are not opened: that
		 * would allocate a pty for /dev/ptmx on every start. */
		if (pl->nrules > before && strcmp(canon, "/dev/tty") == 0)
			pl->rules[pl->nrules - 1].open_check = true;
	}
	return 0;
}


/* What fit_ns() decided, for fit_landlock(). */
struct fitctx {
	enum net_mode net;      /* effective network mode ("loopback" → "off" without a namespace) */
	bool views;             /* /run, /tmp views hide pathname sockets (mount mode, ABI < 9) */
	struct strvec excl_r;   /* trees go around these (expansion): /dev, hidden */
	struct strvec excl_w;   /* writable trees also go around read-only carve-outs */
	struct strvec ro_read;  /* existing read-only carve-outs: readable again (expansion) */
	bool shm;               /* a private /dev/shm is mounted: grant it */
};

/* Lexically normalise absolute `in` (collapse "//" and "/./"); refuse "..". */
static int normalise(const char *in, char *out, size_t n, const char *where,
		     struct sb_err *err)
{
	size_t o = 0;
	for (const char *p = in; *p;) {
		while (*p == '/')
			p++;
		size_t k = strcspn(p, "/");
		if (k == 0)
			break;
		if (k == 1 && p[0] == '.') {
			p += k;
			continue;
		}
		if (k == 2 && p[0] == '.' && p[1] == '.')
			return sb_fail(err, where, in, "must not contain \"..\"");
		if (o + k + 2 > n)
			return sb_fail(err, where, in, "path too long");
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

/* The writable tree (canonical) holding `path`, lexically through the
 * given or the canonical spelling; rel gets the rest.  NULL if none. */
static const char *in_writable(const struct profile *p, char *const *wcanon,
			       const char *path, const char **rel)
{
	for (size_t i = 0; i < p->writable.v.n; i++) {
		const char *forms[2] = {p->writable.v.v[i], wcanon[i]};
		for (int f = 0; f < 2; f++) {
			const char *w = forms[f];
			if (!w || !wcanon[i])
				continue;
			size_t n = strcmp(w, "/") == 0 ? 0 : strlen(w);
			if (strcmp(path, w) != 0 && path_within(path, w) && path[n] == '/') {
				*rel = path + n + 1;
				return wcanon[i];
			}
		}
	}
	return NULL;
}

struct carve {
	char *tree;  /* canonical writable tree, NULL when outside all */
	char *rel;   /* inside tree */
	char *abs;   /* tree/rel, or the canonical path outside */
	char *cut;   /* inside a tree: the first component that is not a directory (or abs) */
	enum fs_kind cut_kind;
	bool hidden;
	bool want_dir; /* a missing name is a directory (trailing '/') */
	bool exists;
	bool dir;
	unsigned part; /* the unenforced name that may leave it out (expansion) */
	char where[96];
};

static bool ends_slash(const char *s)
{
	size_t n = strlen(s);
	return n > 1 && s[n - 1] == '/';
}

static void carve_add(struct carve **cv, size_t *n, const char *tree,
		      const char *rel, const char *abs, bool hidden, bool want_dir,
		      unsigned part, const char *where, const struct fs_view *fs)
{
	*cv = xgrow(*cv, *n, sizeof **cv);
	struct carve *c = &(*cv)[(*n)++];
	memset(c, 0, sizeof *c);
	c->tree = tree ? xstrdup(tree) : NULL;
	c->rel = rel ? xstrdup(rel) : NULL;
	c->abs = xstrdup(abs);
	c->hidden = hidden;
	c->want_dir = want_dir;
	c->part = part;
	snprintf(c->where, sizeof c->where, "%s", where);
	enum fs_kind k = FS_MISSING;
	if (fs->lkind(fs->ctx, abs, &k) == 0 && k != FS_MISSING) {
		c->exists = true;
		c->dir = k == FS_DIR;
	}
	char cut[4096];
	c->cut_kind = FS_DIR;
	if (tree && carve_cut(fs, tree, rel, cut, sizeof cut, &c->cut_kind) == 0)
		c->cut = xstrdup(cut);
	else
		c->cut = xstrdup(abs);
}

/* A user path of read_only / hidden: inside a writable tree it is carved
 * lexically (symlinks inside are never followed); outside, its canonical
 * target is what matters (the command cannot change that part). */
static int carve_user(const struct profile *p, const struct fs_view *fs,
		      char *const *wcanon, const struct pathlist *l, bool hidden,
		      struct carve **cv, size_t *n, struct plan *pl, struct sb_err *err)
{
	for (size_t i = 0; i < l->v.n; i++) {
		char where[96], norm[4096], canon[4096], abs[4096];
		const char *rel;
		enum fs_kind kind;
		snprintf(where, sizeof where, ".%s[%zu]", l->key, i);
		if (normalise(l->v.v[i], norm, sizeof norm, where, err))
			return -1;
		for (size_t w = 0; w < p->writable.v.n; w++)
			if (strcmp(norm, p->writable.v.v[w]) == 0 || (wcanon[w] && strcmp(norm, wcanon[w]) == 0))
				return sb_fail(err, where, l->v.v[i], "is .writable[%zu] itself; remove it from writable instead", w);
		const char *tree = in_writable(p, wcanon, norm, &rel);
		if (tree) {
			snprintf(abs, sizeof abs, "%s%s%s", tree, strcmp(tree, "/") ? "/" : "", rel);
			carve_add(cv, n, tree, rel, abs, hidden, ends_slash(l->v.v[i]), UNF_CARVE, where, fs);
			continue;
		}
		int r = fs->resolve(fs->ctx, norm, canon, sizeof canon, &kind);
		if (r == 0 && (tree = in_writable(p, wcanon, canon, &rel))) {
			snprintf(abs, sizeof abs, "%s%s%s", tree, strcmp(tree, "/") ? "/" : "", rel);
			carve_add(cv, n, tree, rel, abs, hidden, ends_slash(l->v.v[i]), UNF_CARVE, where, fs);
		} else if (r == 0 && hidden) {
			carve_add(cv, n, NULL, NULL, canon, true, false, 0, where, fs);
		} else if (r == 0) {
			plan_notice(pl, "%s \"%s\": outside every writable tree, so already read-only", where, l->v.v[i]);
		} else if (r != -ENOENT) {
			plan_notice(pl, "%s \"%s\": skipped: %s", where, l->v.v[i], strerror(-r));
		}
		/* a missing path outside writable trees cannot be created */
	}
	return 0;
}

static bool is_git_name(const char *n)
{
	return strcmp(n, ".git") == 0 || strncmp(n, ".git/", 5) == 0;
}

/* Unix socket views: /run, /var/run, /tmp replaced by empty read-only
 * tmpfs, with the writable trees, tmp, explicit readable entries and the
 * resolver configuration inside them brought back. */
static void plan_views(const struct profile *p, const struct fs_view *fs,
		       char *const *wcanon, struct plan *pl)
{
	static const char *const views[] = {"/run", "/var/run", "/tmp"};
	for (size_t v = 0; v < 3; v++) {
		enum fs_kind k;
		if (fs->lkind(fs->ctx, views[v], &k) || k != FS_DIR)
			continue; /* /var/run is usually a link to /run */
		bool writable = p->tmp && path_within(views[v], p->tmp);
		for (size_t i = 0; i < p->writable.v.n && !writable; i++)
			writable = wcanon[i] && path_within(views[v], wcanon[i]);
		if (writable)
			continue; /* granted writable: sockets there are in scope */
		plan_add_mount(pl, MNT_VIEW, views[v], ".unix_sockets", true);
		const struct pathlist *keep[] = {&p->writable, &p->caches,
			p->readable.set ? &p->readable : NULL,
			p->executable.set ? &p->executable : NULL};
		for (size_t l = 0; l < 4; l++) {
			for (size_t i = 0; keep[l] && i < keep[l]->v.n; i++) {
				char canon[4096], where[96];
				enum fs_kind kk;
				if (fs->resolve(fs->ctx, keep[l]->v.v[i], canon, sizeof canon, &kk) ||
				    strcmp(canon, views[v]) == 0 || !path_within(canon, views[v]))
					continue;
				snprintf(where, sizeof where, ".%s[%zu]", keep[l]->key, i);
				plan_add_mount(pl, MNT_KEEP, canon, where, kk == FS_DIR);
			}
		}
		if (p->tmp && strcmp(p->tmp, views[v]) != 0 && path_within(p->tmp, views[v]))
			plan_add_mount(pl, MNT_KEEP, p->tmp, ".tmp", true);
		char rc[4096];
		enum fs_kind kk;
		if (fs->resolve(fs->ctx, "/etc/resolv.conf", rc, sizeof rc, &kk) == 0 &&
		    path_within(rc, views[v]))
			plan_add_mount(pl, MNT_KEEP, rc, "/etc/resolv.conf", kk == FS_DIR);
	}
}

/* Namespaces and carve-outs: mounts where a namespace can be had,
 * Landlock expansion otherwise (DESIGN.md "Filesystem"). */
static int fit_ns(const struct profile *p, const struct host *h,
		  const struct fs_view *fs, struct plan *pl, struct fitctx *fc,
		  struct sb_err *err)
{
	size_t nw = p->writable.v.n;
	char **wcanon = xcalloc(nw + 1, sizeof *wcanon);
	struct carve *cv = NULL;
	size_t ncv = 0;
	int rc = -1;
	for (size_t i = 0; i < nw; i++) {
		char canon[4096];
		enum fs_kind k;
		if (fs->resolve(fs->ctx, p->writable.v.v[i], canon, sizeof canon, &k) == 0 && k == FS_DIR)
			wcanon[i] = xstrdup(canon);
	}
	/* protect: every name relative to every writable tree; a writable
	 * tree inside a repository's .git (the repository's git dir, or a
	 * linked worktree's) gets the .git names relative to that repository
	 * where they fall inside it, and no others. */
	for (size_t i = 0; i < nw; i++) {
		if (!wcanon[i])
			continue;
		const char *g = strstr(wcanon[i], "/.git");
		while (g && g[5] && g[5] != '/')
			g = strstr(g + 1, "/.git");
		char base[4096];
		if (g)
			snprintf(base, sizeof base, "%.*s", (int)(g - wcanon[i]), wcanon[i]);
		else
			snprintf(base, sizeof base, "%s", wcanon[i]);
		/* A linked worktree's own git dir (R/.git/worktrees/NAME): its
		 * commondir and config.worktree decide which config and hooks
		 * git uses for that worktree. */
		if (g && strstr(g, "/.git/worktrees/") == g && strchr(g + 16, '/') == NULL) {
			static const char *const own[] = {"commondir", "config.worktree"};
			for (int o = 0; o < 2; o++) {
				char abs[4200];
				snprintf(abs, sizeof abs, "%s/%s", wcanon[i], own[o]);
				carve_add(&cv, &ncv, wcanon[i], own[o], abs, false, false, UNF_CARVE,
					  ".protect (built-in, a worktree's git dir)", fs);
			}
		}
		const struct strvec *lists[2] = {&p->protect, &p->protect_extra};
		for (int l = 0; l < 2; l++)
			for (size_t j = 0; j < lists[l]->n; j++) {
				const char *name = lists[l]->v[j];
				char where[96], abs[8200], norm[4096];
				if (g && !is_git_name(name))
					continue;
				if (l == 1)
					snprintf(where, sizeof where, ".protect_extra[%zu]", j);
				else if (p->protect_set)
					snprintf(where, sizeof where, ".protect[%zu]", j);
				else
					snprintf(where, sizeof where, ".protect (built-in %s)", name);
				snprintf(abs, sizeof abs, "%s/%s", strcmp(base, "/") ? base : "", name);
				if (normalise(abs, norm, sizeof norm, where, err))
					goto out;
				if (strcmp(norm, wcanon[i]) == 0 || !path_within(norm, wcanon[i]))
					continue; /* the git dir's names outside this tree */
				const char *rel = norm + (strcmp(wcanon[i], "/") ? strlen(wcanon[i]) + 1 : 1);
				carve_add(&cv, &ncv, wcanon[i], rel, norm, false, ends_slash(name),
					  is_git_name(name) ? UNF_CARVE : UNF_TRUST_HANDOFF, where, fs);
			}
	}
	if (carve_user(p, fs, wcanon, &p->read_only, false, &cv, &ncv, pl, err) ||
	    carve_user(p, fs, wcanon, &p->hidden, true, &cv, &ncv, pl, err))
		goto out;
	/* A symlink in a carved position is never followed, but what it
	 * points to is reachable by its own path and, outside, through the
	 * link: when that lies in a writable tree it is carved too (bounded,
	 * so a loop of links ends). */
	for (size_t i = 0; i < ncv && ncv < 256; i++) {
		char canon[4096];
		enum fs_kind k;
		const char *rel;
		if (cv[i].cut_kind != FS_SYMLINK ||
		    fs->resolve(fs->ctx, cv[i].cut, canon, sizeof canon, &k) != 0)
			continue;
		const char *tree = in_writable(p, wcanon, canon, &rel);
		if (!tree)
			continue;
		char where[96];
		snprintf(where, sizeof where, "%.60s (symlink target)", cv[i].where);
		carve_add(&cv, &ncv, tree, rel, canon, cv[i].hidden, k == FS_DIR, cv[i].part, where, fs);
	}

	bool need_views = h->ll_abi > 0 && h->ll_abi < 9 && p->unix_sockets == UNIX_SCOPED;
	bool want = ncv || need_views || p->mounts == MOUNTS_REQUIRED;
	char why[160];
	snprintf(why, sizeof why, "no mount namespace here: %s",
		 h->mounts_errno ? strerror(h->mounts_errno) : "user namespaces are not available");
	if (p->mounts == MOUNTS_REQUIRED && !h->mounts) {
		sb_fail(err, ".mounts", NULL, "\"required\", but %s", why);
		goto out;
	}
	fc->net = p->network;
	if (p->network == NET_LOOPBACK) {
		if (h->mounts) {
			pl->net_ns = true;
		} else {
			fc->net = NET_OFF;
			plan_notice(pl, ".network \"loopback\": enforced as \"off\" (%s)", why);
		}
	}
	sv_push(&fc->excl_r, "/dev");
	sv_push(&fc->excl_w, "/dev");
	if (want && h->mounts && p->mounts != MOUNTS_OFF) {
		pl->mount_ns = true;
		for (size_t i = 0; i < ncv; i++) {
			if (cv[i].tree) {
				if (carve_mounts(pl, fs, cv[i].tree, cv[i].rel, cv[i].hidden, cv[i].want_dir, cv[i].where, err))
					goto out;
			} else if (cv[i].exists) {
				plan_add_mount(pl, cv[i].dir ? MNT_MASK_DIR : MNT_MASK_FILE, cv[i].abs, cv[i].where, cv[i].dir);
			}
		}
		if (need_views) {
			plan_views(p, fs, wcanon, pl);
			fc->views = true;
			sv_push(&pl->remarks, "below Landlock ABI 9 pathname unix sockets are hidden by views of /run, /var/run and /tmp only: a socket elsewhere outside the writable trees (e.g. ~/.gnupg/S.gpg-agent in a readable home) stays reachable; list such directories in hidden");
		}
		/* POSIX shared memory and semaphores (Python multiprocessing,
		 * Chromium) get a private /dev/shm; the host's stays out of
		 * reach (DESIGN.md "Filesystem"). */
		enum fs_kind k;
		if (fs->lkind(fs->ctx, "/dev/shm", &k) == 0 && k == FS_DIR) {
			plan_add_mount(pl, MNT_SHM, "/dev/shm", "/dev/shm (private)", true);
			fc->shm = true;
		}
		/* Granting the host's /dev/pts would hand over every terminal of
		 * this user (read what is typed, write to it): a new devpts
		 * instance holds only the ones made inside. */
		for (size_t i = 0; i < p->devices.v.n; i++) {
			char canon[4096];
			if (fs->resolve(fs->ctx, p->devices.v.v[i], canon, sizeof canon, &k) == 0 &&
			    k == FS_DIR && strcmp(canon, "/dev/pts") == 0)
				plan_add_mount(pl, MNT_DEVPTS, "/dev/pts", ".devices (private /dev/pts)", true);
		}
		carve_mounts_finish(pl);
		char list[2048] = "";
		for (size_t i = 0; i < pl->nmounts; i++)
			if (pl->mounts[i].op == MNT_OCCUPY && strlen(list) < sizeof list - 600)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 list[0] ? ", " : "", pl->mounts[i].path);
		if (list[0])
			plan_notice(pl, "protected or hidden names that do not exist get an empty placeholder, covered inside the sandbox so they cannot be created there (it stays on disk): %s", list);
	} else if (ncv) {
		if (p->mounts == MOUNTS_OFF)
			snprintf(why, sizeof why, "mounts \"off\"");
		pl->expansion = true;
		for (size_t i = 0; i < ncv; i++) {
			if (cv[i].part && (p->unenforced & cv[i].part)) {
				pl->left = xrealloc(pl->left, (pl->nleft + 1) * sizeof *pl->left);
				pl->left[pl->nleft++] = (struct left_out){
					xasprintf("carve-out %s \"%s\"", cv[i].where, cv[i].abs),
					xasprintf("%s; left writable instead of expanding", why),
					xasprintf(".unenforced.%s", unenforced_name(cv[i].part))};
				plan_notice(pl, "left out: carve-out %s \"%s\": %s; left writable instead of expanding (allowed by .unenforced.%s)",
					    cv[i].where, cv[i].abs, why, unenforced_name(cv[i].part));
				continue;
			}
			/* Writable trees go around the first component that is not
			 * a directory (a missing name, a file such as a worktree's
			 * .git, a symlink), so it can be neither created nor
			 * replaced; readable trees around existing hidden paths. */
			if (cv[i].hidden && cv[i].exists)
				sv_push(&fc->excl_r, cv[i].abs);
			sv_push(&fc->excl_w, cv[i].cut);
			if (!cv[i].hidden && (cv[i].cut_kind == FS_FILE || cv[i].cut_kind == FS_DIR))
				sv_push(&fc->ro_read, cv[i].cut);
		}
	}
	rc = 0;
out:
	for (size_t i = 0; i < nw; i++)
		free(wcanon[i]);
	free(wcanon);
	for (size_t i = 0; i < ncv; i++) {
		free(cv[i].tree);
		free(cv[i].rel);
		free(cv[i].abs);
		free(cv[i].cut);
	}
	free(cv);
	return rc;
}

static int fit_landlock(const struct profile *p, const struct host *h,
			const struct fs_view *fs, struct plan *pl, struct fitctx *fc,
			struct sb_err *err)
{
	if (h->ll_abi <= 0) {
		const char *why = h->ll_errno == EOPNOTSUPP
			? "Landlock is built into this kernel but disabled at boot (add landlock to the lsm= boot parameter)"
			: "this kernel has no Landlock (needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK)";
		if (!p->best_effort)
			return sb_fail(err, NULL, NULL, "%s; refusing to run unconfined (set best_effort to run without it)", why);
		return gap(pl, p, 0, NULL, "Landlock", why, err);
	}
	/* two statements: cppcheck 2.10 misreads the ternary form as < 1 */
	int abi = h->ll_abi;
	if (abi > LL_ABI_KNOWN)
		abi = LL_ABI_KNOWN;
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
	if (fc->net == NET_OFF) {
		const char *k = p->tcp_bind.set ? ".tcp_bind" : p->tcp_connect.set ? ".tcp_connect" :
				p->udp_bind.set ? ".udp_bind" : p->udp_connect.set ? ".udp_connect" : NULL;
		if (k)
			return sb_fail(err, k, NULL, "port lists need network \"on\" or \"loopback\" (network \"off\" refuses every TCP and UDP socket)");
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
			sv_push(&pl->remarks, "network without udp_bind/udp_connect: UDP is not restricted");
		}
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
		 * trees and tmp only; below that, mount views of /run and /tmp
		 * hide host daemons' sockets where a namespace can be had. */
		if (abi < 9 && p->unix_sockets == UNIX_SCOPED && !fc->views) {
			char r[200];
			snprintf(r, sizeof r, "needs Landlock ABI 9%s, or a mount namespace for views of /run and /tmp (%s)", have,
				 p->mounts == MOUNTS_OFF ? "mounts \"off\"" : h->mounts_errno ? strerror(h->mounts_errno) : "none here");
			if (gap(pl, p, UNF_WORKSPACE_SOCKETS, ".unix_sockets", "pathname unix socket scope (sockets outside writable trees stay reachable)", r, err))
				return -1;
		}
	}

	/* Filesystem grants.  /dev is never reached through a tree, nor is a
	 * hidden path; writable trees go around read-only carve-outs
	 * (expansion mode; with mounts the lists hold /dev only). */
	int rc = -1;
	uint64_t all = ll_fs_rights(abi);
	/* Execute comes from `executable` alone (its default holds the
	 * writable trees and tmp), so an explicit list narrows it. */
	if (grant_list(pl, fs, &p->writable, all & ~LL_FS_EXECUTE, true, &fc->excl_w, NULL, err) ||
	    grant_list(pl, fs, &p->readable, GRANT_READ, false, &fc->excl_r, NULL, err) ||
	    grant_list(pl, fs, &p->executable, GRANT_EXEC, false, &fc->excl_r, p->tmp, err) ||
	    grant_list(pl, fs, &p->caches, GRANT_READ, false, &fc->excl_r, NULL, err) ||
	    grant_devices(pl, fs, p, h, err))
		goto out;
	if (fc->shm)
		plan_add_rule(pl, "/dev/shm", "/dev/shm (private)", GRANT_DEVDIR, true);
	for (size_t i = 0; i < fc->ro_read.n; i++) {
		char canon[4096];
		enum fs_kind k;
		if (fs->resolve(fs->ctx, fc->ro_read.v[i], canon, sizeof canon, &k) == 0)
			plan_add_rule(pl, canon, "read_only carve-out", GRANT_READ, k == FS_DIR);
	}
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
	if (pl->expansion && pl->expanded.n) {
		char list[1024] = "";
		for (size_t i = 0; i < pl->expanded.n && strlen(list) < 900; i++) {
			/* only where the command could otherwise create entries */
			bool w = false;
			for (size_t j = 0; j < pl->nrules && !w; j++)
				w = strncmp(pl->rules[j].where, ".writable[", 10) == 0 &&
				    path_within(pl->expanded.v[i], pl->rules[j].path);
			if (w)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 list[0] ? ", " : "", pl->expanded.v[i]);
		}
		if (list[0])
			plan_notice(pl, "carve-outs by Landlock expansion (%s): new entries cannot be created directly in %s",
				    p->mounts == MOUNTS_OFF ? "mounts \"off\"" : h->mounts_errno ? strerror(h->mounts_errno) : "no mount namespace here",
				    list);
	}
	rc = 0;
out:
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

int fit(const struct profile *p, const struct host *h, const struct fs_view *raw,
	struct plan *pl, struct sb_err *err)
{
	struct fitctx fc = {0};
	struct fs_cache cache;
	struct fs_view view = fs_cache_view(&cache, raw);
	const struct fs_view *fs = &view;
	memset(pl, 0, sizeof *pl);
	pl->prof = p;
	int bad = fit_ns(p, h, fs, pl, &fc, err) ||
		  fit_landlock(p, h, fs, pl, &fc, err) || fit_caps(p, h, pl, err);
	fs_cache_free(&cache);
	pl->network = fc.net;
	sv_free(&fc.excl_r);
	sv_free(&fc.excl_w);
	sv_free(&fc.ro_read);
	if (bad)
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
		filter_build(p, h, (pl->handled_net & (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)) && pl->network != NET_OFF, pl);
	}
	return 0;
fail:
	plan_free(pl);
	return -1;
}

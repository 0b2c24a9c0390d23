/* fit, filesystem half: carve-outs (protect, read_only, hidden), the
 * private /tmp and /var/tmp, the views of /run and of an ungranted $HOME,
 * and whether they are made with mounts or by Landlock expansion
 * (DESIGN.md "Filesystem").  Nothing is ever created in the user's tree:
 * a protected name that does not exist is listed, not occupied. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carve.h"
#include "fit_int.h"

int fit_normalise(const char *in, char *out, size_t n, const char *where,
		  struct sb_err *err)
{
	int r = path_lexical(in, out, n, false);
	if (r == -EINVAL)
		return sb_fail(err, where, in, "must not contain \"..\"");
	if (r)
		return sb_fail(err, where, in, "path too long");
	return 0;
}

/* The writable tree (canonical) holding `path`, lexically through the
 * given or the canonical spelling; rel gets the rest.  NULL if none. */
const char *fit_in_writable(const struct fitctx *fc, const char *path, const char **rel)
{
	const struct profile *p = fc->p;
	for (size_t i = 0; i < p->writable.v.n; i++) {
		const char *forms[2] = {p->writable.v.v[i], fc->wcanon[i]};
		for (int f = 0; f < 2 && fc->wcanon[i]; f++) {
			const char *w = forms[f];
			size_t n = strcmp(w, "/") == 0 ? 0 : strlen(w);
			if (strcmp(path, w) != 0 && path_within(path, w) && path[n] == '/') {
				*rel = path + n + 1;
				return fc->wcanon[i];
			}
		}
	}
	return NULL;
}

/* True if canonical `path` lies in a tree the command may read. */
bool fit_readable(const struct fitctx *fc, const char *path)
{
	const struct profile *p = fc->p;
	const struct pathlist *lists[] = {&p->readable, &p->caches};
	for (size_t i = 0; i < p->writable.v.n; i++)
		if (fc->wcanon[i] && path_within(path, fc->wcanon[i]))
			return true;
	for (size_t i = 0; i < fc->priv_tmp.n; i++)
		if (path_within(path, fc->priv_tmp.v[i]))
			return true;
	if (p->tmp && path_within(path, p->tmp))
		return true;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->v.n; i++) {
			const char *canon;
			enum fs_kind k;
			if (fit_entry(fc, lists[l], i, &canon, &k) == 0 && path_within(path, canon))
				return true;
		}
	return false;
}

struct carve *fit_carve_add(struct fitctx *fc, const char *tree, const char *rel,
			       const char *abs, bool hidden, unsigned part, const char *where)
{
	fc->cv = xgrow(fc->cv, fc->ncv, sizeof *fc->cv);
	struct carve *c = &fc->cv[fc->ncv++];
	memset(c, 0, sizeof *c);
	c->tree = tree ? xstrdup(tree) : NULL;
	c->rel = rel ? xstrdup(rel) : NULL;
	c->abs = xstrdup(abs);
	c->hidden = hidden;
	c->part = part;
	snprintf(c->where, sizeof c->where, "%s", where);
	enum fs_kind k = FS_MISSING;
	if (fc->fs->lkind(fc->fs->ctx, abs, &k) == 0 && k != FS_MISSING) {
		c->exists = true;
		c->dir = k == FS_DIR;
	}
	char cut[4096];
	c->cut_kind = FS_DIR;
	if (tree && carve_cut(fc->fs, tree, rel, cut, sizeof cut, &c->cut_kind) == 0)
		c->cut = xstrdup(cut);
	else
		c->cut = xstrdup(abs);
	return c;
}

/* Append ", path" (or the first "path") to list[n] while it fits; an
 * ellipsis once it does not. */
static void list_add(char *list, size_t n, const char *path)
{
	size_t o = strlen(list), k = strlen(path);
	for (const char *t = list; *t; t += strspn(t, ", "))
		if (strncmp(t, path, k) == 0 && (t[k] == ',' || !t[k]))
			return; /* listed already */
		else
			t += strcspn(t, ",");
	if (strstr(list, "..."))
		return;
	if (o + k + 8 > n) {
		snprintf(list + o, n - o, "%s...", o ? ", " : "");
		return;
	}
	snprintf(list + o, n - o, "%s%s", o ? ", " : "", path);
}

/* A hidden path that does not exist yet (~/.aws/credentials before `aws
 * configure` on the host): its nearest existing ancestor resolved and the
 * rest appended, carved where that lies (inside a writable tree, or
 * outside all of them with `exists` false), so that Landlock can go
 * around it and what the host creates there during the run stays
 * unreadable.  An ancestor that is not a directory: nothing can appear
 * there, nothing to do. */
static void hidden_missing(struct fitctx *fc, const char *norm, const char *where)
{
	char pre[4096], canon[4096], full[8200];
	const char *rel;
	enum fs_kind k = FS_MISSING;
	snprintf(pre, sizeof pre, "%s", norm);
	for (;;) {
		char *slash = strrchr(pre, '/');
		if (!slash)
			return;
		*slash = 0;
		const char *dir = pre[0] ? pre : "/";
		int r = fc->fs->resolve(fc->fs->ctx, dir, canon, sizeof canon, &k);
		if (r == 0)
			break;
		if (r != -ENOENT || !pre[0])
			return;
	}
	if (k != FS_DIR)
		return;
	snprintf(full, sizeof full, "%s%s", strcmp(canon, "/") ? canon : "", norm + strlen(pre));
	const char *tree = fit_in_writable(fc, full, &rel);
	fit_carve_add(fc, tree, tree ? rel : NULL, full, true, tree ? UNF_CARVE : 0, where);
}

/* A user path of read_only / hidden: inside a writable tree it is carved
 * lexically (symlinks inside are never followed); outside, its canonical
 * target is what matters (the command cannot change that part). */
static int carve_user(struct fitctx *fc, const struct pathlist *l, bool hidden,
		      struct sb_err *err)
{
	const struct profile *p = fc->p;
	for (size_t i = 0; i < l->v.n; i++) {
		char where[96], norm[4096], canon[4096];
		const char *rel;
		enum fs_kind kind;
		snprintf(where, sizeof where, ".%s[%zu]", l->key, i);
		if (fit_normalise(l->v.v[i], norm, sizeof norm, where, err))
			return -1;
		if (hidden && strcmp(norm, "/") == 0)
			return sb_fail(err, where, l->v.v[i], "would hide everything, the command included; list the trees to hide");
		for (size_t w = 0; w < p->writable.v.n; w++)
			if (strcmp(norm, p->writable.v.v[w]) == 0 || (fc->wcanon[w] && strcmp(norm, fc->wcanon[w]) == 0))
				return sb_fail(err, where, l->v.v[i], "is .writable[%zu] itself; remove it from writable instead", w);
		const char *tree = fit_in_writable(fc, norm, &rel);
		int r = tree ? 0 : fc->fs->resolve(fc->fs->ctx, norm, canon, sizeof canon, &kind);
		if (!tree && r == 0)
			tree = fit_in_writable(fc, canon, &rel);
		if (tree) {
			char abs[4096];
			snprintf(abs, sizeof abs, "%s%s%s", tree, strcmp(tree, "/") ? "/" : "", rel);
			fit_carve_add(fc, tree, rel, abs, hidden, UNF_CARVE, where);
		} else if (r == 0 && hidden) {
			fit_carve_add(fc, NULL, NULL, canon, true, 0, where);
		} else if (r == 0) {
			plan_notice(fc->pl, "%s \"%s\": outside every writable tree, so already read-only", where, l->v.v[i]);
		} else if (r == -ENOENT && hidden) {
			hidden_missing(fc, norm, where);
		} else if (r != -ENOENT) {
			plan_notice(fc->pl, "%s \"%s\": skipped: %s", where, l->v.v[i], strerror(-r));
		}
		/* a missing read_only path outside writable trees cannot be
		 * created by the command */
	}
	return 0;
}

static bool is_git_name(const char *n)
{
	return strcmp(n, ".git") == 0 || strncmp(n, ".git/", 5) == 0;
}

/* A writable tree inside a repository's .git (the git dir itself, or a
 * linked worktree's R/.git/worktrees/NAME): *g points at "/.git" in it,
 * else NULL; base gets the repository root (or the tree). */
static const char *git_base(const char *tree, char *base, size_t n)
{
	const char *g = strstr(tree, "/.git");
	while (g && g[5] && g[5] != '/')
		g = strstr(g + 1, "/.git");
	snprintf(base, n, "%.*s", g ? (int)(g - tree) : (int)strlen(tree), tree);
	return g;
}

/* The protect names of one list relative to writable tree i. */
static int protect_list(struct fitctx *fc, size_t i, const struct strvec *names,
			bool extra, struct sb_err *err)
{
	char base[4096];
	const char *tree = fc->wcanon[i];
	const char *g = git_base(tree, base, sizeof base);
	for (size_t j = 0; j < names->n; j++) {
		const char *name = names->v[j];
		char where[96], abs[8200], norm[4096];
		if (g && !is_git_name(name))
			continue;
		if (extra)
			snprintf(where, sizeof where, ".protect_extra[%zu]", j);
		else if (fc->p->protect_set)
			snprintf(where, sizeof where, ".protect[%zu]", j);
		else
			snprintf(where, sizeof where, ".protect (built-in %s)", name);
		snprintf(abs, sizeof abs, "%s/%s", strcmp(base, "/") ? base : "", name);
		if (fit_normalise(abs, norm, sizeof norm, where, err))
			return -1;
		if (strcmp(norm, tree) == 0 || !path_within(norm, tree))
			continue; /* the git dir's names outside this tree */
		const char *rel = norm + (strcmp(tree, "/") ? strlen(tree) + 1 : 1);
		struct carve *c = fit_carve_add(fc, tree, rel, norm, false,
						UNF_CARVE, where);
		c->builtin = !extra && !fc->p->protect_set;
	}
	return 0;
}

/* protect: every name relative to every writable tree; a writable tree
 * inside a repository's .git gets the .git names relative to that
 * repository where they fall inside it, and no others.  Without a
 * "protect" key, the routes git itself follows (fit_git_routes: linked
 * worktrees, nested repositories, core.hooksPath, includes, submodules,
 * home files) are part of the built-in list. */
static int carve_protect(struct fitctx *fc, struct sb_err *err)
{
	/* speccoder's trust_handoff: what runs code later stays writable on
	 * purpose (git init, project generators), in every mode: no protect
	 * list at all (read_only entries still hold) */
	if (fc->p->unenforced & UNF_TRUST_HANDOFF) {
		sv_push(&fc->pl->remarks, "unenforced.trust_handoff: no protect list is applied (git hooks and config, shell startup files, editor and agent config in writable trees stay writable); read_only entries still hold");
		return 0;
	}
	for (size_t i = 0; i < fc->p->writable.v.n; i++) {
		if (!fc->wcanon[i])
			continue;
		if (protect_list(fc, i, &fc->p->protect, false, err) ||
		    protect_list(fc, i, &fc->p->protect_extra, true, err))
			return -1;
	}
	if (!fc->p->protect_set)
		fit_git_routes(fc);
	return 0;
}

/* A symlink in a carved position is never followed, but what it points
 * to is reachable by its own path and, outside, through the link: when
 * that lies in a writable tree it is carved too (bounded, so a loop of
 * links ends). */
static void carve_link_targets(struct fitctx *fc)
{
	for (size_t i = 0; i < fc->ncv && fc->ncv < 256; i++) {
		char canon[4096], where[512];
		enum fs_kind k;
		const char *rel;
		if (fc->cv[i].cut_kind != FS_SYMLINK ||
		    fc->fs->resolve(fc->fs->ctx, fc->cv[i].cut, canon, sizeof canon, &k) != 0)
			continue;
		const char *tree = fit_in_writable(fc, canon, &rel);
		if (!tree)
			continue;
		snprintf(where, sizeof where, "%.400s (symlink target)", fc->cv[i].where);
		bool builtin = fc->cv[i].builtin; /* carve_add may move the array */
		fit_carve_add(fc, tree, rel, canon, fc->cv[i].hidden, fc->cv[i].part, where)->builtin = builtin;
	}
}

/* Inside replaced directory `dir` (a view, a private tmpfs, a hidden
 * directory's mask): bring back the writable trees, caches, explicit
 * readable/executable entries and tmp that lie inside it, and with
 * `resolver` the resolver configuration (a view of /run: /etc/resolv.conf
 * is often a link there; never into a tree the profile hides). */
static void keep_inside(struct fitctx *fc, const char *dir, bool resolver)
{
	const struct profile *p = fc->p;
	const struct pathlist *keep[] = {&p->writable, &p->caches,
		p->readable.set ? &p->readable : NULL,
		p->executable.set ? &p->executable : NULL};
	for (size_t l = 0; l < 4; l++)
		for (size_t i = 0; keep[l] && i < keep[l]->v.n; i++) {
			char where[96];
			const char *canon;
			enum fs_kind k;
			if (fit_entry(fc, keep[l], i, &canon, &k) ||
			    strcmp(canon, dir) == 0 || !path_within(canon, dir))
				continue;
			snprintf(where, sizeof where, ".%s[%zu]", keep[l]->key, i);
			/* only writable trees stay writable: the rest is read-only
			 * at the mount level too, since the rules of a writable
			 * replacement (the private /tmp) reach down into it */
			plan_add_mount(fc->pl, MNT_KEEP, canon, where, k == FS_DIR)->rw |= l == 0;
		}
	if (p->tmp && strcmp(p->tmp, dir) != 0 && path_within(p->tmp, dir))
		plan_add_mount(fc->pl, MNT_KEEP, p->tmp, ".tmp", true)->rw = true;
	char rc[4096];
	enum fs_kind k;
	if (resolver && fc->fs->resolve(fc->fs->ctx, "/etc/resolv.conf", rc, sizeof rc, &k) == 0 &&
	    path_within(rc, dir))
		plan_add_mount(fc->pl, MNT_KEEP, rc, "/etc/resolv.conf", k == FS_DIR);
}

static size_t count_keeps(const struct plan *pl, const char *dir)
{
	size_t n = 0;
	for (size_t i = 0; i < pl->nmounts; i++)
		n += pl->mounts[i].op == MNT_KEEP && path_within(pl->mounts[i].path, dir);
	return n;
}

/* True when directory `dir` is the host's by the profile's own words: an
 * entry of readable, writable or caches names it, or a writable tree
 * holds it. */
static bool asked_for(const struct fitctx *fc, const char *dir)
{
	const struct profile *p = fc->p;
	const struct pathlist *lists[] = {&p->readable, &p->caches};
	for (size_t i = 0; i < p->writable.v.n; i++)
		if (fc->wcanon[i] && path_within(dir, fc->wcanon[i]))
			return true;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; lists[l]->set && i < lists[l]->v.n; i++) {
			const char *canon;
			enum fs_kind k;
			if (fit_entry(fc, lists[l], i, &canon, &k) == 0 && strcmp(canon, dir) == 0)
				return true;
		}
	return false;
}

/* A private, writable /tmp and /var/tmp (systemd's PrivateTmp): the
 * profile's tmp bound on /tmp when it lies elsewhere and nothing needs
 * bringing back there, else a fresh tmpfs with the granted trees inside
 * brought back.  Host sockets in the host's /tmp stay out of reach. */
static void plan_private_tmp(struct fitctx *fc)
{
	static const char *const dirs[] = {"/tmp", "/var/tmp"};
	for (size_t d = 0; d < 2; d++) {
		enum fs_kind k;
		if (fc->fs->lkind(fc->fs->ctx, dirs[d], &k) || k != FS_DIR)
			continue;
		if (asked_for(fc, dirs[d])) {
			if (fc->h->ll_abi < 9 && fc->p->unix_sockets == UNIX_SCOPED)
				sv_push_own(&fc->pl->remarks, xasprintf("%s is the host's (the profile lists it): below Landlock ABI 9 host sockets there stay reachable", dirs[d]));
			continue;
		}
		char where[32];
		snprintf(where, sizeof where, "%s (private)", dirs[d]);
		plan_add_mount(fc->pl, MNT_TMP, dirs[d], where, true);
		keep_inside(fc, dirs[d], true);
		/* the directory the command starts in (a checkout under /tmp),
		 * when the profile lets it read there: brought back read-only */
		char cw[4096];
		enum fs_kind ck;
		const char *start = fc->p->cwd ? fc->p->cwd : fc->h->cwd;
		if (start[0] == '/' && fc->fs->resolve(fc->fs->ctx, start, cw, sizeof cw, &ck) == 0 &&
		    ck == FS_DIR && strcmp(cw, dirs[d]) != 0 && path_within(cw, dirs[d]) && fit_readable(fc, cw))
			plan_add_mount(fc->pl, MNT_KEEP, cw, "the working directory", true);
		const char *t = fc->p->tmp;
		/* looked up again: keep_inside() may have moved the array */
		if (d == 0 && t && !path_within(t, "/tmp") && !path_within("/tmp", t) &&
		    count_keeps(fc->pl, "/tmp") == 0)
			plan_add_mount(fc->pl, MNT_TMP, "/tmp", where, true)->content = t;
		sv_push(&fc->priv_tmp, dirs[d]);
	}
}

/* Unix socket views (below Landlock ABI 9): /run and /var/run replaced by
 * empty read-only tmpfs, the granted trees inside brought back. */
static void plan_views(struct fitctx *fc)
{
	static const char *const views[] = {"/run", "/var/run"};
	for (size_t v = 0; v < 2; v++) {
		enum fs_kind k;
		bool writable = fc->p->tmp && path_within(views[v], fc->p->tmp);
		for (size_t i = 0; i < fc->p->writable.v.n && !writable; i++)
			writable = fc->wcanon[i] && path_within(views[v], fc->wcanon[i]);
		if (fc->fs->lkind(fc->fs->ctx, views[v], &k) || k != FS_DIR || writable)
			continue; /* /var/run is usually a link to /run; a writable one is in scope */
		plan_add_mount(fc->pl, MNT_VIEW, views[v], ".unix_sockets", true);
		keep_inside(fc, views[v], true);
	}
	fc->views = true;
	sv_push(&fc->pl->remarks, "below Landlock ABI 9 pathname unix sockets are hidden by views of /run and /var/run and a private /tmp and /var/tmp only: a socket elsewhere outside the writable trees (e.g. ~/.gnupg/S.gpg-agent in a readable home) stays reachable; list such directories in hidden");
}

/* The HOME the command will see: env.set (*set true), else the shim's
 * own unless unset or cleared.  NULL when none. */
const char *fit_command_home(const struct fitctx *fc, bool *set)
{
	const struct env_rules *e = &fc->p->env;
	*set = false;
	for (size_t i = 0; i < e->set.n; i++)
		if (env_entry_is(e->set.v[i], "HOME", 4)) {
			*set = true;
			return e->set.v[i] + 5;
		}
	if (sv_has(&e->unset, "HOME") || (e->clear && !env_keeps(&e->keep, "HOME")))
		return NULL;
	return fc->h->home[0] ? fc->h->home : NULL;
}

/* An ungranted $HOME (canonical into home[n]): an existing directory the
 * command may not read, outside the private /tmp.  0 if none; *set: it
 * comes from env.set. */
static int ungranted_home(const struct fitctx *fc, char *home, size_t n, bool *set)
{
	const char *h = fit_command_home(fc, set);
	enum fs_kind k;
	if (!h || h[0] != '/' || fc->fs->resolve(fc->fs->ctx, h, home, n, &k) || k != FS_DIR ||
	    strcmp(home, "/") == 0 || path_within(home, "/tmp") || path_within(home, "/var/tmp") ||
	    path_within("/tmp", home) || path_within("/var/tmp", home) ||
	    path_within(home, "/dev") || path_within(home, "/proc"))
		return 0; /* (a home above /tmp or /var/tmp would cover them) */
	return !fit_readable(fc, home);
}

/* An ungranted $HOME behaves as absent, not as forbidden (programs treat
 * EACCES on ~/.gitconfig as fatal, ENOENT as "none"): with mounts an empty
 * read-only view of it, the granted trees inside brought back; without,
 * HOME points at tmp when the profile has one and does not set HOME. */
static void plan_home(struct fitctx *fc, bool mounts)
{
	char home[4096];
	bool set;
	if (!ungranted_home(fc, home, sizeof home, &set))
		return;
	if (mounts) {
		plan_add_mount(fc->pl, MNT_VIEW, home, "$HOME (not granted: an empty view)", true);
		keep_inside(fc, home, true);
		sv_push(&fc->home_view, home);
		return;
	}
	enum fs_kind k;
	if (fc->p->tmp && !set) {
		fc->pl->home = xstrdup(fc->p->tmp);
	} else if (!set && fc->fs->lkind(fc->fs->ctx, "/nonexistent", &k) == 0 && k == FS_MISSING) {
		/* the conventional home of accounts without one (Debian's
		 * nobody): every dotfile is simply absent */
		fc->pl->home = xstrdup("/nonexistent");
	} else {
		char part[4200];
		snprintf(part, sizeof part, "$HOME \"%s\" as absent", home);
		plan_left(fc->pl, false, "$HOME", part,
			  "it is not granted, so programs see EACCES on their dotfiles; an empty view needs a mount namespace",
			  "built-in default");
		return;
	}
	sv_push_own(&fc->pl->remarks, xasprintf("no mount namespace: $HOME \"%s\" is not granted, so HOME is \"%s\" for the command (an ungranted home reads as absent, not forbidden)",
						home, fc->pl->home));
}

/* Mount mode: the carve-outs as mount rules; a name that does not exist
 * is not protected against creation (nothing is created to mount on):
 * built-in names are listed for --check, listed ones get a notice. */
static int plan_carve_mounts(struct fitctx *fc, struct sb_err *err)
{
	char held[700] = "", absent[600] = ""; /* for the remarks */
	for (size_t i = 0; i < fc->ncv; i++) {
		struct carve *c = &fc->cv[i];
		char missing[4096];
		if (!c->tree) {
			if (c->exists)
				plan_add_mount(fc->pl, c->dir ? MNT_MASK_DIR : MNT_MASK_FILE, c->abs, c->where, c->dir);
			continue;
		}
		int r = carve_mounts(fc->pl, fc->fs, c->tree, c->rel, c->hidden, c->where,
				     missing, sizeof missing, err);
		if (r < 0)
			return -1;
		if (r == 0) {
			list_add(held, sizeof held, c->abs);
			continue;
		}
		if (c->hidden)
			list_add(absent, sizeof absent, c->abs);
		if (c->builtin) {
			sv_push(&fc->pl->unprotected, c->abs); /* (deduplicated below) */
		} else {
			plan_notice(fc->pl, "%s \"%s\": does not exist, so it is not protected against creation (nothing is created to hold a mount)%s",
				    c->where, c->abs, c->hidden ? "; created during the run, by the host too, it is readable inside" : "");
		}
	}
	sv_dedupe(&fc->pl->unprotected);
	/* Mounts sit on names (dentries): a rename by a process outside this
	 * mount namespace over a mount point, or of it away, detaches the
	 * mount here (fs/namespace.c __detach_mounts, MNT_LOCKED or not).
	 * Inside a writable tree Landlock cannot take over either: it keys on
	 * inodes, and a new file there has its directory's rights — taking
	 * them away would stop git creating its lock files next to it. */
	if (held[0])
		sv_push_own(&fc->pl->remarks, xasprintf("host-side replacement: these carve-outs inside writable trees are held by mounts on their names; a process outside the sandbox that replaces one by rename during the run (git config on the host, an editor's atomic save, mv) detaches the mount, and the new file or directory then has the writable tree's rights inside: %s", held));
	if (absent[0])
		sv_push_own(&fc->pl->remarks, xasprintf("hidden paths inside writable trees that do not exist have no mount: created during the run (by the host or the command) they are readable and writable inside: %s", absent));
	return 0;
}

/* More specific wins: a hidden directory holding a granted tree (a
 * writable tree, an explicit readable or executable entry, a cache, tmp:
 * codex's writable root inside an unreadable one) is covered by an empty
 * read-only tmpfs of the shim's own instead of the shared mask, with those
 * trees brought back on mount points made inside that tmpfs (never in the
 * user's tree), as Landlock expansion grants them without mounts. */
static void plan_hidden_keeps(struct fitctx *fc)
{
	for (size_t i = 0; i < fc->pl->nmounts; i++) {
		if (fc->pl->mounts[i].op != MNT_MASK_DIR)
			continue;
		char *dir = xstrdup(fc->pl->mounts[i].path);
		size_t before = count_keeps(fc->pl, dir);
		keep_inside(fc, dir, false); /* may move the array */
		if (count_keeps(fc->pl, dir) > before)
			fc->pl->mounts[i].op = MNT_VIEW;
		free(dir);
	}
}

/* True when canonical `path` lies strictly inside a tree bound read-only
 * (a read_only or protect carve-out): a writable tree there needs a mount
 * of its own, or it would be read-only with its parent. */
static bool under_read_only(const struct plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		if (pl->mounts[i].op == MNT_RO_BIND && strcmp(pl->mounts[i].path, path) != 0 &&
		    path_within(path, pl->mounts[i].path))
			return true;
	return false;
}

/* True when `path` is gone in the sandbox's tree: under a replaced
 * directory (a private /tmp, a view) that brings nothing back there. */
static bool replaced_away(const struct plan *pl, const char *path)
{
	bool under = false, kept = false;
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct mount_rule *m = &pl->mounts[i];
		/* (a hidden directory covered by a view of its own, which
		 * brings granted trees back inside, is not gone) */
		under |= (m->op == MNT_TMP || m->op == MNT_VIEW) && strcmp(path, m->path) != 0 &&
			 path_within(path, m->path);
		kept |= m->op == MNT_KEEP && path_within(path, m->path);
	}
	return under && !kept;
}

/* Mount mode, hidden paths outside every writable tree: a mask sits on a
 * name, so a host that renames a new file over it (a rotated secret) or
 * the hidden directory away detaches it, and a path that does not exist
 * has none.  Landlock goes around them as well (expansion: rules follow
 * inodes, and a new inode gets only the rights of the directories along
 * the way, which are listable only).  That costs nothing here — only
 * reading is granted outside the writable trees, so no entry could be
 * created there anyway — except that entries the host creates during the
 * run directly in those directories are not readable inside. */
static void plan_hidden_expansion(struct fitctx *fc)
{
	char list[600] = "";
	for (size_t i = 0; i < fc->ncv; i++) {
		const struct carve *c = &fc->cv[i];
		if (!c->hidden || c->tree || replaced_away(fc->pl, c->abs) || sv_has(&fc->excl_r, c->abs))
			continue;
		sv_push(&fc->excl_r, c->abs);
		list_add(list, sizeof list, c->abs);
	}
	if (list[0])
		sv_push_own(&fc->pl->remarks, xasprintf("hidden paths outside the writable trees are masked and also left out of the Landlock rules, so one the host replaces or creates during the run stays unreadable; entries the host creates during the run in the directories along them are not readable inside: %s", list));
}

/* Everything outside the writable trees read-only and nosuid at the mount
 * level (as bwrap's --ro-bind / /), the writable trees and tmp brought
 * back writable, nosuid and nodev: Landlock does not govern chmod, chown,
 * setxattr or utimensat, which a command running as root could otherwise
 * use on anything it can reach. */
static void plan_read_only_root(struct fitctx *fc)
{
	const struct profile *p = fc->p;
	for (size_t i = 0; i < p->writable.v.n; i++)
		if (fc->wcanon[i] && strcmp(fc->wcanon[i], "/") == 0)
			return; /* all of it is writable */
	plan_add_mount(fc->pl, MNT_RO_ROOT, "/", "outside the writable trees", true);
	for (size_t i = 0; i < p->writable.v.n; i++) {
		char where[32];
		const char *rel, *canon;
		enum fs_kind k;
		snprintf(where, sizeof where, ".writable[%zu]", i);
		if (fc->wcanon[i]) {
			/* one mount per outermost tree: a tree inside another
			 * comes with it, so renaming between them stays possible
			 * (EXDEV between two mounts); but one inside a read-only
			 * carve-out of that other tree comes back on its own */
			if (!fit_in_writable(fc, fc->wcanon[i], &rel) || under_read_only(fc->pl, fc->wcanon[i]))
				plan_add_mount(fc->pl, MNT_RW, fc->wcanon[i], where, true)->rw = true;
		} else if (fit_entry(fc, &p->writable, i, &canon, &k) == 0 &&
			   k == FS_FILE && (!fit_in_writable(fc, canon, &rel) || under_read_only(fc->pl, canon)) &&
			   !path_within(canon, "/dev")) {
			/* a file listed as writable comes back on its own */
			plan_add_mount(fc->pl, MNT_RW, canon, where, false)->rw = true;
		}
	}
	if (p->tmp) {
		const char *rel;
		if (!fit_in_writable(fc, p->tmp, &rel))
			plan_add_mount(fc->pl, MNT_RW, p->tmp, ".tmp", true)->rw = true;
	}
}

static int plan_mounts(struct fitctx *fc, bool need_views, struct sb_err *err)
{
	struct plan *pl = fc->pl;
	pl->mount_ns = true;
	if (plan_carve_mounts(fc, err))
		return -1;
	plan_hidden_keeps(fc);
	plan_private_tmp(fc);
	if (need_views)
		plan_views(fc);
	plan_home(fc, true);
	plan_read_only_root(fc);
	/* POSIX shared memory and semaphores (Python multiprocessing,
	 * Chromium) get a private /dev/shm; the host's stays out of reach. */
	enum fs_kind k;
	if (fc->fs->lkind(fc->fs->ctx, "/dev/shm", &k) == 0 && k == FS_DIR) {
		plan_add_mount(pl, MNT_SHM, "/dev/shm", "/dev/shm (private)", true);
		fc->shm = true;
	}
	/* Granting the host's /dev/pts would hand over every terminal of
	 * this user: a new devpts instance holds only the ones made inside. */
	for (size_t i = 0; i < fc->p->devices.v.n; i++) {
		char canon[4096];
		if (fc->fs->resolve(fc->fs->ctx, fc->p->devices.v.v[i], canon, sizeof canon, &k) == 0 &&
		    k == FS_DIR && strcmp(canon, "/dev/pts") == 0)
			plan_add_mount(pl, MNT_DEVPTS, "/dev/pts", ".devices (private /dev/pts)", true);
	}
	carve_mounts_finish(pl);
	plan_hidden_expansion(fc);
	return 0;
}

/* Expansion mode (no mount namespace): explicit read_only / hidden
 * entries are expanded around; the built-in protect list never costs
 * function — expanding around names directly under a writable tree would
 * stop creating, renaming and deleting in the workspace root and in .git
 * (git's lock files) — so the existing ones are named as left out. */
/* Per carve-out: true when it is a built-in one and no earlier built-in
 * one names the same path (one name can come from two rules): hundreds of
 * writable trees carry thousands of built-in names, so no scan per name.
 * Owned by the caller (free). */
static bool *first_builtin(const struct fitctx *fc)
{
	const char **abs = xcalloc(fc->ncv + 1, sizeof *abs);
	for (size_t i = 0; i < fc->ncv; i++)
		abs[i] = fc->cv[i].builtin ? fc->cv[i].abs : NULL;
	bool *first = first_of_each(abs, fc->ncv);
	free(abs);
	return first;
}

static void plan_expansion(struct fitctx *fc)
{
	struct plan *pl = fc->pl;
	/* every path named (git's routes in a workspace of repositories make
	 * it long), up to a bound that keeps the notice one readable line */
	char list[16384] = "";
	size_t ll = 0; /* strlen(list) */
	bool more = false;
	size_t nb = 0;
	bool *first = first_builtin(fc);
	for (size_t i = 0; i < fc->ncv; i++) {
		struct carve *c = &fc->cv[i];
		pl->expansion |= !c->builtin;
		if (c->builtin) {
			if (!c->exists)
				sv_push(&pl->unprotected, c->abs); /* (deduplicated below) */
			bool seen = !first[i]; /* (one name can come from two rules) */
			size_t k = strlen(c->abs);
			if (c->exists && !seen && ll + k + 3 < sizeof list)
				ll += (size_t)snprintf(list + ll, sizeof list - ll, "%s%s",
						       ll ? ", " : "", c->abs);
			else if (c->exists && !seen)
				more = true;
			nb += c->exists;
			continue;
		}
		if (c->part && (fc->p->unenforced & c->part)) {
			char *part = xasprintf("carve-out %s \"%s\"", c->where, c->abs);
			char *why = xasprintf("%s; left writable instead of expanding", fc->why);
			char *key = xasprintf(".unenforced.%s", unenforced_name(c->part));
			plan_left(pl, false, c->where, part, why, key);
			free(part);
			free(why);
			free(key);
			continue;
		}
		/* Writable trees go around the first component that is not a
		 * directory (a missing name, a file such as a worktree's .git,
		 * a symlink), so it can be neither created nor replaced;
		 * readable trees around existing hidden paths. */
		/* (a missing hidden path: around its first missing
		 * component, so what appears there later stays unreadable) */
		if (c->hidden)
			sv_push(&fc->excl_r, c->exists ? c->abs : c->cut);
		sv_push(&fc->excl_w, c->cut);
		if (!c->hidden && (c->cut_kind == FS_FILE || c->cut_kind == FS_DIR))
			sv_push(&fc->ro_read, c->cut);
	}
	free(first);
	sv_dedupe(&pl->unprotected);
	if (nb) {
		char *part = xasprintf("built-in protect of %s%s", list, more ? ", ..." : "");
		char *why = xasprintf("%s, and Landlock alone would take creating, renaming and deleting away from the workspace root and .git", fc->why);
		plan_left(pl, false, ".protect", part, why, "built-in default");
		free(part);
		free(why);
	}
	plan_home(fc, false);
	sv_push(&pl->remarks, "no mount namespace: /tmp and /var/tmp are the host's (readable where granted, never writable unless listed); tmp is the private temporary directory (TMPDIR)");
	sv_push(&pl->remarks, "no mount namespace: no private /dev/shm; the host's is reachable only when devices lists /dev/shm (POSIX semaphores, Python's multiprocessing need it)");
	sv_push(&pl->remarks, "no mount namespace: Landlock does not govern chmod, chown, xattrs or file times, so the command can change those of any file it owns (as root: any file it can reach) outside the writable trees; set-uid and set-gid bits are still refused by seccomp");
}

/* A profile path must not be resolved through a symlink inside a
 * writable tree: an earlier sandboxed run could have planted it
 * (ln -s /victim W/.cache, then "tmp": "W/.cache/tmp" writes into
 * /victim).  A path whose canonical form is its own normalised spelling
 * went through no symlink at all (resolve() is memoised, so this costs
 * nothing for the thousands of canonical readable paths a profile may
 * list).  Any other is walked component by component in canonical form
 * (lkind, no following; a symlink outside every writable tree is
 * resolved and the walk goes on from its target, so a link that leads
 * into a tree is followed in there too).  The walk must arrive where
 * resolve() did — the grants use resolve()'s answer — or the path
 * changed while it was checked (a concurrent process swapping a
 * directory for a symlink): refused too.  0, or -1 with `err`. */
static int planted(struct fitctx *fc, const char *key, const struct pathlist *l,
		   size_t i, const char *path, struct sb_err *err)
{
	/* (cur not "= \"/\"": 4 KiB zeroed per entry showed at 10,000) */
	char norm[4096], canon[4096], cur[4096], cand[4096], where[96];
	const char *rel, *c;
	enum fs_kind k;
	/* a list entry (l) is asked through the memo, tmp and cwd directly */
	int r = l ? fit_entry(fc, l, i, &c, &k) : fc->fs->resolve(fc->fs->ctx, path, canon, sizeof canon, &k);
	if (l && r == 0 && strcmp(c, path) == 0)
		return 0; /* its own canonical spelling: normalised already */
	if (l)
		snprintf(where, sizeof where, ".%s[%zu]", l->key, i);
	else
		snprintf(where, sizeof where, "%s", key);
	if (fit_normalise(path, norm, sizeof norm, where, NULL))
		return 0; /* ".." is refused by the parser anyway */
	if (l && r == 0)
		snprintf(canon, sizeof canon, "%s", c);
	if (r == 0 && strcmp(canon, norm) == 0)
		return 0;
	strcpy(cur, "/");
	for (const char *q = norm; *q;) {
		while (*q == '/')
			q++;
		size_t n = strcspn(q, "/");
		if (!n)
			break;
		if (snprintf(cand, sizeof cand, "%s/%.*s", strcmp(cur, "/") ? cur : "", (int)n, q) >= (int)sizeof cand)
			return 0; /* too long: resolve() fails on it as well */
		q += n;
		if (fc->fs->lkind(fc->fs->ctx, cand, &k) || k == FS_MISSING)
			return 0; /* nothing there (tmp, created later from its parent) */
		if (k != FS_SYMLINK) {
			memcpy(cur, cand, sizeof cur);
			continue;
		}
		const char *tree = fit_in_writable(fc, cand, &rel);
		if (tree)
			return sb_fail(err, where, path, "goes through the symlink %s inside the writable tree %s, which a sandboxed command could have planted; name the real path",
				       cand, tree);
		if (fc->fs->resolve(fc->fs->ctx, cand, cur, sizeof cur, &k))
			return 0; /* a dangling link outside: nothing there */
	}
	if (r == 0 && strcmp(cur, canon) != 0)
		return sb_fail(err, where, path, "resolved to %s, but walked again it leads to %s: it changed while it was checked (a concurrent process swapping a directory and a symlink?); name the real path",
			       canon, cur);
	return 0;
}

static int check_planted(struct fitctx *fc, struct sb_err *err)
{
	const struct profile *p = fc->p;
	const struct pathlist *lists[] = {&p->writable, &p->readable, &p->executable, &p->caches};
	for (size_t l = 0; l < 4; l++)
		for (size_t i = 0; lists[l]->set && i < lists[l]->v.n; i++)
			if (planted(fc, NULL, lists[l], i, lists[l]->v.v[i], err))
				return -1;
	if (p->tmp && planted(fc, ".tmp", NULL, 0, p->tmp, err))
		return -1;
	if (p->cwd && planted(fc, ".cwd", NULL, 0, p->cwd, err))
		return -1;
	return 0;
}

int fit_ns(struct fitctx *fc, struct sb_err *err)
{
	const struct profile *p = fc->p;
	const struct host *h = fc->h;
	size_t nw = p->writable.v.n;
	fc->wcanon = xcalloc(nw + 1, sizeof *fc->wcanon);
	for (size_t i = 0; i < nw; i++) {
		const char *canon;
		enum fs_kind k;
		if (fit_entry(fc, &p->writable, i, &canon, &k) == 0 && k == FS_DIR) {
			fc->wcanon[i] = xstrdup(canon);
			sv_push(&fc->pl->trees, canon);
		}
	}
	if (p->tmp) {
		char canon[4096];
		enum fs_kind k;
		if (fc->fs->resolve(fc->fs->ctx, p->tmp, canon, sizeof canon, &k) == 0 && k == FS_DIR)
			sv_push(&fc->pl->trees, canon);
	}
	if (check_planted(fc, err) || carve_protect(fc, err) || carve_user(fc, &p->read_only, false, err) ||
	    carve_user(fc, &p->hidden, true, err))
		return -1;
	carve_link_targets(fc);

	if (p->mounts == MOUNTS_OFF)
		snprintf(fc->why, sizeof fc->why, "mounts \"off\"");
	else
		snprintf(fc->why, sizeof fc->why, "no mount namespace here: %s",
			 h->mounts_why[0] ? h->mounts_why : h->mounts_errno ? strerror(h->mounts_errno)
									    : "user namespaces are not available");
	if (p->mounts == MOUNTS_REQUIRED && !h->mounts)
		plan_left(fc->pl, true, ".mounts", "a mount namespace (mounts \"required\")", fc->why, "mounts");
	fc->net = p->network;
	if (h->mounts) {
		fc->pl->net_ns = fit_wants_net_ns(p);
	} else if (p->network == NET_LOOPBACK) {
		fc->net = NET_OFF;
		plan_notice(fc->pl, ".network \"loopback\": enforced as \"off\" (%s)", fc->why);
	}
	sv_push(&fc->excl_r, "/dev");
	sv_push(&fc->excl_w, "/dev");
	bool need_views = h->ll_abi > 0 && h->ll_abi < 9 && p->unix_sockets == UNIX_SCOPED;
	if (h->mounts && p->mounts != MOUNTS_OFF)
		return plan_mounts(fc, need_views, err);
	plan_expansion(fc);
	return 0;
}

bool fit_wants_net_ns(const struct profile *p)
{
	/* ("any" asks for the host's abstract names) */
	return p->network == NET_LOOPBACK ||
	       (p->network == NET_OFF && p->unix_sockets == UNIX_SCOPED && p->mounts != MOUNTS_OFF);
}

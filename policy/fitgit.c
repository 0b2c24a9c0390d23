/* fit, git half: the routes by which something written now runs code
 * later as the user, outside the sandbox, found the way git itself finds
 * them (DESIGN.md "Protection follows git's own resolution of a
 * repository"; issue 10 §2), and added as built-in carve-outs where they
 * lie inside a writable tree (outside, they are read-only already).
 *
 *  - the repositories a writable tree lies in (a .git at an ancestor, or
 *    the tree inside a .git) or holds (a bounded breadth-first walk: a
 *    .git directory, a gitfile, a bare repository);
 *  - per git dir: its commondir (git's setup.c), config, config.worktree,
 *    hooks/, info/, modules/, gitdir, each linked worktree's commondir,
 *    gitdir and config.worktree, the gitfile that led to it;
 *  - what its configuration names (policy/gitconfig.c): core.hooksPath
 *    (relative to the work tree, or to the git dir when bare: githooks(5)),
 *    include.path and every includeIf.*.path (all taken as included:
 *    over-protecting is safe), followed to git's depth of 10; the global
 *    configuration (~/.gitconfig, ~/.config/git/config, /etc/gitconfig)
 *    for its includes and hooksPath;
 *  - submodules: the gitfile of each path .gitmodules lists;
 *  - home files that run code later (home_names below).
 * Files in writable trees may have been written by an earlier sandboxed
 * run; what they say only ever adds protection (a planted gitfile can
 * make a few more names read-only, never fewer). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_int.h"
#include "gitconfig.h"

#define GIT_READ_MAX (64 * 1024) /* bytes of one config file parsed */
#define GIT_INCLUDE_DEPTH 10     /* git's MAX_INCLUDE_DEPTH */
#define GIT_FILES_MAX 256        /* config files read per run */
#define GIT_REPOS_MAX 256        /* git dirs followed per run */
#define GIT_WALK_DEPTH 4         /* directory levels searched below a writable tree */
/* directories listed per writable tree: each costs a getdents (about
 * 15 us of CPU on ext4), so a tree of thousands of directories costs up
 * to about 30 ms at start-up (make bench; tests/carve/gitroutes.t) */
#define GIT_WALK_DIRS 2048

/* State of one fit_git_routes(); strings owned. */
struct gscan {
	struct fitctx *fc;
	char *buf;                   /* GIT_READ_MAX bytes */
	struct strvec homes;         /* the command's and the shim's HOME */
	struct strvec gitdirs;       /* git dirs followed (normalised) */
	struct strvec files;         /* config files read */
	struct strvec ghooks, ghfrom; /* core.hooksPath of the global config, and the file */
	size_t walked;               /* directories listed in the current walk */
	bool files_bound, repos_bound;
};

/* Lexically normalise absolute `in` (path_lexical, ".." going up, as
 * git's paths may).  0 or -1 (relative, long). */
static int lexical(const char *in, char *out, size_t n)
{
	return in[0] == '/' && path_lexical(in, out, n, true) == 0 ? 0 : -1;
}

/* dir/name, normalised, into out[n].  0 or -1. */
static int join(const char *dir, const char *name, char *out, size_t n)
{
	char tmp[8400];
	int w = name[0] == '/' ? snprintf(tmp, sizeof tmp, "%s", name)
			       : snprintf(tmp, sizeof tmp, "%s/%s", dir, name);
	return w < 0 || (size_t)w >= sizeof tmp ? -1 : lexical(tmp, out, n);
}

/* The directory holding `path` into out[n] ("/" for a top-level name). */
static void dirname_of(const char *path, char *out, size_t n)
{
	const char *s = strrchr(path, '/');
	size_t k = s && s != path ? (size_t)(s - path) : 1;
	if (k >= n)
		k = n - 1;
	memmove(out, path, k); /* out may be path */
	out[k] = 0;
}

/* A built-in carve-out of normalised `norm` when it lies strictly inside
 * a writable tree; `where` names the route.  Duplicates dropped. */
static void protect_one(struct gscan *g, const char *norm, const char *where)
{
	struct fitctx *fc = g->fc;
	char abs[8200], relc[4096];
	const char *rel, *tree = fit_in_writable(fc, norm, &rel);
	if (!tree)
		return;
	snprintf(abs, sizeof abs, "%s%s%s", tree, strcmp(tree, "/") ? "/" : "", rel);
	for (size_t i = 0; i < fc->ncv; i++)
		if (strcmp(fc->cv[i].abs, abs) == 0)
			return;
	snprintf(relc, sizeof relc, "%s", rel);
	fit_carve_add(fc, tree, relc, abs, false, UNF_CARVE, where)->builtin = true;
}

/* Protect `path` as written (lexically normalised: the names on the way
 * are pinned, a symlink among them covered) and, when it exists, where
 * the kernel resolves it (as git opens it: ".." after a symlink);
 * `fmt` names the route for --check (".protect (core.hooksPath in
 * /w/.git/config)"). */
static void __attribute__((format(printf, 3, 4)))
protect(struct gscan *g, const char *path, const char *fmt, ...)
{
	char norm[4096], canon[4096], where[512];
	enum fs_kind k;
	va_list ap;
	va_start(ap, fmt);
	int w = snprintf(where, sizeof where, ".protect (");
	vsnprintf(where + w, sizeof where - (size_t)w - 1, fmt, ap);
	va_end(ap);
	strcat(where, ")");
	if (lexical(path, norm, sizeof norm) == 0)
		protect_one(g, norm, where);
	if (g->fc->fs->resolve(g->fc->fs->ctx, path, canon, sizeof canon, &k) == 0)
		protect_one(g, canon, where);
}

/* `path` as git opens it: canonical when it resolves, else lexically
 * normalised (0), or -1. */
static int opened(struct gscan *g, const char *path, char *out, size_t n)
{
	enum fs_kind k;
	if (g->fc->fs->resolve(g->fc->fs->ctx, path, out, n, &k) == 0)
		return 0;
	return lexical(path, out, n);
}

/* Read `path` into g->buf.  1 when there is something to parse, 0 when
 * not (missing, not a file, bounds), remarking what is unexpected. */
static int readfile(struct gscan *g, const char *path, size_t *len)
{
	struct fitctx *fc = g->fc;
	bool trunc = false;
	if (sv_has(&g->files, path))
		return 0;
	if (g->files.n >= GIT_FILES_MAX) {
		g->files_bound = true;
		return 0;
	}
	sv_push(&g->files, path);
	int r = fc->fs->read ? fc->fs->read(fc->fs->ctx, path, g->buf, GIT_READ_MAX, len, &trunc) : -ENOSYS;
	if (r == -ENOENT || r == -ENOTDIR || r == -ENOSYS)
		return 0;
	if (r) {
		sv_push_own(&fc->pl->remarks, xasprintf("git configuration \"%s\" could not be read (%s): the hooks directory and includes it names are not followed",
							path, strerror(-r)));
		return 0;
	}
	if (trunc)
		sv_push_own(&fc->pl->remarks, xasprintf("git configuration \"%s\" is longer than %d bytes: only that much was followed for hooks and includes",
							path, GIT_READ_MAX));
	return 1;
}

/* What one configuration file (and its includes) says. */
struct cfg {
	struct gscan *g;
	const char *file;
	char dir[4096];        /* the file's directory: relative includes */
	struct strvec incl, label; /* include targets and "include.path"-like labels */
	struct strvec *hooks, *hfrom; /* core.hooksPath values, and their file */
	char worktree[4096];   /* core.worktree, "" if none */
	bool bare;
	struct strvec *subs;   /* .gitmodules: submodule.*.path (NULL: not asked) */
};

static int cfg_item(void *arg, const struct gitcfg_item *it)
{
	struct cfg *c = arg;
	const char *v = it->value;
	if (c->subs) {
		if (v && strcmp(it->section, "submodule") == 0 && it->subsection && strcmp(it->key, "path") == 0)
			sv_push(c->subs, v);
		return 0;
	}
	if (strcmp(it->section, "core") == 0 && !it->subsection) {
		if (v && strcmp(it->key, "hookspath") == 0) {
			sv_push(c->hooks, v);
			sv_push(c->hfrom, c->file);
		} else if (v && strcmp(it->key, "worktree") == 0) {
			snprintf(c->worktree, sizeof c->worktree, "%s", v);
		} else if (strcmp(it->key, "bare") == 0) {
			c->bare = !v || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 ||
				  strcmp(v, "on") == 0 || strcmp(v, "1") == 0;
		}
		return 0;
	}
	bool inc = strcmp(it->section, "include") == 0 && !it->subsection;
	bool incif = strcmp(it->section, "includeif") == 0 && it->subsection;
	if (v && (inc || incif) && strcmp(it->key, "path") == 0) {
		/* "~/" is the user's home; the command's too when it differs */
		size_t nh = v[0] == '~' ? c->g->homes.n : 0;
		for (size_t h = 0; h < nh || h == 0; h++) {
			char path[4096];
			if (gitcfg_path(v, nh ? c->g->homes.v[h] : NULL, c->dir, path, sizeof path) == 0 &&
			    !sv_has(&c->incl, path)) {
				sv_push(&c->incl, path);
				sv_push_own(&c->label, inc ? xstrdup("include.path")
							   : xasprintf("includeIf \"%.200s\".path", it->subsection));
			}
		}
	}
	return 0;
}

/* Parse configuration `file` (depth: include nesting) into what `c`
 * collects; its include targets are protected and followed. */
static void config_read(struct gscan *g, const char *path, int depth, struct cfg *c)
{
	size_t len;
	char file[4096];
	if (depth > GIT_INCLUDE_DEPTH || opened(g, path, file, sizeof file) || !readfile(g, file, &len))
		return;
	struct cfg in = *c;
	in.file = file;
	in.incl = (struct strvec){0};
	in.label = (struct strvec){0};
	dirname_of(file, in.dir, sizeof in.dir);
	size_t bad = gitcfg_parse(g->buf, len, cfg_item, &in);
	if (bad)
		sv_push_own(&g->fc->pl->remarks, xasprintf("git configuration \"%s\": line %zu is malformed (git refuses the file): followed up to there",
							   file, bad));
	snprintf(c->worktree, sizeof c->worktree, "%s", in.worktree);
	c->bare = in.bare;
	for (size_t i = 0; i < in.incl.n; i++) {
		protect(g, in.incl.v[i], "%s in %s", in.label.v[i], file);
		config_read(g, in.incl.v[i], depth + 1, c);
	}
	sv_free(&in.incl);
	sv_free(&in.label);
}

/* Each core.hooksPath value (hooks[i] from hfrom[i]) as git resolves it
 * for a repository whose hooks run in `base` (the work tree, or the git
 * dir when bare). */
static void hooks_protect(struct gscan *g, const struct strvec *hooks,
			  const struct strvec *hfrom, const char *base)
{
	for (size_t i = 0; i < hooks->n; i++) {
		/* "~/" is the user's home; the command's too when it differs */
		size_t nh = hooks->v[i][0] == '~' ? g->homes.n : 0;
		for (size_t h = 0; h < nh || h == 0; h++) {
			char path[4096], norm[4096];
			const char *rel;
			if (gitcfg_path(hooks->v[i], nh ? g->homes.v[h] : NULL, base, path, sizeof path) ||
			    lexical(path, norm, sizeof norm))
				continue;
			/* a tree itself is never carved (that would take it all) */
			for (size_t w = 0; w < g->fc->p->writable.v.n; w++)
				if (g->fc->wcanon[w] && strcmp(g->fc->wcanon[w], norm) == 0 &&
				    !fit_in_writable(g->fc, norm, &rel))
					sv_push_own(&g->fc->pl->remarks, xasprintf("core.hooksPath \"%s\" in %s is the writable tree %s: hooks written there are not protected",
										   hooks->v[i], hfrom->v[i], norm));
			protect(g, norm, "core.hooksPath in %s", hfrom->v[i]);
		}
	}
}

/* The first line of `path` ("gitdir: X", a commondir) into out[n],
 * trailing blanks dropped, when `prefix` starts it.  0 or -1. */
static int first_line(struct gscan *g, const char *path, const char *prefix, char *out, size_t n)
{
	size_t len;
	if (!readfile(g, path, &len))
		return -1;
	size_t pl = strlen(prefix), k = strcspn(g->buf, "\n");
	if (k < pl || strncmp(g->buf, prefix, pl) != 0)
		return -1;
	while (k > pl && strchr(" \t\r", g->buf[k - 1]))
		k--;
	if (k == pl || k - pl >= n)
		return -1;
	memcpy(out, g->buf + pl, k - pl);
	out[k - pl] = 0;
	return 0;
}

static void repo(struct gscan *g, const char *gd, const char *wt, const char *how);

/* The files of git dir `d` that decide what git runs: protected. */
static void gitdir_files(struct gscan *g, const char *d, const char *how)
{
	static const char *const names[] = {"config", "config.worktree", "commondir", "gitdir",
					    "hooks/", "info/", "modules/"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char p[8400];
		snprintf(p, sizeof p, "%s/%s", d, names[i]);
		protect(g, p, "%s", how);
	}
}

struct wtlist {
	struct gscan *g;
	const char *dir;
};

/* One linked worktree's git dir (C/worktrees/NAME): its commondir,
 * gitdir and config.worktree aim git at a repository, config and hooks. */
static int worktree_entry(void *arg, const char *name, enum fs_kind kind)
{
	struct wtlist *w = arg;
	static const char *const own[] = {"commondir", "gitdir", "config.worktree"};
	if (kind != FS_DIR)
		return 0;
	char p[8400], gf[4096];
	for (int o = 0; o < 3; o++) {
		snprintf(p, sizeof p, "%s/%s/%s", w->dir, name, own[o]);
		protect(w->g, p, "linked worktree %s/%s", w->dir, name);
	}
	/* gitdir names the worktree's own gitfile: rewritten, it points git
	 * there at another git dir */
	snprintf(p, sizeof p, "%s/%s/gitdir", w->dir, name);
	if (first_line(w->g, p, "", gf, sizeof gf) == 0 && gf[0] == '/')
		protect(w->g, gf, "gitfile of linked worktree %s/%s", w->dir, name);
	return 0;
}

/* The paths .gitmodules in work tree `wt` lists: their gitfiles. */
static void submodules(struct gscan *g, const char *wt)
{
	char gm[4200];
	size_t len;
	snprintf(gm, sizeof gm, "%s/.gitmodules", strcmp(wt, "/") ? wt : "");
	if (!readfile(g, gm, &len))
		return;
	struct strvec subs = {0};
	struct cfg c = {.g = g, .file = gm, .subs = &subs};
	gitcfg_parse(g->buf, len, cfg_item, &c);
	for (size_t i = 0; i < subs.n; i++) {
		char sub[4096], gf[4200], how[4400];
		if (join(wt, subs.v[i], sub, sizeof sub) || !path_within(sub, wt) || strcmp(sub, wt) == 0)
			continue;
		snprintf(gf, sizeof gf, "%s/.git", sub);
		snprintf(how, sizeof how, "submodule %.200s in %.3000s", subs.v[i], gm);
		protect(g, gf, "%s", how);
		char target[4096], abs[4096];
		if (first_line(g, gf, "gitdir: ", target, sizeof target) == 0 && join(sub, target, abs, sizeof abs) == 0)
			repo(g, abs, sub, how);
	}
	sv_free(&subs);
}

/* Repository with git dir `gd` (absolute) and work tree `wt` (NULL:
 * none known, or bare), found through `how`. */
static void repo(struct gscan *g, const char *gd, const char *wt, const char *how)
{
	char d[4096], common[4096], cd[4096], base[4096], where[4400];
	if (lexical(gd, d, sizeof d) || sv_has(&g->gitdirs, d))
		return;
	if (g->gitdirs.n >= GIT_REPOS_MAX) {
		g->repos_bound = true;
		return;
	}
	sv_push(&g->gitdirs, d);
	snprintf(where, sizeof where, "%s", how);
	gitdir_files(g, d, where);
	/* commondir (setup.c): the repository a linked worktree or a
	 * submodule's git dir shares, relative to the git dir */
	char cpath[4200];
	snprintf(cpath, sizeof cpath, "%s/commondir", d);
	if (first_line(g, cpath, "", cd, sizeof cd) == 0 && join(d, cd, common, sizeof common) == 0) {
		snprintf(where, sizeof where, "commondir of %.3000s", d);
		gitdir_files(g, common, where);
	} else {
		snprintf(common, sizeof common, "%s", d);
	}
	struct strvec hooks = {0}, hfrom = {0};
	struct cfg c = {.g = g, .hooks = &hooks, .hfrom = &hfrom};
	char f[4200];
	snprintf(f, sizeof f, "%s/config", common);
	config_read(g, f, 0, &c);
	snprintf(f, sizeof f, "%s/config.worktree", d);
	config_read(g, f, 0, &c);
	/* hooks run in the work tree (core.worktree is relative to the git
	 * dir), or in the git dir of a bare repository (githooks(5)) */
	if (c.worktree[0] && join(d, c.worktree, base, sizeof base) == 0)
		wt = base;
	hooks_protect(g, &hooks, &hfrom, wt && !c.bare ? wt : d);
	hooks_protect(g, &g->ghooks, &g->ghfrom, wt && !c.bare ? wt : d);
	sv_free(&hooks);
	sv_free(&hfrom);
	snprintf(f, sizeof f, "%s/worktrees", common);
	struct wtlist w = {g, f};
	g->fc->fs->list(g->fc->fs->ctx, f, worktree_entry, &w);
	if (wt && !c.bare) {
		snprintf(f, sizeof f, "%s/.gitmodules", strcmp(wt, "/") ? wt : "");
		protect(g, f, "repository %s", wt);
		submodules(g, wt);
	}
}

/* A ".git" entry of kind `k` in directory `dir`: a git dir, or a gitfile
 * ("gitdir: X", X relative to `dir`: linked worktrees, submodules). */
static void dotgit(struct gscan *g, const char *dir, enum fs_kind k)
{
	char gf[4200], target[4096], abs[4096], how[4400];
	snprintf(gf, sizeof gf, "%s/.git", strcmp(dir, "/") ? dir : "");
	snprintf(how, sizeof how, "repository %.4000s", dir);
	if (k == FS_DIR) {
		repo(g, gf, dir, how);
	} else if (k == FS_FILE) {
		protect(g, gf, "gitfile of %s", dir);
		if (first_line(g, gf, "gitdir: ", target, sizeof target) == 0 && join(dir, target, abs, sizeof abs) == 0)
			repo(g, abs, dir, how);
	}
}

/* One directory's listing, as the walk needs it. */
struct seen {
	enum fs_kind dotgit;      /* kind of its ".git", FS_MISSING if none */
	bool head, objects, refs; /* a bare repository's entries */
	struct strvec subdirs;
};

static int seen_entry(void *arg, const char *name, enum fs_kind kind)
{
	struct seen *s = arg;
	if (strcmp(name, ".git") == 0)
		s->dotgit = kind;
	else if (strcmp(name, "HEAD") == 0)
		s->head = kind == FS_FILE;
	else if (strcmp(name, "objects") == 0)
		s->objects = kind == FS_DIR;
	else if (strcmp(name, "refs") == 0)
		s->refs = kind == FS_DIR;
	/* node_modules: thousands of directories and no repositories (npm
	 * strips .git from git dependencies) */
	if (kind == FS_DIR && strcmp(name, ".git") != 0 && strcmp(name, "node_modules") != 0)
		sv_push(&s->subdirs, name);
	return 0;
}

/* Breadth first below writable tree `tree`, GIT_WALK_DEPTH levels and
 * GIT_WALK_DIRS listings at most (a workspace holding repositories, a
 * repository holding submodules or nested checkouts). */
static void walk(struct gscan *g, const char *tree)
{
	struct strvec q = {0};
	size_t depth_end = 1, depth = 0;
	sv_push(&q, tree);
	g->walked = 0;
	for (size_t i = 0; i < q.n; i++) {
		if (i == depth_end) {
			depth++;
			depth_end = q.n;
		}
		if (g->walked >= GIT_WALK_DIRS) {
			sv_push_own(&g->fc->pl->remarks, xasprintf("the search for repositories in %s stopped after %d directories (%zu levels down): repositories deeper are protected only when listed in protect_extra",
								   tree, GIT_WALK_DIRS, depth));
			break;
		}
		g->walked++;
		struct seen s = {FS_MISSING, false, false, false, {0}};
		if (g->fc->fs->list(g->fc->fs->ctx, q.v[i], seen_entry, &s) == 0) {
			if (s.dotgit != FS_MISSING)
				dotgit(g, q.v[i], s.dotgit);
			if (s.head && s.objects && s.refs) {
				char how[4200];
				snprintf(how, sizeof how, "bare repository %s", q.v[i]);
				repo(g, q.v[i], NULL, how);
			} else if (depth < GIT_WALK_DEPTH) {
				for (size_t j = 0; j < s.subdirs.n; j++)
					sv_push_own(&q, xasprintf("%s/%s", strcmp(q.v[i], "/") ? q.v[i] : "", s.subdirs.v[j]));
			}
		}
		sv_free(&s.subdirs);
	}
	sv_free(&q);
}

/* The repositories writable tree `tree` lies in: a ".git" at a strict
 * ancestor (git's discovery walks up), or a git dir on its own path
 * (the tree is R/.git, or inside it: R/.git/worktrees/NAME). */
static void ancestors(struct gscan *g, const char *tree)
{
	char a[4096];
	snprintf(a, sizeof a, "%s", tree);
	for (;;) {
		const char *base = strrchr(a, '/');
		if (base && strcmp(base, "/.git") == 0) {
			char wt[4096];
			dirname_of(a, wt, sizeof wt);
			char how[4200];
			snprintf(how, sizeof how, "repository %s", wt);
			repo(g, a, wt, how);
		}
		if (strcmp(a, "/") == 0)
			break;
		dirname_of(a, a, sizeof a);
		char gp[4200];
		enum fs_kind k;
		snprintf(gp, sizeof gp, "%s/.git", strcmp(a, "/") ? a : "");
		if (g->fc->fs->lkind(g->fc->fs->ctx, gp, &k) == 0 && k != FS_MISSING)
			dotgit(g, a, k);
	}
}

/* Relative to a home directory: files that run code, or choose what code
 * runs, the next time the user logs in, opens a shell or runs a tool
 * outside the sandbox.  Chosen from what each program executes from its
 * configuration (and the seeds' lists of credentials and exec config):
 * ssh (ProxyCommand, LocalCommand, Match exec; authorized_keys command=;
 * rc), git (aliases, core.fsmonitor, sshCommand, pager, editor,
 * credential helpers, hooksPath), every login and interactive shell and
 * the X/systemd session, the cluster and cloud CLIs (kubectl exec
 * plugins, docker credential helpers, aws credential_process, gcloud and
 * az configuration and extensions), package managers and build tools
 * (npm/yarn scripts and registries, pip indexes, cargo rustc-wrapper and
 * runner, gradle init scripts, maven settings), editors and terminal
 * multiplexers that run their rc files, session autostart, and agents'
 * own settings (hooks).  PATH directories (~/.local/bin, ~/bin,
 * ~/.cargo/bin) and language user sites are deliberately not listed:
 * programs install into them as ordinary work (pip --user, pipx, cargo
 * install, npm prefix), so a writable home keeps them writable and
 * --check remarks it (README "Known limits"). */
static const char *const home_names[] = {
	".ssh/", ".gitconfig", ".config/git/", ".git-credentials",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout", ".config/fish/",
	".oh-my-zsh/", ".zprezto/", ".config/environment.d/", ".pam_environment",
	".xprofile", ".xsessionrc", ".xinitrc", ".xsession",
	".kube/config", ".docker/config.json", ".aws/config",
	".config/gcloud/configurations/", ".azure/config", ".azure/cliextensions/",
	".config/gh/config.yml",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".config/pip/", ".pip/",
	".cargo/config.toml", ".cargo/config", ".gradle/init.d/", ".gradle/init.gradle",
	".gradle/gradle.properties", ".m2/settings.xml",
	".config/systemd/user/", ".config/autostart/", ".local/share/applications/",
	".vimrc", ".vim/", ".config/nvim/", ".emacs", ".emacs.d/", ".tmux.conf",
	".config/tmux/", ".config/direnv/", ".gnupg/gpg-agent.conf", ".gnupg/gpg.conf",
	".claude/settings.json", ".codex/config.toml",
	NULL};

static int name_entry(void *arg, const char *name, enum fs_kind kind)
{
	(void)kind;
	sv_push(arg, name);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each home's names: protected as written, and where they resolve when
 * they exist.  The home is listed once, and a name whose first
 * component is not in it is not resolved (it cannot exist): one
 * getdents instead of about 57 failing opens, most of the names being
 * absent on any one machine.  An unlistable home is probed name by
 * name, as before. */
static void home_files(struct gscan *g)
{
	for (size_t h = 0; h < g->homes.n; h++) {
		const char *home = g->homes.v[h], *rel;
		struct strvec present = {0};
		bool listed = g->fc->fs->list(g->fc->fs->ctx, home, name_entry, &present) == 0;
		if (listed && present.n)
			qsort(present.v, present.n, sizeof *present.v, str_cmp);
		for (size_t i = 0; home_names[i]; i++) {
			char p[8400], first[256], norm[4096], canon[4096], where[512];
			const char *name = home_names[i], *slash = strchr(name, '/');
			size_t fl = slash ? (size_t)(slash - name) : strlen(name);
			snprintf(first, sizeof first, "%.*s", (int)fl, name);
			const char *key = first;
			bool exists = !listed ||
				(present.n && bsearch(&key, present.v, present.n, sizeof *present.v, str_cmp));
			snprintf(p, sizeof p, "%s/%s", strcmp(home, "/") ? home : "", name);
			snprintf(where, sizeof where, ".protect ($HOME file ~/%s of %.400s)", name, home);
			enum fs_kind k;
			if (lexical(p, norm, sizeof norm) == 0)
				protect_one(g, norm, where);
			if (exists && g->fc->fs->resolve(g->fc->fs->ctx, p, canon, sizeof canon, &k) == 0)
				protect_one(g, canon, where);
		}
		sv_free(&present);
		bool held = false;
		for (size_t w = 0; w < g->fc->p->writable.v.n; w++)
			held |= g->fc->wcanon[w] && path_within(home, g->fc->wcanon[w]);
		if (held || fit_in_writable(g->fc, home, &rel))
			sv_push_own(&g->fc->pl->remarks, xasprintf("a writable tree holds the home %s: its PATH directories (~/.local/bin, ~/bin, ~/.cargo/bin) and language user sites stay writable, and a program put there runs when you next call it; only the files that configure code (~/.ssh/, ~/.gitconfig, shell rc files, ...) are protected",
								   home));
	}
}

/* The homes whose files matter: the command's (what its programs write
 * to) and the shim's (the user's, whose next login runs them). */
static void homes(struct gscan *g)
{
	bool set;
	const char *hs[2] = {fit_command_home(g->fc, &set), g->fc->h->home};
	for (int i = 0; i < 2; i++) {
		char canon[4096], norm[4096];
		enum fs_kind k;
		if (!hs[i] || hs[i][0] != '/' || lexical(hs[i], norm, sizeof norm))
			continue;
		if (g->fc->fs->resolve(g->fc->fs->ctx, norm, canon, sizeof canon, &k) == 0 && k == FS_DIR)
			snprintf(norm, sizeof norm, "%s", canon);
		if (!sv_has(&g->homes, norm))
			sv_push(&g->homes, norm);
	}
}

void fit_git_routes(struct fitctx *fc)
{
	/* Every route ends in protect_one(), which carves only inside a
	 * writable tree: with none (the default profile: tmp and the views
	 * are fresh and private), there is nothing to look for, and the
	 * start-up skips the home and git configuration probes. */
	bool any = false;
	for (size_t i = 0; i < fc->p->writable.v.n; i++)
		any |= fc->wcanon[i] != NULL;
	if (!any)
		return;
	struct gscan g = {.fc = fc};
	g.buf = xmalloc(GIT_READ_MAX);
	homes(&g);
	/* the global and system configuration: includes, and a hooksPath
	 * that applies to every repository (relative: to each work tree) */
	struct cfg c = {.g = &g, .hooks = &g.ghooks, .hfrom = &g.ghfrom};
	for (size_t h = 0; h < g.homes.n; h++) {
		char f[4200];
		snprintf(f, sizeof f, "%s/.gitconfig", g.homes.v[h]);
		config_read(&g, f, 0, &c);
		snprintf(f, sizeof f, "%s/.config/git/config", g.homes.v[h]);
		config_read(&g, f, 0, &c);
	}
	config_read(&g, "/etc/gitconfig", 0, &c);
	for (size_t i = 0; i < fc->p->writable.v.n; i++)
		if (fc->wcanon[i]) {
			ancestors(&g, fc->wcanon[i]);
			walk(&g, fc->wcanon[i]);
		}
	home_files(&g);
	if (g.files_bound)
		sv_push_own(&fc->pl->remarks, xasprintf("more than %d git configuration files: the rest were not followed", GIT_FILES_MAX));
	if (g.repos_bound)
		sv_push_own(&fc->pl->remarks, xasprintf("more than %d repositories: the rest are protected only when listed in protect_extra", GIT_REPOS_MAX));
	free(g.buf);
	sv_free(&g.homes);
	sv_free(&g.gitdirs);
	sv_free(&g.files);
	sv_free(&g.ghooks);
	sv_free(&g.ghfrom);
}

/* __sandbox: read a profile, confine this process, become COMMAND.
 *
 *   argv ─► load profile text ─► parse ─► probe host ─► fit ─► plan
 *        ─► apply layers (fixed order, below) ─► execve
 *
 * Only this file prints diagnostics and chooses exit codes: 125 before
 * exec, 126 found but not executable, 127 not found (env(1)). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "shim.h"
#include "versions.h"

#define PROFILE_MAX (16u << 20) /* 16 MiB: far beyond any real profile */

static int fail(const struct sb_err *e)
{
	char buf[2048];
	sb_err_line(e, buf, sizeof buf);
	sb_say("%s", buf);
	return 125;
}

static void usage(FILE *f)
{
	fputs("usage: __sandbox PROFILE -- COMMAND [ARG...]\n"
	      "       __sandbox --check PROFILE     print the plan as JSON, run nothing\n"
	      "       __sandbox --probe             print what this host can enforce\n"
	      "       __sandbox --help | --version\n"
	      "PROFILE is inline JSON ({...}), @PATH (a file) or fd:N (read to EOF, then closed).\n"
	      "Exit status: the command's own; 125 the sandbox failed before exec;\n"
	      "126 the command could not be executed; 127 it was not found.\n"
	      "Every profile key, the --probe and --check output and examples: man __sandbox\n"
	      "(doc/__sandbox.1 in the source tree); JSON Schema: policy/profile.schema.json.\n", f);
}

static int version(void)
{
	const struct scmp_version *v = seccomp_version();
	printf("__sandbox %s\n", SB_VERSION);
	printf("libseccomp %s (runtime %u.%u.%u)\n", DEP_LIBSECCOMP_VERSION,
	       v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
	printf("libcap-ng %s\n", DEP_LIBCAPNG_VERSION);
	printf("jansson %s (runtime %s)\n", DEP_JANSSON_VERSION, jansson_version_str());
	printf("musl %s\n", DEP_MUSL_VERSION);
	return fflush(stdout) == 0 ? 0 : 125;
}

/* The whole profile from `fd` (what: the PROFILE argument, for messages). */
static int read_profile(int fd, const char *what, char **text, size_t *len,
			struct sb_err *err)
{
	int rc = read_fd_all(fd, PROFILE_MAX, text, len);
	if (rc == -EFBIG)
		return sb_fail(err, NULL, NULL, "profile %s is larger than %u bytes", what, PROFILE_MAX);
	if (rc < 0)
		return sb_fail(err, NULL, NULL, "reading profile %s: %s", what, strerror(-rc));
	return 0;
}

/* PROFILE argument → text (malloc'd). */
static int load_profile(const char *arg, char **text, size_t *len, struct sb_err *err)
{
	const char *s = arg;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '{') {
		*len = strlen(arg);
		*text = xstrdup(arg);
		return 0;
	}
	if (arg[0] == '@') {
		int fd = open(arg + 1, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return sb_fail(err, NULL, arg + 1, "cannot open profile: %s", strerror(errno));
		int rc = read_profile(fd, arg, text, len, err);
		close(fd);
		return rc;
	}
	if (strncmp(arg, "fd:", 3) == 0) {
		char *end;
		errno = 0;
		long fd = strtol(arg + 3, &end, 10);
		if (errno || end == arg + 3 || *end || fd < 0 || fd > 0x7fffffff)
			return sb_fail(err, NULL, NULL, "profile \"%s\": fd:N needs a descriptor number", arg);
		int rc = read_profile((int)fd, arg, text, len, err);
		/* closed so the command does not inherit it; stdio stays
		 * open (on /dev/null), or the next descriptor the shim opens
		 * would become the command's stdin */
		close((int)fd);
		if (fd <= 2) {
			int nul = open("/dev/null", O_RDWR);
			if (nul >= 0 && nul != fd) {
				dup2(nul, (int)fd);
				close(nul);
			}
		}
		return rc;
	}
	return sb_fail(err, NULL, NULL, "profile must be inline JSON ({...}), @PATH or fd:N; got \"%.40s\"", arg);
}

/* Load, parse, probe and fit (through `fs`).  Returns fit()'s answer: 0; 1 with the
 * plan kept (parts refused: --check still prints it); -1 with nothing
 * left to free. */
static int load_and_fit(const char *arg, bool check, struct profile *prof,
			struct host *h, struct fs_cache *cache, struct plan *pl,
			struct run *ahead, struct sb_err *err)
{
	char *text;
	size_t len;
	if (load_profile(arg, &text, &len, err))
		return -1;
	int rc = profile_parse_text(text, len, prof, err); /* (frees text) */
	if (rc)
		return -1;
	/* before the probe opens anything: a kept number must be the
	 * caller's own descriptor, never one the shim opened meanwhile */
	if (!check && proc_fds_check(prof, err)) {
		profile_free(prof);
		return -1;
	}
	probe_host(h, check);
	/* a network namespace takes the kernel ~0.4 ms: made beside fit() */
	if (ahead)
		ns_ahead_start(ahead, prof);
	rc = user_resolve(prof, h, err) ? -1 : fit_cached(prof, h, cache, pl, err);
	if (rc == 1 && !check && pl->mount_ns) {
		/* A run assumes namespaces without trying them; before refusing,
		 * find out for real, so the one refusal names every part this
		 * host cannot enforce, those a missing namespace adds too. */
		plan_free(pl);
		probe_host(h, true);
		rc = fit_cached(prof, h, cache, pl, err);
		if (rc == 0) {
			/* (cannot happen: a namespace only ever closes gaps) */
			plan_free(pl);
			rc = sb_fail(err, NULL, NULL, "the plan changed when the host was probed again; run it once more");
		}
	}
	if (rc < 0)
		profile_free(prof);
	return rc;
}

/* unshare() or the first mount refused (nothing changed): plan again
 * without namespaces — expansion for carve-outs, or a refusal.  0 or -1
 * with `err`. */
static int replan(struct run *r, struct plan *pl, struct sb_err *err)
{
	r->host.mounts = false;
	r->host.mounts_errno = r->ns_errno;
	snprintf(r->host.mounts_why, sizeof r->host.mounts_why, "%s", r->ns_why);
	plan_free(pl);
	return fit_cached(r->prof, &r->host, &r->cache, pl, err) ? -1 : 0;
}

/* The plan's notices, then one line for every part left out. */
static void say_notices(const struct plan *pl)
{
	char line[1800];
	for (size_t k = 0; k < pl->notices.n; k++)
		sb_say("notice: %s", pl->notices.v[k]);
	plan_left_line(pl, line, sizeof line);
	if (line[0])
		sb_say("notice: %s", line);
}

int main(int argc, char **argv)
{
	struct sb_err err = {{0}, {0}, {0}};
	struct run r = {0};
	r.denials_sock = -1;
	r.watch_execd = -1;
	struct profile prof;
	struct plan plan;
	r.parent = getppid();
	/* jansson's hash seed (against collisions chosen in a profile) from
	 * the 16 random bytes the kernel gives every exec (AT_RANDOM; musl's
	 * stack canary takes the first 8), not from opening /dev/urandom */
	const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
	if (rnd) {
		size_t seed;
		memcpy(&seed, rnd + 8, sizeof seed);
		json_object_seed(seed | 1);
	}
	/* the argument strings as the kernel laid them out (contiguous, in
	 * order), for the watcher to blank (shim/life.c) */
	if (argc > 0) {
		size_t end = strlen(argv[argc - 1]) + 1;
		bool contiguous = true;
		for (int k = 1; k < argc; k++)
			contiguous = contiguous && argv[k] == argv[k - 1] + strlen(argv[k - 1]) + 1;
		if (contiguous) {
			r.args = argv[0];
			r.args_len = (size_t)(argv[argc - 1] - argv[0]) + end;
		}
	}
	int i = 1;
	/* drop-in for helpers invoked as `helper __sandbox <profile> -- argv` */
	if (i < argc && strcmp(argv[i], "__sandbox") == 0)
		i++;
	if (i >= argc) {
		sb_say("usage: __sandbox PROFILE -- COMMAND [ARG...] (see --help)");
		return 125;
	}
	if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
		usage(stdout);
		return fflush(stdout) == 0 ? 0 : 125;
	}
	if (strcmp(argv[i], "--version") == 0)
		return version();
	if (strcmp(argv[i], "--probe") == 0) {
		probe_host(&r.host, true);
		return probe_print(&r.host);
	}
	if (strcmp(argv[i], "--check") == 0) {
		if (i + 2 != argc) {
			sb_say("usage: __sandbox --check PROFILE");
			return 125;
		}
		struct fs_cache cache;
		fs_cache_view(&cache, &fsview_real);
		int rc = load_and_fit(argv[i + 1], true, &prof, &r.host, &cache, &plan, NULL, &err);
		fs_cache_free(&cache);
		if (rc < 0)
			return fail(&err);
		/* a refused profile still shows its plan, refused parts included */
		char *js = plan_json(&plan);
		puts(js);
		free(js);
		if (fflush(stdout) != 0)
			return 125;
		return rc ? fail(&err) : 0;
	}
	if (argv[i][0] == '-' && argv[i][1] == '-') {
		sb_say("unknown option \"%s\" (see --help)", argv[i]);
		return 125;
	}
	if (i + 1 >= argc || strcmp(argv[i + 1], "--") != 0) {
		sb_say("usage: __sandbox PROFILE -- COMMAND [ARG...] (missing \"--\" after PROFILE)");
		return 125;
	}
	if (i + 2 >= argc) {
		sb_say("usage: __sandbox PROFILE -- COMMAND [ARG...] (no COMMAND after \"--\")");
		return 125;
	}
	/* a run keeps the descriptors fit() resolved paths with, for the
	 * Landlock rules on them (released by landlock_prepare) */
	r.fsview = fsview_keeping(&r.fsr);
	fs_cache_view(&r.cache, &r.fsview);
	if (load_and_fit(argv[i], false, &prof, &r.host, &r.cache, &plan, &r, &err))
		return fail(&err); /* (exits: nothing to free) */
	r.prof = &prof;
	r.plan = &plan;
	r.argv = &argv[i + 2];
	/* tmp exists before the namespaces are made, so a view of /tmp can
	 * bring it back and Landlock can open it. */
	if (proc_tmp_prepare(&r, &err))
		return fail(&err);
	/* The working directory survives unshare() pointing into the old
	 * tree: after the mounts it is entered again by name, so a mask,
	 * a read-only bind or a view over it is not bypassed through ".".
	 * (probe_host read it: host.cwd, "" when unknown.) */
	const char *cwd = r.host.cwd;
	int ns = ns_enter(&r, &err);
	if (ns < 0)
		return fail(&err);
	/* (planned once more without namespaces now, not again below) */
	bool replanned = ns > 0;
	if (replanned && replan(&r, &plan, &err))
		return fail(&err);
	/* no_survivors: the shim stays outside as the supervisor and goes
	 * on below in a child — the PID namespace's init, or the command
	 * under a subreaper (shim/life.c); nothing else forks the init */
	if (life_split(&r, &err))
		return fail(&err);
	/* a fresh /proc first, so the plan's mounts under it land on it */
	if (ns == 0 && r.life == LIFE_PIDNS && ns_proc(&err))
		return fail(&err);
	if (ns == 0)
		ns = ns_mounts(&r, &err);
	if (ns == 0 && plan.mount_ns && !prof.cwd) {
		/* (open_path: not through a symlink swapped in inside a
		 * writable tree since the start) */
		char link[4096] = "";
		int fd = cwd[0] ? open_path(&plan.trees, cwd, O_DIRECTORY, link, sizeof link) : -ENOENT;
		if (fd == -ELOOP && link[0]) {
			sb_fail(&err, NULL, cwd, "the working directory: the symlink %s inside a writable tree appeared since the start (a concurrent process swapping it in?); refusing to follow it", link);
			return fail(&err);
		}
		if (fd < 0 || fchdir(fd) < 0) {
			sb_say("notice: the working directory \"%s\" is not visible inside the sandbox; starting in /",
			       cwd[0] ? cwd : "(unknown)");
			if (chdir("/") < 0)
				return fail(&(struct sb_err){"", "/", "chdir failed"});
		}
		if (fd >= 0)
			close(fd);
	}
	if (ns < 0)
		return fail(&err);
	if (ns > 0 && !replanned && replan(&r, &plan, &err))
		return fail(&err);
	/* the plan is final: its answers are no longer needed (the kept
	 * descriptors stay with r.fsr, for the rules) */
	fs_cache_free(&r.cache);
	say_notices(&plan);

	/* Order of application (DESIGN.md "Pipeline"), and why:
	 *  0. (above) tmp, then the namespaces: user (when not root), mount,
	 *     network — a refused unshare still lets the plan change;
	 *  1. the mounts (placeholders, carve-outs, views), then every rule
	 *     path opened (O_PATH) in the final mount tree, and the seccomp
	 *     filter compiled: everything that can fail on input fails
	 *     before anything that confines; then the denial report's
	 *     listener forked (when asked for), before every layer below,
	 *     so none of them applies to it;
	 *  2. rlimits, the user switch (`user`: after the mounts, which need
	 *     root; permitted capabilities kept for 3), env, session and
	 *     parent death (after the uid change, which clears PDEATHSIG),
	 *     inherited descriptors, cwd (as the final user);
	 *  3. capabilities dropped — the bounding set and securebits need
	 *     CAP_SETPCAP, so before no_new_privs locks things down;
	 *  4. no_new_privs (in caps_apply): required by restrict_self;
	 *  5. Landlock restrict_self;
	 *  6. seccomp last, so none of the setup above runs under it; the
	 *     filter allows the final execve;
	 *  7. execve: PATH lookup on the final environment (under a PID
	 *     namespace forked from its init, which stays, confined). */
	if (landlock_prepare(&r, &err) ||
	    seccomp_prepare(&r, &err) || denials_start(&r, &err) || proc_rlimits(&r, &err) ||
	    user_switch(&r, &err) || proc_env(&r, &err) ||
	    proc_session(&r, &err) || proc_fds(&r, &err) ||
	    proc_cwd(&r, &err) || caps_apply(&r, &err) || life_watch_reap(&r, &err) ||
	    landlock_apply(&r, &err) || seccomp_apply(&r, &err) ||
	    life_exec(&r, &err))
		return fail(&err);
	int code = exec_command(&r, &err);
	fail(&err);
	return code;
}

/* The shim's pipeline state and one entry point per layer (DESIGN.md
 * "Pipeline").  Each layer returns 0, or -1 with `err` filled; only main()
 * prints and exits. */
#ifndef SB_SHIM_H
#define SB_SHIM_H

#include <stdbool.h>
#include <sys/types.h>

#include "../policy/fit.h"
#include "../policy/fsview.h"
#include "../policy/plan.h"
#include "../policy/profile.h"
#include "../policy/util.h"

#define SB_VERSION "0.1.0"

/* Everything the layers share, owned by main(); no globals. */
struct run {
	const struct profile *prof;
	struct plan *plan;
	struct host host;
	pid_t parent;          /* getppid() at start: the parent to die with */
	int ruleset_fd;        /* Landlock ruleset, -1 until built */
	void *seccomp_ctx;     /* struct sock_fprog ready to load (shim/seccomp.c), NULL until built */
	struct strvec env;     /* the command's final environment */
	char *const *argv;     /* the command and its arguments (borrowed) */
	int ns_errno;          /* why unshare() failed, when ns_enter() returned 1 */
};

/* shim/fsview.c: the real, read-only filesystem view for fit(). */
extern const struct fs_view fsview_real;

/* shim/probe.c: what this host can enforce.  Never fails. */
/* `tries`: also try the namespaces in short-lived children (--probe,
 * --check: exact answers); a run skips that and tries unshare itself. */
void probe_host(struct host *h, bool tries);
/* Print --probe JSON on stdout. */
int probe_print(const struct host *h);

/* shim/proc.c */
int proc_tmp_prepare(struct run *r, struct sb_err *err);
int proc_rlimits(struct run *r, struct sb_err *err);
int proc_env(struct run *r, struct sb_err *err);
int proc_session(struct run *r, struct sb_err *err);
int proc_fds(struct run *r, struct sb_err *err);
int proc_cwd(struct run *r, struct sb_err *err);

/* shim/ns.c: unshare (mount, network; user when not root).  Returns 0,
 * -1 with `err` after a failure that left the namespaces half made, or 1
 * when unshare itself failed (nothing changed; errno in r->ns_errno). */
int ns_enter(struct run *r, struct sb_err *err);
/* Placeholders, then every mount rule of the plan, in plan order.
 * Returns 0, -1 with `err`, or 1 when the first mount failed (nothing
 * mounted; errno in r->ns_errno) so the caller may plan without. */
int ns_mounts(struct run *r, struct sb_err *err);

/* shim/user.c: `user` (container entrypoints).  user_resolve() checks the
 * shim runs as root and fills p->user's uid, gid and groups from the
 * image's /etc/passwd and /etc/group (no NSS); it changes nothing, so
 * --check runs it too.  user_switch() sets groups, gid and uid, keeping
 * the permitted capabilities for caps_apply(). */
int user_resolve(struct profile *p, const struct host *h, struct sb_err *err);
int user_switch(struct run *r, struct sb_err *err);

/* shim/landlock.c */
int landlock_prepare(struct run *r, struct sb_err *err);
int landlock_apply(struct run *r, struct sb_err *err);

/* shim/seccomp.c */
int seccomp_prepare(struct run *r, struct sb_err *err);
int seccomp_apply(struct run *r, struct sb_err *err);

/* shim/caps.c: drop capabilities, lock securebits, set no_new_privs. */
int caps_apply(struct run *r, struct sb_err *err);

/* shim/exec.c: PATH lookup on the final env and execve().  Returns only on
 * failure, with the exit status to use (126 or 127) and `err` filled. */
int exec_command(struct run *r, struct sb_err *err);

/* One diagnostic line on stderr: "__sandbox: <msg>". */
void sb_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

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
	int *rule_fds;         /* O_PATH fd per plan rule, -1 if skipped */
	int ruleset_fd;        /* Landlock ruleset, -1 until built */
	void *seccomp_ctx;     /* libseccomp scmp_filter_ctx, NULL until built */
	struct strvec env;     /* the command's final environment */
	char *const *argv;     /* the command and its arguments (borrowed) */
};

/* shim/fsview.c: the real, read-only filesystem view for fit(). */
extern const struct fs_view fsview_real;

/* shim/probe.c: what this host can enforce.  Never fails. */
void probe_host(struct host *h);
/* Print --probe JSON on stdout. */
int probe_print(const struct host *h);

/* shim/proc.c */
int proc_tmp_prepare(struct run *r, struct sb_err *err);
int proc_rlimits(struct run *r, struct sb_err *err);
int proc_env(struct run *r, struct sb_err *err);
int proc_session(struct run *r, struct sb_err *err);
int proc_fds(struct run *r, struct sb_err *err);
int proc_cwd(struct run *r, struct sb_err *err);

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

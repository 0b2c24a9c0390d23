/* The shim's pipeline state and one entry point per layer (DESIGN.md
 * "Pipeline").  Each layer returns 0, or -1 with `err` filled; only main()
 * prints and exits. */
#ifndef SB_SHIM_H
#define SB_SHIM_H

#include <signal.h>
#include <stdbool.h>
#include <linux/filter.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../policy/fit.h"
#include "../policy/fscache.h"
#include "../policy/fsview.h"
#include "../policy/plan.h"
#include "../policy/profile.h"
#include "../policy/util.h"

#define SB_VERSION "0.1.0"

/* The real view for a run: each path resolve() proves canonical (one
 * openat2 with RESOLVE_NO_SYMLINKS) keeps its O_PATH descriptor
 * (close-on-exec); the view's kept() hands it to fit(), which puts it in
 * the plan's rule on that path (ll_path_rule.fd), so landlock_prepare()
 * adds the rule with it instead of looking the path up again — one or
 * two system calls to resolve, one for the rule, the closes batched
 * (fsview_release).  No table of paths: a profile of 10,000 paths would
 * hold each once more.  Descriptors are kept while RLIMIT_NOFILE has
 * room above a reserve of 256; the soft limit is raised toward the hard
 * one for that and put back by fsview_release().  Owned by main()
 * (struct run); everything in it is released by fsview_release(). */
struct fs_real {
	int *fds;               /* the kept descriptors */
	size_t nkept;
	int last;               /* kept(): the last resolve()'s, -1: none */
	bool limit_known, raised;
	struct rlimit limit0;   /* RLIMIT_NOFILE at the first kept descriptor */
	rlim_t limit;           /* the soft limit now */
};
/* Which process the shim becomes (shim/life.c): the command itself
 * (the default), or, for no_survivors, a supervisor outside with the
 * sandbox below — a PID namespace's init and the command as pid 2, or
 * the command under a subreaper. */
enum life_mode { LIFE_EXEC, LIFE_PIDNS, LIFE_SUBREAPER };

/* Everything the layers share, owned by main(); no globals. */
/* A network namespace (in a user namespace when not root) made by a
 * helper beside the planning, for ns_enter() to join (shim/ns.c). */
struct ns_ahead {
	pid_t pid;    /* the helper, 0: none */
	int pidfd;    /* its pidfd, to join its namespaces (setns, Linux 5.8) */
	int ready;    /* read end: the helper's unshare() answer (0 or -errno) */
	int hold;     /* write end, close-on-exec: the helper exits at its EOF */
	bool userns;  /* a user namespace too (not root) */
	char *map;    /* the helper's stack (16 KiB), unmapped once it is reaped */
};

struct run {
	const struct profile *prof;
	struct plan *plan;
	struct host host;
	pid_t parent;          /* getppid() at start: the parent to die with */
	int ruleset_fd;        /* Landlock ruleset, -1 until built */
	void *seccomp_ctx;     /* struct sock_fprog ready to load (shim/seccomp.c), NULL until built */
	struct strvec env;     /* the command's final environment */
	char *const *argv;     /* the command and its arguments (borrowed) */
	int denials_sock;      /* shim/denials.c: the socket to the listener, -1 without a report */
	struct sock_filter *denials_prog; /* the filter with USER_NOTIF for ERRNO (malloc'd), NULL without a report */
	int ns_errno;          /* why unshare() failed, when ns_enter() returned 1 */
	char ns_why[256];      /* the step that failed and why ("mount propagation: ..."), for messages */
	/* the `tmp` directory checked by proc_tmp_prepare(): each later
	 * open of it must find this very directory (a swap meanwhile is
	 * refused) */
	bool tmp_known;
	dev_t tmp_dev;
	ino_t tmp_ino;
	char *args;            /* the shim's own argument strings, contiguous (argv[0] to the last NUL), */
	size_t args_len;       /* cleared by the die_with_parent watcher so its command line names no profile; 0: unknown */
	struct ns_ahead ahead; /* ns_ahead_start() */
	pid_t watch_mid;       /* die_with_parent: the watcher's parent, to reap before confining (life_watch_reap); 0: none */
	int watch_execd;       /* ... and the write end of its pipe (close-on-exec), -1: none */
	enum life_mode life;   /* set by life_split() */
	int status_fd;         /* LIFE_PIDNS, below the supervisor: the pipe the init reports the command's wait status on; else -1 */
	pid_t supervisor;      /* below the supervisor: its pid (LIFE_SUBREAPER: the parent to check) */
	sigset_t sigmask;      /* below the supervisor: the signal mask at start, given back to the command */
	struct fs_real fsr;    /* descriptors fit() resolved paths with, kept for the Landlock rules */
	struct fs_view fsview; /* the real view, keeping them in fsr */
	/* fit()'s answers over fsview, kept until the plan is final: a plan
	 * made again (a refused namespace) asks the filesystem nothing
	 * twice and gets the same kept descriptors */
	struct fs_cache cache;
};

/* shim/fsview.c: the real, read-only filesystem view for fit(). */
extern const struct fs_view fsview_real;
/* Start an empty `s` and return the view that keeps descriptors in it. */
struct fs_view fsview_keeping(struct fs_real *s);
/* Close every kept descriptor — close_range(2) over each run of
 * consecutive numbers (Linux 5.9; close(2) each before) — put
 * RLIMIT_NOFILE back as it was, and free the table (s is zeroed: safe
 * twice).  Before anything forks a process that outlives the set-up (the
 * denial listener, the die_with_parent watcher): an O_PATH descriptor
 * pins its mount. */
void fsview_release(struct fs_real *s);
/* Close the n descriptors fd[] (any order, no duplicates), one
 * close_range (Linux 5.9; one close each before) per run of consecutive
 * numbers: what lies between two of them (an inherited descriptor) stays
 * open. */
void close_set(const int *fd, size_t n);

/* shim/probe.c: what this host can enforce.  Never fails. */
/* `tries`: also try the namespaces in short-lived children (--probe,
 * --check: exact answers); a run skips that and tries unshare itself. */
void probe_host(struct host *h, bool tries);
/* Print --probe JSON (doc/probe.schema.json) on stdout.  Returns the exit
 * status: 0, or 125 when the JSON cannot be built or stdout written. */
int probe_print(const struct host *h);
/* shim/probe.c, also for shim/ns.c: why a mount namespace could not be
 * had, for messages and --check, into buf[n] — the unshare() call that
 * failed, named with its CLONE_NEW* `flags`, or, with `propagation`, the
 * MS_PRIVATE step — and errno `e`'s text (EINVAL there: the root of a
 * chroot is not a mount point). */
void ns_describe(char *buf, size_t n, unsigned long flags, bool propagation, int e);

/* shim/proc.c: the process layer.  Each returns 0, or -1 with `err`
 * naming the profile key (and path) and the errno's text; none owns
 * anything but what it puts in `r`.  "Step N" below and for the other
 * layers: the numbers of main()'s ordering comment (DESIGN.md
 * "Pipeline"). */
/* Step 0, before the namespaces (so a view of /tmp can bring it back and
 * Landlock can open it): create `tmp` 0700 if missing — handed to the
 * `user` when that is set — then refuse it unless it is a real directory
 * (no symlink) owned by the command's uid and not world writable.  Its
 * parent is opened with open_path() and tmp made and checked relative to
 * it (mkdirat, O_NOFOLLOW, fstat), so a directory swapped for a symlink
 * inside a writable tree cannot send it elsewhere; its identity goes in
 * r->tmp_dev/tmp_ino for the later opens.  Errors name .tmp and the
 * path. */
int proc_tmp_prepare(struct run *r, struct sb_err *err);
/* Step 2, first: setrlimit() for each `rlimits` entry (values in the
 * resource's unit, UINT64_MAX unlimited).  Raising a hard limit needs
 * CAP_SYS_RESOURCE (EPERM).  Errors name .rlimits.NAME. */
int proc_rlimits(struct run *r, struct sb_err *err);
/* Step 2, after the user switch: build the command's environment into
 * r->env (owned by `r`, strings copied) from environ: clear + keep, then
 * unset, then TMPDIR/TMP/TEMP for `tmp`, then set.  Cannot fail (0). */
int proc_env(struct run *r, struct sb_err *err);
/* Step 2, after the user switch: setsid() for new_session (EPERM when
 * already a process group leader: TIOCNOTTY instead), then life_watch()
 * for die_with_parent (a uid change clears PDEATHSIG).  Errors name the
 * key. */
int proc_session(struct run *r, struct sb_err *err);
/* Right after the profile is parsed, before the shim opens a descriptor
 * of its own (so none can have a kept number): fails naming
 * .keep_fds[i] on a kept descriptor that is not open (fcntl F_GETFD:
 * EBADF).  Returns 0 or -1 with `err`. */
int proc_fds_check(const struct profile *p, struct sb_err *err);
/* Step 2: every inherited descriptor above 2 but `keep_fds` (found open
 * by proc_fds_check) marked close-on-exec (close_range(CLOSE_RANGE_CLOEXEC),
 * Linux 5.11; else a walk of /proc/self/fd), the kept ones cleared of it.
 * Fails when neither way is available (.keep_fds). */
int proc_fds(struct run *r, struct sb_err *err);
/* Step 2, last, as the final user: `cwd` when set, opened by
 * open_path() (no symlink inside a writable tree) and entered with
 * fchdir().  Errors name .cwd and the path (ENOENT, EACCES, a swapped-in
 * link...). */
int proc_cwd(struct run *r, struct sb_err *err);
/* Open `tmp` (path `t`, profile entry `where`) with open_path() and check
 * it is the directory proc_tmp_prepare() checked (st_dev, st_ino).
 * Returns the O_PATH descriptor or -1 with `err`. */
int proc_tmp_open(const struct run *r, const char *t, const char *where, int flags,
		  struct sb_err *err);

/* shim/life.c: who ends the sandbox (die_with_parent, no_survivors).
 * life_split(), right after ns_enter() and the plan made again if that
 * failed: without no_survivors nothing (r->life = LIFE_EXEC).  With it,
 * the shim forks once — after unshare(CLONE_NEWPID) the child is pid 1 of
 * the namespace (LIFE_PIDNS), else this process becomes a subreaper
 * (PR_SET_CHILD_SUBREAPER, LIFE_SUBREAPER) — and returns 0 in the child,
 * which goes on with the pipeline.  The parent never returns: it drops
 * its stdio (onto /dev/null) and every other descriptor, forwards
 * SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1/2, SIGWINCH and SIGCONT
 * unless the kernel sent them (SI_KERNEL: the terminal's, which reach
 * the command directly), kills the sandbox when the parent's pidfd
 * (pidfd_open, Linux 5.3) polls readable, and exits like the command: its
 * code, or death by its signal (core dumps off).  Signals stay blocked
 * in the child (r->sigmask holds the mask to give back).  Errors (-1 with
 * `err`) name .no_survivors or .die_with_parent: the parent already gone,
 * pipe, fork, prctl failures (errno's text). */
int life_split(struct run *r, struct sb_err *err);
/* Step 2, after the user switch (which clears PDEATHSIG).  LIFE_EXEC
 * with die_with_parent: a watcher process polling pidfds of the parent
 * and of the shim (double-forked: not the command's child; its own
 * session; stdio on /dev/null; seccomp-confined to poll,
 * pidfd_send_signal and exit) SIGKILLs the command when the parent
 * process — not the thread that spawned the shim — ends, and exits with
 * the command; where it cannot be had (no pidfd_open before Linux 5.3,
 * or refused by an outer seccomp profile; fork refused under a small
 * rlimits.nproc): PR_SET_PDEATHSIG(SIGKILL), which follows the spawning
 * thread.  Under a supervisor: PR_SET_PDEATHSIG on
 * it.  Both refuse when the watched process has already gone (the parent
 * seen at start, r->parent).  Returns 0 or -1 with `err`. */
int life_watch(struct run *r, struct sb_err *err);
/* After the capabilities are dropped, before Landlock and seccomp: reap
 * the shim's helpers (ns_ahead_reap, and the process that made the
 * watcher: life_watch does not wait for it, so
 * the watcher is made while the shim goes on), and fall back to
 * PR_SET_PDEATHSIG if it could not make one.  Returns 0 or -1 with
 * `err`. */
int life_watch_reap(struct run *r, struct sb_err *err);
/* Step 7, just before execve, confined: LIFE_PIDNS forks the command and
 * stays as the init (reaps orphans, passes on what the supervisor
 * forwards — sigqueue()d with a cookie, so a signal to the whole group
 * is not passed twice — and reports the command's wait status on
 * r->status_fd, then exits, which ends the namespace); never returns
 * there.  The command (and LIFE_SUBREAPER's child) gets the original
 * signal mask back.  Returns 0, or -1 with `err` when fork fails. */
int life_exec(struct run *r, struct sb_err *err);

/* shim/ns.c: when the profile will want a network namespace (network
 * "loopback", or "off" with scoped unix sockets, mounts not "off"), start
 * making it now in a helper sharing the shim's memory (CLONE_VM), so the
 * ~0.4 ms the kernel takes for one (setup_net) overlaps fit() instead of
 * adding to it.  Best effort: nothing made, or made in vain, changes
 * nothing but time (ns_enter makes its own then). */
void ns_ahead_start(struct run *r, const struct profile *p);
/* Reap the helper (before exec: it is the shim's child).  No error. */
void ns_ahead_reap(struct run *r);

/* shim/ns.c: unshare (mount, network; user when not root).  Returns 0,
 * -1 with `err` after a failure that left the namespaces half made, or 1
 * when unshare itself failed (nothing changed; errno in r->ns_errno). */
int ns_enter(struct run *r, struct sb_err *err);
/* Every mount rule of the plan, in plan order (nothing is created in the
 * user's tree: the sources are detached tmpfs and clones of existing
 * trees).  Returns 0, -1 with `err`, or 1 when the first mount failed
 * (nothing mounted; errno in r->ns_errno, the step in r->ns_why) so the
 * caller may plan without. */
int ns_mounts(struct run *r, struct sb_err *err);
/* In the PID namespace's init (LIFE_PIDNS), before ns_mounts() so the
 * plan's masks under /proc land on it: a fresh procfs on /proc (nosuid,
 * nodev, noexec, read-only: the flags a user namespace locks on the
 * host's must be repeated), so /proc lists only the sandbox's processes
 * and /proc/PID matches getpid().  The kernel refuses it (EPERM) where
 * the host's /proc is partly covered (fs/namespace.c
 * mount_too_revealing: container runtimes mask /proc entries).  Returns
 * 0 or -1 with `err` (.no_survivors, /proc). */
int ns_proc(struct sb_err *err);

/* shim/user.c: `user` (container entrypoints).  user_resolve(), before
 * fit: checks the shim runs as root with CAP_SETUID and CAP_SETGID and
 * fills p->user's uid, gid and groups (p owns them) from the image's
 * /etc/passwd and /etc/group (no NSS; a missing /etc/group means no
 * supplementary groups); it changes nothing, so --check runs it too.
 * Errors name .user / .user.name and the file (and line): unreadable
 * (the errno), malformed, no such user, a name listed twice.  Returns 0
 * or -1 with `err`. */
int user_resolve(struct profile *p, const struct host *h, struct sb_err *err);
/* Step 2, after rlimits and before env, session and caps: setgroups
 * (skipped when already exactly these: a user namespace with setgroups
 * "deny" refuses even that), setresgid, setresuid, each checked; the
 * permitted capabilities are kept (PR_SET_KEEPCAPS) and raised to
 * effective again for caps_apply().  EPERM / EINVAL (id not mapped in
 * this user namespace) are named.  Returns 0 or -1 with `err`. */
int user_switch(struct run *r, struct sb_err *err);

/* shim/landlock.c.  landlock_prepare(), step 1 (after the mounts, so
 * paths are opened in the final tree; nothing is irreversible yet):
 * create the ruleset (landlock_create_ruleset(2), attr size per ABI) into
 * r->ruleset_fd (owned by `r`, -1 without Landlock) and add every path
 * rule (rules on one path merged; with the descriptor fit() resolved the
 * path with when r->fsr kept one and no mount replaced the path since,
 * else opened O_PATH here) and port rule, then fsview_release(&r->fsr)
 * whatever the outcome.  A rule
 * path that cannot be opened is skipped with a notice, except the
 * workspace and tmp, which fail, as does a directory that became a file;
 * a kernel refusal fails naming the rule's profile entry (.writable[0],
 * .tcp_bind[2]) and the errno.  Returns 0 or -1 with `err`. */
int landlock_prepare(struct run *r, struct sb_err *err);
/* Step 5: landlock_restrict_self(2) with the prepared ruleset, then close
 * it.  Needs no_new_privs (caps_apply) or CAP_SYS_ADMIN; E2BIG after 16
 * nested layers.  Returns 0 (also when nothing was prepared) or -1 with
 * `err`. */
int landlock_apply(struct run *r, struct sb_err *err);

/* shim/seccomp.c.  seccomp_prepare(), step 1 (every input error before
 * anything irreversible): the plan's rules as a BPF program — embedded at
 * build time when the rules match byte for byte, else compiled by
 * libseccomp — into r->seccomp_ctx (a malloc'd struct sock_fprog, left
 * NULL without seccomp; never freed: execve ends the image).  Fails naming the rule libseccomp refused
 * (.seccomp.deny for the profile's own) or a program outside 1 to
 * BPF_MAXINSNS instructions.  Returns 0 or -1 with `err`. */
int seccomp_prepare(struct run *r, struct sb_err *err);
/* Step 6, last before execve, so none of the shim's own setup runs under
 * the filter: seccomp(SECCOMP_SET_MODE_FILTER) without flags (the shim is
 * single-threaded); the kernel requires no_new_privs (caps_apply) or
 * CAP_SYS_ADMIN.  Returns 0 or -1 with `err` (the errno's text). */
int seccomp_apply(struct run *r, struct sb_err *err);

/* shim/denials.c, the denial report (profile "denials"; plan->denials_fd
 * >= 0).  denials_start(), step 1 after seccomp_prepare(): checks the
 * descriptor is open for writing (EBADF, read-only: errors name
 * .denials.fd), makes r->denials_prog (the filter with every ERRNO return
 * a USER_NOTIF one) and forks the listener — detached twice over, outside
 * every later layer — connected by r->denials_sock (SOCK_SEQPACKET pair,
 * close-on-exec).  Returns 0 (also without a report) or -1 with `err`. */
int denials_start(struct run *r, struct sb_err *err);
/* Step 6, right after the filter was loaded with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER: send the listener descriptor `lfd`
 * (SCM_RIGHTS) and close it and the socket here, so the command holds
 * neither.  Fails (-1 with `err`) when the listener cannot take it: the
 * command would then see ENOSYS for every refused call. */
int denials_handoff(struct run *r, int lfd, struct sb_err *err);

/* shim/caps.c, steps 3 and 4, after the user switch and cwd: clear every
 * capability set but the plan's kept ones (libcap-ng; kept ones go
 * through the ambient set), shrink the bounding set and lock the
 * securebits (both need CAP_SETPCAP, so only when it is held), then set
 * no_new_privs (PR_SET_NO_NEW_PRIVS), which Landlock and seccomp need
 * next.  capabilities(7).  Returns 0 or -1 with `err` (.capabilities[i]
 * for a kept one libcap-ng refused; the errno's text otherwise). */
int caps_apply(struct run *r, struct sb_err *err);

/* shim/exec.c: PATH lookup on the final env and execve().  Returns only on
 * failure, with the exit status to use (126 or 127) and `err` filled. */
int exec_command(struct run *r, struct sb_err *err);

/* shim/resolve.c: open absolute `path` as an O_PATH|O_CLOEXEC descriptor
 * (plus `flags`: O_DIRECTORY, O_NOFOLLOW to get a final symlink itself)
 * without following a symlink that lies in a directory inside one of
 * `trees` (the plan's canonical writable trees: a sandboxed command could
 * have swapped it in since fit() looked); symlinks elsewhere are followed.
 * openat2(2) RESOLVE_NO_SYMLINKS for paths without any symlink (Linux
 * 5.6), else a component-by-component O_NOFOLLOW walk.  Returns the
 * descriptor (the caller closes it) or a negative errno: -ELOOP with the
 * link's path in link[n] for a link inside a tree (link[0] is 0 for any
 * other error). */
int open_path(const struct strvec *trees, const char *path, int flags,
	      char *link, size_t n);
/* Fill `err` for open_path()'s failure `e` on profile entry `where`,
 * naming the swapped-in link when there is one.  Returns -1. */
int open_path_fail(struct sb_err *err, const char *where, const char *path,
		   int e, const char *link);

/* shim/readall.c: read `fd` to end of file into a NUL-terminated buffer
 * (malloc'd, caller frees; *len bytes, NULs included).  Bounded: an input
 * of `max` bytes or more (max < SIZE_MAX) fails with -EFBIG, having kept at
 * most max + 1 bytes in memory.  Returns 0 or a negative errno (read(2)'s;
 * EINTR is retried).  Does not close `fd`. */
int read_fd_all(int fd, size_t max, char **out, size_t *len);

/* One diagnostic line on stderr: "__sandbox: <msg>", in one write(2) so
 * lines of concurrent processes do not interleave; control characters
 * (a newline in a profile path) become '?', and the line is cut at about
 * 2 KiB.  Errors writing are ignored: there is nowhere else to say. */
void sb_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

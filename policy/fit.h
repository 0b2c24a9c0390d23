/* fit: profile + host features (+ a read-only view of the filesystem) →
 * plan, or a refusal naming the part the host cannot enforce. */
#ifndef SB_FIT_H
#define SB_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "fsview.h"
#include "plan.h"
#include "profile.h"

/* What this host can enforce, filled by shim/probe.c (or by a test). */
struct host {
	int ll_abi;          /* Landlock ABI, 0 if unavailable */
	int ll_errno;        /* ENOSYS (not built in) or EOPNOTSUPP (disabled at boot) when ll_abi == 0 */
	uint32_t ll_errata;  /* LANDLOCK_CREATE_RULESET_ERRATA bitmask */
	bool seccomp;        /* SECCOMP_MODE_FILTER usable */
	int seccomp_errno;   /* why not, when !seccomp */
	bool seccomp_user_notif; /* SECCOMP_RET_USER_NOTIF available (Linux 5.0) */
	bool userns;         /* clone(CLONE_NEWUSER) works here */
	int userns_errno;    /* why not, when !userns */
	bool mounts_via_userns; /* no CAP_SYS_ADMIN: the mount namespace needs a user namespace */
	uint64_t cap_permitted; /* the shim's permitted capabilities, bit per CAP_* */
	bool mounts;         /* a mount (and, unprivileged, user) namespace may be made */
	int mounts_errno;    /* why not, when !mounts (0: not tried) */
	uint32_t persona;    /* current personality(2) value */
	char stdio_tty[3][64]; /* /dev/pts/N behind fds 0-2, "" if none */
	bool stdio_terminal;  /* one of fds 0-2 is the controlling terminal: /dev/tty is granted only then */
	char release[65];    /* uname -r, for messages */
	char mounts_why[256]; /* when !mounts: which step failed and why ("mount propagation: Invalid argument: ..."), "" if unknown */
	char home[1024];     /* $HOME of the shim's environment, "" if unset */
	char cwd[4096];      /* the working directory at start (getcwd), "" if unknown */
	bool pidns_made;     /* a run: the shim is already in its PID namespace (a plan
			      * made again after the first mount failed keeps it) */
};

/* Build the plan for `p` on host `h`.  Every path is resolved through `fs`;
 * explicitly listed paths that are missing or unreadable are skipped with
 * a notice, default ones silently (the workspace, writable[0], must
 * exist).  Returns 0 (the caller owns `pl`: plan_free; it borrows `p`);
 * 1 when parts the host cannot enforce are not allowed to be left out:
 * `pl` is kept, listing every one in pl->refused (for --check), and `err`
 * names them all with the JSON that would allow them; or -1 with `err`
 * on an error in the profile (pl freed). */
int fit(const struct profile *p, const struct host *h, const struct fs_view *fs,
	struct plan *pl, struct sb_err *err);
struct fs_cache;
/* fit() through `cache` (fs_cache_view() over the real view), which the
 * caller keeps: a plan made again with it (a refused namespace, a host
 * probed again) gets every answer of the first from memory, with the
 * same kept descriptors, and asks the filesystem nothing twice.  The
 * profile must outlive the cache (its paths are the cache's keys).  Same
 * returns as fit(). */
int fit_cached(const struct profile *p, const struct host *h, struct fs_cache *cache,
	       struct plan *pl, struct sb_err *err);

/* Whether fit() gives `p` a fresh network namespace where the host has
 * namespaces (pl->net_ns): network "loopback" (lo up), or "off" with
 * scoped unix sockets and mounts not "off" (abstract unix names are per
 * network namespace, so one bound inside — an impersonated X11 display —
 * cannot be reached from the host).  Also asked before fit() by the shim
 * (shim/ns.c ns_ahead_start), which starts making it early. */
bool fit_wants_net_ns(const struct profile *p);

/* Rights granted per profile list (Landlock names in DESIGN.md
 * "Filesystem"), before masking by ABI and file/dir kind. */
#define GRANT_READ   (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define GRANT_EXEC   (LL_FS_EXECUTE)
#define GRANT_DEVICE (LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV)
/* a directory listed in devices (/dev/pts, /dev/shm): its nodes, and for
 * /dev/shm creating and removing segments */
#define GRANT_DEVDIR (GRANT_DEVICE | LL_FS_READ_DIR | LL_FS_MAKE_REG | \
		      LL_FS_REMOVE_FILE | LL_FS_TRUNCATE)

/* Append the seccomp rules of the default filter adjusted by the profile
 * (policy/filter.c). `tcp_restricted`: Landlock narrows TCP ports, so
 * MPTCP/SCTP and MSG_FASTOPEN must be refused. */
void filter_build(const struct profile *p, const struct host *h,
		  bool tcp_restricted, struct plan *pl);

#include "landlock_abi.h"

#endif

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
	char release[65];    /* uname -r, for messages */
};

/* Build the plan for `p` on host `h`.  Every path is resolved through `fs`;
 * paths that are missing or unreadable are skipped with a notice (the
 * workspace, writable[0], must exist).  On a part the host cannot enforce
 * and the profile does not allow leaving out, returns -1 with `err` naming
 * the part, the reason and the key that would allow it.  On success the
 * caller owns `pl` (plan_free); it borrows `p`. */
int fit(const struct profile *p, const struct host *h, const struct fs_view *fs,
	struct plan *pl, struct sb_err *err);

/* Rights granted per profile list (Landlock names in DESIGN.md
 * "Filesystem"), before masking by ABI and file/dir kind. */
#define GRANT_READ   (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define GRANT_EXEC   (LL_FS_EXECUTE)
#define GRANT_DEVICE (LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV)
/* a directory listed in devices (/dev/pts, /dev/shm): its nodes, and for
 * /dev/shm creating and removing segments */
#define GRANT_DEVDIR (GRANT_DEVICE | LL_FS_READ_DIR | LL_FS_MAKE_REG | \
		      LL_FS_REMOVE_FILE | LL_FS_TRUNCATE)

/* Add the rules granting `access` on canonical `path` (of `kind`), going
 * around every path in `excluded` strictly inside it by sibling expansion
 * (DESIGN.md "Filesystem", expansion).  Lists directories through `fs`.
 * Returns 0, or -1 with `err` (listing failed: fail closed). */
int carve_grant(struct plan *pl, const struct fs_view *fs, const char *path,
		enum fs_kind kind, uint64_t access, const char *where,
		const struct strvec *excluded, struct sb_err *err);

/* Mount mode: the rules protecting `rel` (relative, no "..") inside
 * canonical writable tree `tree`: directories on the way pinned, the end
 * bound read-only (or masked when `hidden`), a missing name occupied, a
 * symlink on the way covered rather than followed.  lkind() only.
 * Returns 0, or -1 with `err`. */
int carve_mounts(struct plan *pl, const struct fs_view *fs, const char *tree,
		 const char *rel, bool hidden, bool want_dir, const char *where,
		 struct sb_err *err);
/* The first component of tree/rel that is not a directory (missing, a
 * file, a symlink — not followed), into cut[n] with its kind; the whole
 * path with FS_DIR when every component is one.  0 or -errno. */
int carve_cut(const struct fs_view *fs, const char *tree, const char *rel,
	      char *cut, size_t n, enum fs_kind *kind);
/* Add one mount rule; an existing rule on the same path is upgraded to
 * the stronger operation (copies strings). */
void plan_add_mount(struct plan *pl, enum mount_op op, const char *path,
		    const char *where, bool is_dir);
/* Order mount rules parents first and drop those under a mask. */
void carve_mounts_finish(struct plan *pl);

/* Append the seccomp rules of the default filter adjusted by the profile
 * (policy/filter.c). `tcp_restricted`: Landlock narrows TCP ports, so
 * MPTCP/SCTP and MSG_FASTOPEN must be refused. */
void filter_build(const struct profile *p, const struct host *h,
		  bool tcp_restricted, struct plan *pl);

/* Append one path rule (copies strings).  `access` is masked to the
 * rights a file may carry when !is_dir (LL_FS_FILE_RIGHTS: others make
 * add_rule fail with EINVAL) and to the plan's handled rights; a rule left
 * granting nothing is not added (landlock_add_rule refuses an empty mask
 * with ENOMSG). */
void plan_add_rule(struct plan *pl, const char *path, const char *where,
		   uint64_t access, bool is_dir);
/* Append one notice (printf format, cut at 1023 bytes): printed on stderr
 * before exec ("__sandbox: notice: ...") and listed by --check. */
void plan_notice(struct plan *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include "landlock_abi.h"

#endif

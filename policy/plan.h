/* The plan: everything the shim will install, decided by fit() from a
 * profile and a host, before the first irreversible syscall.  Rendered as
 * JSON by plan_json() for --check. */
#ifndef SB_PLAN_H
#define SB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "util.h"

/* One Landlock path rule (24 bytes: a profile of 10,000 paths makes
 * 10,000).  `path` is canonical (resolved): a copy in the plan's string
 * arena (plan->strs: never freed one by one), or a string of the profile
 * the plan borrows (plan_add_rule_kept's `lent`), which outlives the
 * plan.  `key` and `entry` name the profile location that produced it —
 * entry `entry` of a list (".readable", rendered ".readable[3]"), or a
 * location named whole ("/dev/shm (private)", ".tmp": number `entry` of
 * plan->wheres) — rendered by plan_rule_where().
 * `open_check`: a device node that must really open (O_RDONLY|O_NOCTTY) or
 * is skipped with a notice (e.g. /dev/tty without a terminal → ENXIO).
 * `create_dir`: `tmp`, created 0700 by the shim before it is opened. */
struct ll_path_rule {
	const char *path;
	uint32_t access; /* LL_FS_* rights (all below bit 32: plan.c asserts it) */
	int32_t entry;
	/* the descriptor the fs view kept when fit() resolved `path`
	 * (fs_view.kept: the shim's, closed by fsview_release), for the rule
	 * to be added with instead of opening the path again; -1: none */
	int32_t fd;
	uint8_t key; /* a list (plan.c's list_keys), or PLAN_WHERE_WHOLE */
	bool is_dir : 1;
	bool open_check : 1;
	bool create_dir : 1;
	bool quiet : 1; /* a default entry: skipped without a notice when it cannot be opened */
};
#define PLAN_WHERE_WHOLE 255

/* The longest location plan_rule_where() renders, NUL included. */
#define PLAN_WHERE_MAX 96
struct plan;
/* The profile location of rule `r` of `pl` (".readable[3]", ".tmp"):
 * static, the plan's, or rendered into buf[n] (n >= PLAN_WHERE_MAX).
 * Never NULL. */
const char *plan_rule_where(const struct plan *pl, const struct ll_path_rule *r, char *buf, size_t n);
/* True when rule `r` of `pl` came from `where` (".writable[0]",
 * ".tmp"), without rendering it. */
bool plan_rule_from(const struct plan *pl, const struct ll_path_rule *r, const char *where);
/* True when rule `r` came from an entry of list `key` (".writable"). */
bool plan_rule_in_list(const struct ll_path_rule *r, const char *key);

/* One Landlock network port rule (struct landlock_net_port_attr, ABI 4;
 * UDP rights ABI 10): `port` in host byte order, `access` LL_NET_* bits.
 * `where` names the profile entry (".tcp_bind[2]"), owned. */
struct ll_port_rule {
	uint16_t port;
	uint64_t access;
	char *where;
};

/* A seccomp comparison on the low 32 bits of one argument (REFERENCE.md:
 * int arguments compared masked, one comparison per argument per rule). */
enum sc_op { SC_EQ, SC_NE, SC_GE, SC_MASKED_EQ };
struct sc_cmp {
	unsigned arg;
	enum sc_op op;
	uint32_t mask; /* SC_MASKED_EQ only */
	uint32_t datum;
};

/* One seccomp rule: when `syscall` is called and every comparison holds,
 * fail with -errno `err`.  `why` is a static explanation for --check and
 * for errors ("seccomp.deny": the rule came from the profile's list). */
struct sc_rule {
	const char *syscall; /* static, or borrowed from the profile's seccomp.deny */
	int err;
	unsigned ncmp;
	struct sc_cmp cmp[2];
	const char *why;
};

/* One mount operation in the sandbox's private mount namespace, applied
 * in plan order (parents before children).  DESIGN.md "Filesystem",
 * option 1. */
enum mount_op {
	MNT_PIN,       /* bind a directory onto itself: it can no longer be renamed or removed (EBUSY) */
	MNT_RO_BIND,   /* bind a tree onto itself read-only, recursively */
	MNT_MASK_DIR,  /* cover with an empty read-only directory */
	MNT_MASK_FILE, /* cover (a file or a symlink, not followed) with an empty read-only file of mode 0 */
	MNT_TMP,       /* a private, writable /tmp or /var/tmp: the profile's tmp bound there when `content` names it, else a fresh tmpfs (mode 1777) */
	MNT_VIEW,      /* replace a directory by an empty read-only tmpfs (unix socket views, an ungranted $HOME) */
	MNT_KEEP,      /* inside a view: bring back the original tree or file at this path */
	MNT_SHM,       /* a private, writable tmpfs (mode 1777) for POSIX shared memory and semaphores */
	MNT_DEVPTS,    /* a new devpts instance (only the sandbox's own pseudo-terminals), its ptmx bound on /dev/ptmx */
	MNT_RO_ROOT,   /* "/": every mount read-only and nosuid, in place (first: Landlock does not govern chmod, chown, xattrs, times) */
	MNT_RW,        /* a writable tree (or tmp) brought back as it was before MNT_RO_ROOT, nosuid and nodev */
};

/* `path` and `where` are owned.  `is_dir`: MNT_KEEP makes a directory,
 * else a file.  `content`: for MNT_TMP, the directory bound there (the
 * profile's tmp, borrowed from the profile); NULL: a fresh tmpfs.  Nothing
 * is ever created in the user's tree for a mount (DESIGN.md). */
struct mount_rule {
	enum mount_op op;
	char *path;
	char *where;
	bool is_dir;
	const char *content;
	bool rw; /* MNT_KEEP / MNT_RW of a writable tree: cloned before MNT_RO_ROOT, made nosuid and nodev */
};

/* One part the host cannot enforce: left out (for the notice and
 * --check), or refused (the profile does not allow leaving it out).
 * All strings owned. */
struct left_out {
	char *part;   /* "signal scope" */
	char *reason; /* "needs Landlock ABI 6; this kernel has 4" */
	char *key;    /* left out: ".unenforced.signal_scope", ".best_effort" or
		       * "built-in default"; refused: the JSON member that would
		       * allow it, "\"unenforced\":{\"signal_scope\":true}" */
	char *where;  /* JSON location of the part (".signals"), "" if none */
};

/* The whole plan, built by fit() and read by the shim's layers.  Owns
 * every array and string in it (plan_free) but `prof` and the strings of
 * the seccomp rules (see struct sc_rule). */
struct plan {
	/* Landlock */
	bool landlock;
	int abi;
	uint64_t handled_fs, handled_net, scoped;
	struct ll_path_rule *rules;
	size_t nrules, caprules;
	struct ll_port_rule *ports;
	size_t nports;
	struct strvec expanded; /* directories where expansion blocks new entries */
	/* namespaces and mounts */
	bool mount_ns;  /* a private mount namespace (and user namespace if not root) */
	bool net_ns;    /* a fresh network namespace: "loopback" (lo up), or "off" with scoped unix sockets (abstract names; lo left down) */
	bool pid_ns;    /* no_survivors: a PID namespace (with the mount namespace), a
			 * minimal init as pid 1 and the command as pid 2, a fresh
			 * /proc; false with no_survivors: a subreaper (best effort) */
	bool expansion; /* carve-outs by Landlock sibling expansion instead of mounts */
	enum net_mode network; /* effective: "loopback" without a namespace is "off" */
	/* effective: "none" where unenforced.workspace_sockets closes a unix
	 * socket scope the host cannot enforce */
	enum unix_mode unix_sockets;
	/* Landlock below ABI 3 without a read-only root: seccomp refuses
	 * truncate(2) and O_RDONLY|O_TRUNC opens instead */
	bool truncate_filter;
	struct mount_rule *mounts;
	size_t nmounts;
	/* seccomp */
	bool seccomp;
	struct sc_rule *sc;
	size_t nsc, capsc;
	/* the denial report: every refused call becomes a user notification
	 * answered by a listener that writes it to this inherited descriptor
	 * (shim/denials.c); -1 without one */
	int denials_fd;
	/* capabilities kept (bit per CAP_*) */
	uint64_t keep_caps;
	/* notices printed on stderr before exec, one line each */
	struct strvec notices;
	/* remarks only shown by --check (e.g. "UDP not restricted") */
	struct strvec remarks;
	struct left_out *left;
	size_t nleft;
	struct left_out *refused; /* non-empty: fit() returned 1 */
	size_t nrefused;
	/* protected names that do not exist (built-in ones: listed by
	 * --check only; nothing is created to protect them) */
	struct strvec unprotected;
	char *home; /* the command's HOME when fit() points it elsewhere (at tmp), else NULL */
	/* The writable trees (and tmp), canonical: the shim opens every path
	 * without following a symlink that lies inside one of them
	 * (shim/resolve.c), since a sandboxed command could swap one in
	 * between fit() and the open. */
	struct strvec trees;
	/* the rules' path strings (a profile of thousands of paths: one
	 * allocation per 64 KiB, not one per rule) */
	struct str_arena strs;
	/* the rules' locations named whole ("read_only carve-out"), once
	 * each (ll_path_rule.entry with PLAN_WHERE_WHOLE) */
	struct strindex wheres;
	const struct profile *prof; /* borrowed */
};

/* The symbolic name of an errno the seccomp rules return ("EPERM",
 * "ENOSYS", "EBUSY", "EAFNOSUPPORT", "EPROTONOSUPPORT"), "?" for any
 * other.  Static string. */
const char *plan_errno_name(int e);

/* Free everything the plan owns and zero it (the profile it borrows is
 * left alone).  Safe on a zeroed plan and twice in a row; fit() calls it
 * itself on failure. */
void plan_free(struct plan *pl);

/* Render the plan as a JSON document (malloc'd, caller frees): the --check
 * output, doc/plan.schema.json.  NULL if jansson fails. */
char *plan_json(const struct plan *pl);

/* Plan-building primitives shared by fit.c and carve.c (policy/plan.c). */
/* Append one path rule (copies strings).  `access` is masked to the
 * rights a file may carry when !is_dir (LL_FS_FILE_RIGHTS: others make
 * add_rule fail with EINVAL) and to the plan's handled rights; a rule left
 * granting nothing is not added (landlock_add_rule refuses an empty mask
 * with ENOMSG).  Returns the rule, or NULL when none was added. */
struct ll_path_rule *plan_add_rule(struct plan *pl, const char *path, const char *where,
				   uint64_t access, bool is_dir);
/* The same for a path fit() resolved: `fd` is the descriptor the fs
 * view kept for it (fs_view.kept), -1 for none; `lent`: `path` is
 * borrowed instead of copied, as it lives as long as the plan (a string
 * of the profile the plan borrows: a list entry that is its own
 * canonical name). */
struct ll_path_rule *plan_add_rule_kept(struct plan *pl, const char *path, bool lent, int fd,
					const char *where, uint64_t access, bool is_dir);
/* Add one mount rule; an existing rule on the same path is upgraded to
 * the stronger operation (copies strings).  Returns the rule. */
struct mount_rule *plan_add_mount(struct plan *pl, enum mount_op op, const char *path,
				  const char *where, bool is_dir);
/* Append one notice (printf format, cut at 1023 bytes): printed on stderr
 * before exec ("__sandbox: notice: ...") and listed by --check. */
void plan_notice(struct plan *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record a part left out (refused == false) or refused; copies strings. */
void plan_left(struct plan *pl, bool refused, const char *where, const char *part,
	       const char *reason, const char *key);
/* The one notice line naming every part left out ("left out: A (why;
 * allowed by KEY); B (...)") into buf; "" when none. */
void plan_left_line(const struct plan *pl, char *buf, size_t n);

#endif

/* The plan: everything the shim will install, decided by fit() from a
 * profile and a host, before the first irreversible syscall.  Rendered as
 * JSON by plan_json() for --check. */
#ifndef SB_PLAN_H
#define SB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "util.h"

/* One Landlock path rule.  `path` is canonical (resolved), owned.
 * `where` names the profile entry that produced it (".readable[0]"), owned.
 * `open_check`: a device node that must really open (O_RDONLY|O_NOCTTY) or
 * is skipped with a notice (e.g. /dev/tty without a terminal → ENXIO).
 * `create_dir`: `tmp`, created 0700 by the shim before it is opened. */
struct ll_path_rule {
	char *path;
	char *where;
	uint64_t access;
	bool is_dir;
	bool open_check;
	bool create_dir;
};

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
	MNT_OCCUPY,    /* create an empty placeholder file of mode 0 at a missing name, then cover it */
	MNT_VIEW,      /* replace a directory by an empty read-only tmpfs (unix socket views) */
	MNT_KEEP,      /* inside a view: bring back the original tree or file at this path */
	MNT_SHM,       /* a private, writable tmpfs (mode 1777) for POSIX shared memory and semaphores */
	MNT_DEVPTS,    /* a new devpts instance (only the sandbox's own pseudo-terminals), its ptmx bound on /dev/ptmx */
};

/* `path` and `where` are owned.  `is_dir`: MNT_KEEP / MNT_OCCUPY make a
 * directory, else a file.  `content`: what an MNT_OCCUPY placeholder file
 * holds (static; NULL: empty). */
struct mount_rule {
	enum mount_op op;
	char *path;
	char *where;
	bool is_dir;
	const char *content;
};

/* One part the host cannot enforce and that was left out, for notices
 * and --check. */
struct left_out {
	char *part;   /* "signal scope" */
	char *reason; /* "needs Landlock ABI 6; this kernel has 4" */
	char *key;    /* ".unenforced.signal_scope" or ".best_effort" */
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
	bool net_ns;    /* network "loopback": a fresh network namespace with lo up */
	bool expansion; /* carve-outs by Landlock sibling expansion instead of mounts */
	enum net_mode network; /* effective: "loopback" without a namespace is "off" */
	struct mount_rule *mounts;
	size_t nmounts;
	/* seccomp */
	bool seccomp;
	struct sc_rule *sc;
	size_t nsc, capsc;
	/* capabilities kept (bit per CAP_*) */
	uint64_t keep_caps;
	/* notices printed on stderr before exec, one line each */
	struct strvec notices;
	/* remarks only shown by --check (e.g. "UDP not restricted") */
	struct strvec remarks;
	struct left_out *left;
	size_t nleft;
	const struct profile *prof; /* borrowed */
};

/* Free everything the plan owns and zero it (the profile it borrows is
 * left alone).  Safe on a zeroed plan and twice in a row; fit() calls it
 * itself on failure. */
void plan_free(struct plan *pl);

/* Render the plan as a JSON document (malloc'd, caller frees): the --check
 * output, doc/plan.schema.json.  NULL if jansson fails. */
char *plan_json(const struct plan *pl);

#endif

/* The profile model (DESIGN.md "Profile (JSON, version 1)") and its strict
 * parser.  Pure: profile_parse() takes a buffer, never a path. */
#ifndef SB_PROFILE_H
#define SB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A list of absolute paths from one profile key.  `key` is the JSON key
 * (static string) so a location ".key[i]" can be named later; `set` says
 * whether the key was present (absent keys take DESIGN's defaults).
 * `v` holds the array only: its strings are the profile's (struct
 * profile's `strs`; the default executable list lends readable's,
 * writable's and tmp), never freed one by one. */
struct pathlist {
	const char *key;
	struct strvec v;
	bool set;
};

/* A port allow-list; `set` false means the key was absent. */
struct portlist {
	uint16_t *v;
	size_t n;
	bool set;
};

/* The string values of network, unix_sockets, signals and mounts, in the
 * order profile.c's ENUM_KEY lists them (the index is the value). */
enum net_mode { NET_OFF, NET_LOOPBACK, NET_ON };
enum unix_mode { UNIX_SCOPED, UNIX_ANY, UNIX_NONE };
enum signal_mode { SIG_SCOPED, SIG_ANY };
enum mounts_mode { MOUNTS_AUTO, MOUNTS_OFF, MOUNTS_REQUIRED };

/* Parts a host may be unable to enforce; each is named in `unenforced`.
 * The first four are speccoder's names, the rest this shim's own. */
enum unenforced_part {
	UNF_TRUST_HANDOFF = 1u << 0,
	/* speccoder's meaning: where unix sockets cannot be kept inside the
	 * sandbox, none are reachable (AF_UNIX refused, as unix_sockets
	 * "none") — closes more, never less */
	UNF_WORKSPACE_SOCKETS = 1u << 1,
	UNF_SIGNAL_SCOPE = 1u << 2,
	UNF_CARVE = 1u << 3,
	UNF_TRUNCATE = 1u << 4,  /* Landlock FS_TRUNCATE (ABI 3) */
	UNF_TCP_PORTS = 1u << 5, /* tcp_bind / tcp_connect (ABI 4) */
	UNF_UDP_PORTS = 1u << 6, /* udp_bind / udp_connect (ABI 10) */
	/* this shim's: where unix sockets cannot be kept inside the sandbox,
	 * the host's stay reachable (0.1.0's reading of workspace_sockets) */
	UNF_HOST_SOCKETS = 1u << 7,
};

/* Name of one unenforced part (static), or NULL. */
const char *unenforced_name(unsigned part);

/* One rlimit: `resource` is RLIMIT_*; values in the resource's own unit
 * (bytes, seconds, count); UINT64_MAX means unlimited. */
struct rlimit_rule {
	int resource;
	const char *name; /* prlimit(1) name, static */
	uint64_t soft, hard;
};

/* env: applied in the order clear+keep → unset → TMPDIR (tmp) → set. */
struct env_rules {
	bool clear;
	struct strvec keep;  /* names, or "PREFIX*" */
	struct strvec set;   /* "NAME=VALUE" */
	struct strvec unset; /* names */
};

/* `user` (container entrypoints).  Parsed: either `name`, or `uid` and
 * `gid` (has_ids); `groups` when groups_set.  shim/user.c then fills uid,
 * gid and, unless groups_set, groups from the image's /etc/passwd and
 * /etc/group (resolved), before fit. */
struct user_rule {
	bool set;
	bool has_ids;
	bool groups_set;
	bool resolved;
	uint32_t uid, gid;
	uint32_t *groups; /* owned; supplementary groups, exactly these */
	size_t ngroups;
	char *name;
};

/* The parsed profile; owns all its memory (profile_free()). */
struct profile {
	int version;
	struct pathlist readable, executable, writable, read_only, hidden,
		caches, devices;
	struct strvec protect, protect_extra;
	bool protect_set;
	enum mounts_mode mounts;
	char *tmp; /* NULL if absent */
	enum net_mode network;
	struct portlist tcp_bind, tcp_connect, udp_bind, udp_connect;
	enum unix_mode unix_sockets;
	enum signal_mode signals;
	struct env_rules env;
	char *cwd;
	int *keep_fds;
	size_t nkeep_fds;
	/* `denials`: the inherited descriptor (above 2) that gets one JSON
	 * line per system call the seccomp filter refuses; -1 when absent
	 * (profile_parse sets it). */
	int denials_fd;
	bool die_with_parent;
	bool new_session;
	bool no_survivors; /* no process of the sandbox outlives the command (shim/life.c) */
	int *caps; /* CAP_* numbers kept */
	size_t ncaps;
	struct user_rule user;
	struct rlimit_rule *rlimits;
	size_t nrlimits;
	struct strvec seccomp_deny, seccomp_allow; /* syscall or @group names */
	unsigned unenforced; /* enum unenforced_part bits */
	bool best_effort;
	/* the path lists' strings, packed (a profile of 10,000 paths: no
	 * allocation, and no allocator overhead, per path) */
	struct str_arena strs;
};

/* Parse and validate a profile document of `len` bytes (need not be NUL
 * terminated).  Strict: unknown or duplicate keys, wrong types, relative or
 * empty paths, NUL bytes, out-of-range ports and unknown syscall or
 * capability names are errors naming the JSON location in `err`.
 * Absent keys take DESIGN.md's defaults.  Returns 0, or -1 with `err` set
 * (and `p` left empty).  On success the caller owns `p` (profile_free). */
int profile_parse(const char *buf, size_t len, struct profile *p,
		  struct sb_err *err);
/* The same, taking `text` (malloc'd), which is freed as soon as the
 * document is read, before the profile is filled from it: a profile of
 * 10,000 paths never holds its text, its document and its copies at
 * once (peak RSS).  `text` is gone on return either way. */
int profile_parse_text(char *text, size_t len, struct profile *p, struct sb_err *err);
/* Free everything `p` owns and zero it.  Safe on a zeroed profile and
 * twice in a row; profile_parse() calls it itself on failure. */
void profile_free(struct profile *p);

/* The built-in `protect` list (DESIGN.md), NULL-terminated, static. */
extern const char *const profile_default_protect[];
/* The default `devices` list, NULL-terminated, static. */
extern const char *const profile_default_devices[];

#endif

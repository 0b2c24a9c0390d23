/* Name tables: syscall groups (systemd's names), prlimit(1) resource names,
 * capability names.  Pure lookups. */
#ifndef SB_NAMES_H
#define SB_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Members of a "@group" (systemd's seccomp-util.c names), NULL-terminated
 * and static; NULL if the group is unknown. */
const char *const *sc_group_members(const char *group);
/* NULL-terminated static list of known group names. */
extern const char *const sc_group_names[];

/* True if `name` is a syscall libseccomp knows on any architecture
 * (seccomp_syscall_resolve_name; a pure table lookup). */
bool sc_name_valid(const char *name);

/* RLIMIT_* number for a prlimit(1) name ("nofile"), or -1. */
int rlimit_by_name(const char *name, const char **static_name);
/* The i-th prlimit(1) name in the table's order ("as", "core", ...), or
 * NULL past the end. */
const char *rlimit_name(size_t i);

/* CAP_* number for "CAP_NET_BIND_SERVICE" (any case, prefix optional), or
 * -1.  Uses libcap-ng's table (capng_name_to_capability). */
int cap_by_name(const char *name);
/* Canonical "CAP_X" name of a capability number into buf. */
void cap_name(int cap, char *buf, unsigned n);

#endif

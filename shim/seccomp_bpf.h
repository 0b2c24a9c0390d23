/* The seccomp layer's inside, shared with the build-time generator
 * (scripts/seccomp-embed.c) and the unit test (tests/unit/test_seccomp.c).
 *
 * A plan's seccomp rules become classic BPF one of two ways, both through
 * seccomp_compile() (libseccomp):
 *   - at build time, for a few common plans (the default profile, network
 *     "on"), by scripts/seccomp-embed.c, which writes the program and the
 *     plan's rule key into build/gen/seccomp_embedded.c;
 *   - at run time, for every plan whose key matches none of those.
 * The shim uses an embedded program only when the plan's key equals the
 * embedded key byte for byte, so it is the program libseccomp would have
 * produced for this very plan (same static library, same architecture). */
#ifndef SB_SECCOMP_BPF_H
#define SB_SECCOMP_BPF_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/plan.h"
#include "../policy/util.h"

/* One filter compiled at build time.  All static data. */
struct sc_embedded {
	const char *profile;            /* the profile it was made from, for tests and comments */
	uint32_t persona;               /* the host personality(2) value assumed */
	bool mounts;                    /* the host could make a mount namespace (without one SysV IPC is refused) */
	const unsigned char *key;       /* seccomp_rules_key() of that plan */
	size_t keylen;
	const struct sock_filter *bpf;  /* the program, seccomp_compile() output */
	size_t len;                     /* in instructions */
};

/* build/gen/seccomp_embedded.c (the generator itself links an empty one). */
extern const struct sc_embedded sc_embedded[];
extern const size_t sc_nembedded;

/* The plan's seccomp rules as bytes: every field that reaches the BPF
 * (syscall name, errno, each comparison), in plan order, nothing else
 * (`why` is left out).  Two plans with equal keys compile to the same
 * program.  Returns a malloc'd buffer (caller frees), its size in *len. */
unsigned char *seccomp_rules_key(const struct plan *pl, size_t *len);

/* The embedded filter whose key equals the plan's seccomp_rules_key(), or
 * NULL.  Allocates nothing. */
const struct sc_embedded *seccomp_embedded_for(const struct plan *pl);

/* Compile the plan's rules with libseccomp (native architecture, other
 * architectures and x32 kill the process, binary-tree dispatch) into
 * *bpf (malloc'd, caller frees) of *n instructions.  Returns 0, or -1
 * with `err` naming the rule libseccomp refused. */
int seccomp_compile(const struct plan *pl, struct sock_filter **bpf, size_t *n,
		    struct sb_err *err);

/* shim/bpfrun.c.  Run the classic BPF program prog[n] on `d` exactly as
 * seccomp would (kernel/seccomp.c seccomp_check_filter's instruction set;
 * loads from seccomp_data in host byte order) and return its SECCOMP_RET_*
 * value.  *ok is false, and SECCOMP_RET_KILL_PROCESS returned, for a
 * program the kernel would have refused (an unknown instruction, a load
 * out of bounds, a jump past the end).  Pure. */
struct seccomp_data;
uint32_t bpf_run(const struct sock_filter *prog, size_t n,
		 const struct seccomp_data *d, bool *ok);
/* A copy of prog[n] (malloc'd, caller frees) in which every
 * SECCOMP_RET_ERRNO return is SECCOMP_RET_USER_NOTIF, everything else
 * unchanged, so the copy notifies exactly where the original refuses.
 * NULL when the program returns the A register anywhere (its action
 * would not be known before it runs; libseccomp never emits that). */
struct sock_filter *bpf_errno_to_notify(const struct sock_filter *prog, size_t n);

#endif

/* seccomp layer: compile the plan's rules with libseccomp early, load the
 * filter last (right before execve) so the shim's own setup is not
 * subject to it. */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <string.h>

#include "shim.h"

/* The kernel ignores the upper half of int arguments, but a BPF filter
 * sees all 64 bits, so an equality must be a masked comparison on the low
 * 32 bits or a call with high bits set slips past it (CVE-2019-10063,
 * REFERENCE.md).  libseccomp's SCMP_CMP32 only truncates the datum, hence
 * MASKED_EQ with 0xffffffff.  NE and GE stay 64-bit: garbage in the upper
 * half only makes them match (refuse) more often. */
static struct scmp_arg_cmp cmp_of(const struct sc_cmp *c)
{
	switch (c->op) {
	case SC_EQ:
		return (struct scmp_arg_cmp){c->arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, c->datum};
	case SC_MASKED_EQ:
		return (struct scmp_arg_cmp){c->arg, SCMP_CMP_MASKED_EQ, c->mask, c->datum};
	case SC_NE:
		return (struct scmp_arg_cmp){c->arg, SCMP_CMP_NE, c->datum, 0};
	case SC_GE:
	default:
		return (struct scmp_arg_cmp){c->arg, SCMP_CMP_GE, c->datum, 0};
	}
}

int seccomp_prepare(struct run *r, struct sb_err *err)
{
	struct plan *pl = r->plan;
	if (!pl->seccomp)
		return 0;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return sb_fail(err, NULL, NULL, "seccomp filter: libseccomp could not start a filter");
	r->seccomp_ctx = ctx;
	/* Other architectures (i386 via int 0x80) and x32 arrive with another
	 * audit arch or the x32 bit: kill the whole process, not a thread. */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* Binary tree of syscalls: O(log n) per syscall, not a linear scan. */
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	/* no_new_privs is set by caps_apply, explicitly and in order. */
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc)
		return sb_fail(err, NULL, NULL, "seccomp filter attributes: %s", strerror(-rc));
	for (size_t i = 0; i < pl->nsc; i++) {
		const struct sc_rule *ru = &pl->sc[i];
		int nr = seccomp_syscall_resolve_name(ru->syscall);
		/* A name libseccomp knows only on other architectures has a
		 * negative pseudo number here: nothing to filter natively. */
		if (nr < 0)
			continue;
		struct scmp_arg_cmp c[2];
		for (unsigned k = 0; k < ru->ncmp; k++)
			c[k] = cmp_of(&ru->cmp[k]);
		rc = seccomp_rule_add_exact_array(ctx, SCMP_ACT_ERRNO((uint32_t)ru->err), nr, ru->ncmp, c);
		if (rc < 0)
			return sb_fail(err, NULL, NULL, "seccomp rule for %s refused by libseccomp: %s",
				       ru->syscall, strerror(-rc));
	}
	return 0;
}

int seccomp_apply(struct run *r, struct sb_err *err)
{
	if (!r->seccomp_ctx)
		return 0;
	int rc = seccomp_load(r->seccomp_ctx);
	if (rc < 0)
		return sb_fail(err, NULL, NULL, "loading the seccomp filter failed: %s", strerror(-rc));
	seccomp_release(r->seccomp_ctx);
	r->seccomp_ctx = NULL;
	return 0;
}

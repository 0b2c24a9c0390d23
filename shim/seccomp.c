/* seccomp layer: turn the plan's rules into BPF early (everything that can
 * fail on input fails before anything irreversible), load the filter last
 * (right before execve) so the shim's own setup is not subject to it.
 *
 * Start-up cost: libseccomp builds its rule database, a binary tree and
 * the BPF with hundreds of small allocations on every run (about 1 ms here,
 * most of the shim's own time).  The default profile's filter — and
 * network "on"'s — is therefore compiled once at build time and embedded
 * (seccomp_bpf.h); it is used only when this plan's rules are byte for byte
 * the rules it was compiled from, otherwise libseccomp compiles at run time
 * exactly as the build did.  Either program is loaded by the same raw
 * seccomp(2) call. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_bpf.h"
#include "shim.h"

/* include/uapi/linux/seccomp.h of Linux 5.19; older headers lack it */
#define SB_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)

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

/* Where seccomp_rules_key() bytes go: into `buf` (when not NULL), or
 * compared with `cmp` as they come, so finding the embedded filter needs
 * no allocation.  `off` counts every byte either way. */
struct key_sink {
	unsigned char *buf;
	const unsigned char *cmp;
	size_t off, cmplen;
	bool differs;
};

static void put(struct key_sink *k, const void *p, size_t n)
{
	if (k->buf)
		memcpy(k->buf + k->off, p, n);
	if (k->cmp && !k->differs)
		k->differs = k->off + n > k->cmplen || memcmp(k->cmp + k->off, p, n) != 0;
	k->off += n;
}

static void put32(struct key_sink *k, uint32_t v)
{
	put(k, &v, sizeof v);
}

/* The one definition of the key's layout, per rule: the syscall name
 * with its NUL, errno, number of comparisons, then per comparison the
 * argument, operator, mask and datum (native 32-bit words). */
static void key_write(const struct plan *pl, struct key_sink *k)
{
	for (size_t i = 0; i < pl->nsc && !k->differs; i++) {
		const struct sc_rule *ru = &pl->sc[i];
		put(k, ru->syscall, strlen(ru->syscall) + 1);
		put32(k, (uint32_t)ru->err);
		put32(k, ru->ncmp);
		for (unsigned c = 0; c < ru->ncmp; c++) {
			put32(k, ru->cmp[c].arg);
			put32(k, (uint32_t)ru->cmp[c].op);
			put32(k, ru->cmp[c].mask);
			put32(k, ru->cmp[c].datum);
		}
	}
}

unsigned char *seccomp_rules_key(const struct plan *pl, size_t *len)
{
	struct key_sink k = {0};
	key_write(pl, &k); /* size only */
	*len = k.off;
	k = (struct key_sink){.buf = xmalloc(*len ? *len : 1)};
	key_write(pl, &k);
	return k.buf;
}

/* Without building the key: the plan's bytes are compared with each
 * embedded key as they are made, stopping at the first difference. */
const struct sc_embedded *seccomp_embedded_for(const struct plan *pl)
{
	for (size_t i = 0; i < sc_nembedded; i++) {
		struct key_sink k = {.cmp = sc_embedded[i].key, .cmplen = sc_embedded[i].keylen};
		key_write(pl, &k);
		if (!k.differs && k.off == k.cmplen)
			return &sc_embedded[i];
	}
	return NULL;
}

int seccomp_compile(const struct plan *pl, struct sock_filter **bpf, size_t *n,
		    struct sb_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return sb_fail(err, NULL, NULL, "seccomp filter: libseccomp could not start a filter");
	/* Other architectures (i386 via int 0x80) and x32 arrive with another
	 * audit arch or the x32 bit: kill the whole process, not a thread. */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* Binary tree of syscalls: O(log n) per syscall, not a linear scan. */
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	/* no_new_privs is set by caps_apply, explicitly and in order. */
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc) {
		seccomp_release(ctx);
		return sb_fail(err, NULL, NULL, "seccomp filter attributes: %s", strerror(-rc));
	}
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
		if (rc < 0) {
			seccomp_release(ctx);
			/* a rule of the profile's own list is named by its key;
			 * the others come with the network mode or the built-in
			 * filter, which `why` names */
			if (strcmp(ru->why, "seccomp.deny") == 0)
				return sb_fail(err, ".seccomp.deny", NULL, "seccomp rule for %s refused by libseccomp: %s",
					       ru->syscall, strerror(-rc));
			return sb_fail(err, NULL, NULL, "seccomp rule for %s (%s) refused by libseccomp: %s",
				       ru->syscall, ru->why, strerror(-rc));
		}
	}
	size_t bytes = 0;
	rc = seccomp_export_bpf_mem(ctx, NULL, &bytes);
	unsigned char *buf = rc ? NULL : xmalloc(bytes ? bytes : 1);
	if (!rc)
		rc = seccomp_export_bpf_mem(ctx, buf, &bytes);
	seccomp_release(ctx);
	if (rc) {
		free(buf);
		return sb_fail(err, NULL, NULL, "seccomp filter could not be generated by libseccomp: %s", strerror(-rc));
	}
	*bpf = (struct sock_filter *)buf;
	*n = bytes / sizeof **bpf;
	return 0;
}

int seccomp_prepare(struct run *r, struct sb_err *err)
{
	struct plan *pl = r->plan;
	if (!pl->seccomp)
		return 0;
	const struct sc_embedded *e = seccomp_embedded_for(pl);
	struct sock_filter *bpf;
	size_t n;
	if (e) {
		/* the kernel only reads the program (struct sock_fprog is not const) */
		bpf = (struct sock_filter *)e->bpf;
		n = e->len;
	} else if (seccomp_compile(pl, &bpf, &n, err)) {
		return -1;
	}
	/* BPF_MAXINSNS: the kernel's own limit for one filter (REFERENCE.md). */
	if (n == 0 || n > BPF_MAXINSNS)
		return sb_fail(err, NULL, NULL, "seccomp filter has %zu instructions; the kernel takes 1 to %d",
			       n, BPF_MAXINSNS);
	struct sock_fprog *prog = xmalloc(sizeof *prog);
	*prog = (struct sock_fprog){(unsigned short)n, bpf};
	r->seccomp_ctx = prog;
	return 0;
}

int seccomp_apply(struct run *r, struct sb_err *err)
{
	struct sock_fprog *prog = r->seccomp_ctx;
	if (!prog)
		return 0;
	/* No flags, as libseccomp's seccomp_load() with these attributes:
	 * no TSYNC (the shim is single-threaded), no LOG, no SPEC_ALLOW;
	 * no_new_privs is already set (caps_apply), which the kernel requires
	 * without CAP_SYS_ADMIN. */
	unsigned flags = 0;
	struct sock_fprog notify;
	if (r->denials_prog) {
		/* The denial report (shim/denials.c): the same program with
		 * USER_NOTIF for ERRNO, and its listener.  WAIT_KILLABLE_RECV
		 * (Linux 5.19): once the listener has read a call, only a
		 * fatal signal interrupts the wait for its answer, so a
		 * signal handler does not turn a refusal into EINTR or a
		 * second report line; older kernels refuse it (EINVAL). */
		notify = (struct sock_fprog){prog->len, r->denials_prog};
		prog = &notify;
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SB_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	}
	long rc = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	if (rc < 0 && errno == EINVAL && (flags & SB_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)) {
		flags &= ~SB_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
		rc = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	}
	if (rc < 0 && errno == EBUSY && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)) {
		/* An outer filter (a container runtime's) has a listener: one
		 * per chain (kernel/seccomp.c has_duplicate_listener). */
		static const char why[] = "an outer seccomp filter already has a listener (the kernel allows one per chain)";
		if (!r->prof->best_effort)
			return sb_fail(err, ".denials", NULL, "denial report: %s; to run without it, set in the profile: \"best_effort\":true", why);
		sb_say("notice: left out: denial report (%s; allowed by .best_effort)", why);
		close(r->denials_sock); /* the listener exits */
		r->denials_sock = -1;
		flags = 0;
		prog = r->seccomp_ctx;
		rc = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	}
	if (rc < 0)
		return sb_fail(err, NULL, NULL, "loading the seccomp filter failed: %s", strerror(errno));
	/* The program (embedded or compiled) dies with this image at execve. */
	r->seccomp_ctx = NULL;
	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
		return denials_handoff(r, (int)rc, err);
	return 0;
}

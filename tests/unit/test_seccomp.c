/* Unit tests of the embedded seccomp filters (shim/seccomp_bpf.h):
 *  - every embedded program is byte for byte what libseccomp compiles at
 *    run time from the same profile's rules (the build-time compile cannot
 *    drift from the run-time one);
 *  - the default profile's plan, made by fit() on this host as the shim
 *    makes it, finds the embedded program (so the fast path is really taken);
 *  - any change that reaches the BPF (an extra rule, another errno, another
 *    comparison, another personality, port lists) misses the table and is
 *    compiled at run time.
 *  - the user-space BPF runner of the denial report (shim/bpfrun.c) gives,
 *    for each rule of a plan, the errno that rule names, and the
 *    notifying copy of a program notifies exactly where it refuses;
 *  - every embedded program checks this build's own audit architecture
 *    and kills the process on any other (x86_64: i386 and x32 too;
 *    aarch64: AArch32), so a cross build (make aarch64) cannot embed
 *    another architecture's filter;
 *  - a rule whose syscall this architecture lacks (aarch64 has only the
 *    *at forms: no open, creat, chmod, mknod) is dropped only where the
 *    plan refuses the same thing through the call that replaces it.
 * No filter is loaded; nothing here needs a kernel feature.  The
 * run-time compiles need the seccomp(2) of a real kernel of this
 * architecture (libseccomp asks it for SECCOMP_RET_KILL_PROCESS): the
 * aarch64 build runs this test inside its qemu-system guests. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "../../policy/fit.h"
#include "../../policy/names.h"
#include "../../policy/profile.h"
#include "../../shim/seccomp_bpf.h"
#include "../../shim/shim.h"

/* The profile made runnable on kernels below Landlock ABI 9: the pathname
 * socket scope left out changes only Landlock, not the seccomp rules. */
static char *runnable(const char *profile)
{
	const char *unf = "\"unenforced\":{\"host_sockets\":true}";
	if (strcmp(profile, "{}") == 0)
		return xasprintf("{%s}", unf);
	return xasprintf("{%s,%s", unf, profile + 1);
}

/* fit() as the shim runs it, on this host with persona forced (and the
 * Landlock ABI when `abi` > 0).  A kernel whose Landlock ABI cannot run
 * the profile at all (an aarch64 guest of make check-aarch64 runs this
 * test on Linux 6.1, ABI 2: no scopes) refuses it, as the shim would;
 * the plan is then made for the generator's fixed ABI (LL_ABI_KNOWN), with
 * a note, so the comparisons with the embedded programs still run on this
 * kernel's seccomp. */
static int plan_at(const char *json, uint32_t persona, bool mounts, int abi,
		   struct profile *prof, struct plan *pl)
{
	struct sb_err err = {{0}, {0}, {0}};
	struct host h;
	if (profile_parse(json, strlen(json), prof, &err)) {
		diag("profile %s: %s", json, err.why);
		return -1;
	}
	probe_host(&h, false);
	h.persona = persona;
	h.mounts = mounts;
	if (abi > 0)
		h.ll_abi = abi;
	int rc = fit(prof, &h, &fsview_real, pl, &err);
	if (rc && abi == 0 && h.ll_abi < LL_ABI_KNOWN) {
		diag("this kernel (Landlock ABI %d) refuses %s: %s %s; planned for ABI %d instead",
		     h.ll_abi, json, err.where, err.why, LL_ABI_KNOWN);
		h.ll_abi = LL_ABI_KNOWN;
		err = (struct sb_err){{0}, {0}, {0}};
		rc = fit(prof, &h, &fsview_real, pl, &err);
	}
	if (rc) {
		diag("fit %s: %s %s", json, err.where, err.why);
		profile_free(prof);
		return -1;
	}
	return 0;
}

static int plan_of(const char *json, uint32_t persona, bool mounts,
		   struct profile *prof, struct plan *pl)
{
	return plan_at(json, persona, mounts, 0, prof, pl);
}

/* The embedded filter the shim would pick for this plan; checked against
 * the key the generator writes (seccomp_rules_key), so the comparing and
 * the writing walk of the key cannot disagree unnoticed. */
static const struct sc_embedded *find_plan(const struct plan *pl)
{
	const struct sc_embedded *e = seccomp_embedded_for(pl);
	size_t n;
	unsigned char *key = seccomp_rules_key(pl, &n);
	const struct sc_embedded *byte = NULL;
	for (size_t i = 0; i < sc_nembedded && !byte; i++)
		if (sc_embedded[i].keylen == n && memcmp(sc_embedded[i].key, key, n) == 0)
			byte = &sc_embedded[i];
	free(key);
	if (e != byte)
		diag("seccomp_embedded_for and the written key disagree");
	return e == byte ? e : NULL;
}

static void test_table(void)
{
	ok(sc_nembedded >= 1, "at least one filter is embedded (%zu)", sc_nembedded);
	if (sc_nembedded)
		is_str(sc_embedded[0].profile, "{}", "the first embedded filter is the default profile's");
}

/* Each embedded program equals a fresh libseccomp compile of its
 * profile's plan, and that plan finds it. */
static void test_identical(void)
{
	for (size_t i = 0; i < sc_nembedded; i++) {
		const struct sc_embedded *e = &sc_embedded[i];
		char *json = runnable(e->profile);
		struct profile prof;
		struct plan pl;
		if (!ok(plan_of(json, e->persona, e->mounts, &prof, &pl) == 0, "fit %s%s", json,
			e->mounts ? "" : " (no mount namespace)")) {
			free(json);
			continue;
		}
		struct sb_err err = {{0}, {0}, {0}};
		struct sock_filter *bpf = NULL;
		size_t n = 0;
		if (ok(seccomp_compile(&pl, &bpf, &n, &err) == 0, "run-time compile of %s", e->profile)) {
			is_int((long long)n, (long long)e->len, "%s: same number of instructions", e->profile);
			ok(n == e->len && memcmp(bpf, e->bpf, n * sizeof *bpf) == 0,
			   "%s: embedded BPF is byte-identical to libseccomp's run-time compile", e->profile);
		} else {
			diag("%s", err.why);
		}
		ok(find_plan(&pl) == e, "%s: the plan fit() makes finds this embedded filter", e->profile);
		free(bpf);
		plan_free(&pl);
		profile_free(&prof);
		free(json);
	}
}

/* Profiles whose rules differ must not get an embedded program. */
static void test_misses(void)
{
	static const char *const other[] = {
		"{\"seccomp\":{\"deny\":[\"uname\"]}}",
		"{\"seccomp\":{\"allow\":[\"ptrace\"]}}",
		"{\"unix_sockets\":\"none\"}",
		"{\"network\":\"on\",\"tcp_connect\":[443]}",
	};
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		char *json = runnable(other[i]);
		struct profile prof;
		struct plan pl;
		if (ok(plan_of(json, 0, true, &prof, &pl) == 0, "fit %s", json)) {
			ok(find_plan(&pl) == NULL, "%s: no embedded filter (compiled at run time)", other[i]);
			plan_free(&pl);
			profile_free(&prof);
		}
		free(json);
	}
	/* the personality rule carries the host's current persona */
	char *json = runnable("{}");
	struct profile prof;
	struct plan pl;
	if (ok(plan_of(json, 0x0040000 /* ADDR_NO_RANDOMIZE */, true, &prof, &pl) == 0, "fit {} with setarch -R's persona")) {
		ok(find_plan(&pl) == NULL, "another personality: no embedded filter");
		plan_free(&pl);
		profile_free(&prof);
	}
	free(json);
}

/* Every field that reaches the BPF is in the key: change one at a time
 * in the default plan and the table must miss. */
static void test_key_fields(void)
{
	char *json = runnable("{}");
	struct profile prof;
	struct plan pl;
	if (!ok(plan_of(json, 0, true, &prof, &pl) == 0, "fit {}")) {
		free(json);
		return;
	}
	ok(find_plan(&pl) != NULL, "default plan found before changes");
	struct sc_rule *withcmp = NULL;
	for (size_t i = 0; i < pl.nsc && !withcmp; i++)
		if (pl.sc[i].ncmp)
			withcmp = &pl.sc[i];
	if (ok(withcmp != NULL && pl.nsc > 1, "default plan has rules with comparisons")) {
		struct sc_rule *r0 = &pl.sc[0];
		struct sc_rule saved = *r0, savedc = *withcmp;
		r0->err = r0->err == EPERM ? EACCES : EPERM;
		ok(find_plan(&pl) == NULL, "another errno: miss");
		*r0 = saved;
		r0->syscall = "uname";
		ok(find_plan(&pl) == NULL, "another syscall: miss");
		*r0 = saved;
		withcmp->cmp[0].datum ^= 1;
		ok(find_plan(&pl) == NULL, "another datum: miss");
		*withcmp = savedc;
		withcmp->cmp[0].arg ^= 1;
		ok(find_plan(&pl) == NULL, "another argument index: miss");
		*withcmp = savedc;
		withcmp->cmp[0].mask ^= 0x100;
		ok(find_plan(&pl) == NULL, "another mask: miss");
		*withcmp = savedc;
		withcmp->cmp[0].op = withcmp->cmp[0].op == SC_NE ? SC_GE : SC_NE;
		ok(find_plan(&pl) == NULL, "another operator: miss");
		*withcmp = savedc;
		pl.nsc--;
		ok(find_plan(&pl) == NULL, "one rule fewer: miss");
		pl.nsc++;
		ok(find_plan(&pl) != NULL, "restored plan found again");
	}
	plan_free(&pl);
	profile_free(&prof);
	free(json);
}

/* seccomp_data that satisfies every comparison of rule `ru` (native
 * architecture).  Returns false when the rule's syscall does not exist
 * natively. */
static bool data_for(const struct sc_rule *ru, struct seccomp_data *d)
{
	memset(d, 0, sizeof *d);
	d->nr = seccomp_syscall_resolve_name(ru->syscall);
	d->arch = seccomp_arch_native();
	if (d->nr < 0)
		return false;
	for (unsigned c = 0; c < ru->ncmp; c++) {
		const struct sc_cmp *k = &ru->cmp[c];
		uint64_t v = k->datum;
		if (k->op == SC_NE)
			v = (uint64_t)k->datum + 1;
		else if (k->op == SC_MASKED_EQ)
			v = k->datum & k->mask;
		d->args[k->arg] = v;
	}
	return true;
}

/* The runner against the plans' own rules: each rule's data comes out as
 * a refusal (with the rule's errno when no other rule on the syscall can
 * match first), ordinary calls as allowed, and the notifying copy notifies
 * exactly on the refusals. */
static void test_runner(void)
{
	static const char *const profiles[] = {"{}", "{\"network\":\"on\",\"tcp_bind\":[80]}",
		"{\"denials\":{\"fd\":3},\"seccomp\":{\"deny\":[\"@swap\"]}}"};
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		char *json = runnable(profiles[i]);
		struct profile prof;
		struct plan pl;
		struct sb_err err = {{0}, {0}, {0}};
		if (plan_of(json, 0, true, &prof, &pl)) {
			ok(0, "%s: planned", profiles[i]);
			free(json);
			continue;
		}
		struct sock_filter *bpf;
		size_t n;
		if (seccomp_compile(&pl, &bpf, &n, &err)) {
			ok(0, "%s: compiled: %s", profiles[i], err.why);
			continue;
		}
		struct sock_filter *nt = bpf_errno_to_notify(bpf, n);
		size_t refused = 0, exact = 0, wrong = 0, notify_wrong = 0, bad = 0;
		for (size_t r = 0; r < pl.nsc; r++) {
			struct seccomp_data d;
			if (!data_for(&pl.sc[r], &d))
				continue;
			bool okr, okn;
			uint32_t ret = bpf_run(bpf, n, &d, &okr);
			uint32_t nret = bpf_run(nt, n, &d, &okn);
			bad += !okr || !okn;
			if ((ret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO) {
				wrong++;
				diag("%s: rule %zu (%s) not refused: 0x%08x", profiles[i], r, pl.sc[r].syscall, ret);
				continue;
			}
			refused++;
			notify_wrong += (nret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_USER_NOTIF;
			/* several rules on one syscall may match the same data
			 * (a family rule and a protocol rule): the exact errno is
			 * only checked for a syscall with one rule */
			size_t same = 0;
			for (size_t o = 0; o < pl.nsc; o++)
				same += strcmp(pl.sc[o].syscall, pl.sc[r].syscall) == 0;
			if (same == 1) {
				if ((int)(ret & SECCOMP_RET_DATA) == pl.sc[r].err)
					exact++;
				else
					diag("%s: %s gave errno %u, the rule says %d", profiles[i], pl.sc[r].syscall,
					     ret & SECCOMP_RET_DATA, pl.sc[r].err);
			} else {
				exact++;
			}
		}
		ok(refused > 50 && wrong == 0 && bad == 0, "%s: every one of %zu rules refused by the runner", profiles[i], refused);
		ok(exact == refused, "%s: with the rule's own errno", profiles[i]);
		ok(nt && notify_wrong == 0, "%s: the notifying copy notifies on each", profiles[i]);
		struct seccomp_data rd = {0, seccomp_arch_native(), 0, {0, 0, 0, 0, 0, 0}};
		bool okr;
		rd.nr = seccomp_syscall_resolve_name("read");
		uint32_t r1 = bpf_run(bpf, n, &rd, &okr);
		uint32_t r2 = bpf_run(nt, n, &rd, &okr);
		ok(r1 == SECCOMP_RET_ALLOW && r2 == SECCOMP_RET_ALLOW, "%s: read(2) allowed by both", profiles[i]);
		rd.arch = 0x40000003; /* AUDIT_ARCH_I386 */
		ok(bpf_run(nt, n, &rd, &okr) == SECCOMP_RET_KILL_PROCESS, "%s: another architecture is killed, not notified", profiles[i]);
		size_t diff = 0;
		for (size_t k = 0; k < n; k++)
			diff += memcmp(&bpf[k], &nt[k], sizeof bpf[k]) != 0 &&
				!(bpf[k].code == (BPF_RET | BPF_K) && (bpf[k].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO);
		ok(diff == 0, "%s: the copy differs only in its ERRNO returns", profiles[i]);
		free(nt);
		free(bpf);
		plan_free(&pl);
		profile_free(&prof);
		free(json);
	}
	/* what the kernel would refuse, the runner refuses to judge */
	struct sock_filter unknown[] = {{0xff, 0, 0, 0}};
	struct sock_filter oob[] = {{BPF_LD | BPF_W | BPF_ABS, 0, 0, 64}, {BPF_RET | BPF_K, 0, 0, 0}};
	struct sock_filter ret_a[] = {{BPF_RET | BPF_A, 0, 0, 0}};
	struct sock_filter div0[] = {{BPF_LDX | BPF_IMM, 0, 0, 0}, {BPF_ALU | BPF_DIV | BPF_X, 0, 0, 0},
				     {BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW}};
	struct seccomp_data z = {0, 0, 0, {0, 0, 0, 0, 0, 0}};
	bool okr;
	bpf_run(unknown, 1, &z, &okr);
	ok(!okr, "an unknown instruction: not judged");
	bpf_run(oob, 2, &z, &okr);
	ok(!okr, "a load past seccomp_data: not judged");
	ok(bpf_errno_to_notify(ret_a, 1) == NULL, "a program returning A: no notifying copy");
	ok(bpf_run(div0, 3, &z, &okr) == 0 && okr, "division by zero ends the program with 0, as classic BPF does");
}

/* The audit architecture this file is compiled for: the one an embedded
 * program must accept (linux/audit.h; kernel arch/…/include/asm/syscall.h
 * reports it in seccomp_data.arch). */
#if defined(__x86_64__)
#define BUILD_ARCH AUDIT_ARCH_X86_64
#define BUILD_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define BUILD_ARCH AUDIT_ARCH_AARCH64
#define BUILD_ARCH_NAME "aarch64"
#else
#error "test_seccomp: x86_64 and aarch64 are the architectures built"
#endif

/* libseccomp's program starts by loading seccomp_data.arch and jumping,
 * when it is not the native one, to a return of the bad-architecture
 * action (SCMP_FLTATR_ACT_BADARCH, shim/seccomp.c). */
static void test_arch(void)
{
	is_int((long long)seccomp_arch_native(), (long long)BUILD_ARCH,
	       "libseccomp's native architecture is this build's (%s)", BUILD_ARCH_NAME);
	for (size_t i = 0; i < sc_nembedded; i++) {
		const struct sc_embedded *e = &sc_embedded[i];
		const struct sock_filter *f = e->bpf;
		const char *m = e->mounts ? "" : " (no mount namespace)";
		if (!ok(e->len > 2 && f[0].code == (BPF_LD | BPF_W | BPF_ABS) &&
			     f[0].k == offsetof(struct seccomp_data, arch),
			"%s%s: the program first loads the audit architecture", e->profile, m))
			continue;
		ok(f[1].code == (BPF_JMP | BPF_JEQ | BPF_K) && f[1].k == BUILD_ARCH,
		   "%s%s: ... and compares it with %s's (0x%08x; found 0x%08x)", e->profile, m,
		   BUILD_ARCH_NAME, (unsigned)BUILD_ARCH, (unsigned)f[1].k);
		size_t bad = 2 + (size_t)f[1].jf;
		ok(bad < e->len && f[bad].code == (BPF_RET | BPF_K) && f[bad].k == SECCOMP_RET_KILL_PROCESS,
		   "%s%s: ... any other architecture kills the process", e->profile, m);
	}
}

/* The calls a 64-bit architecture may lack, each with the call that does
 * the same there, and the argument index that moves by one (the *at
 * form's directory descriptor comes first).  creat(p, m) is
 * openat(AT_FDCWD, p, O_CREAT|O_WRONLY|O_TRUNC, m). */
static const struct { const char *old, *at; } at_forms[] = {
	{"open", "openat"}, {"creat", "openat"}, {"chmod", "fchmodat"},
	{"mknod", "mknodat"},
};

/* True if the plan has a rule for `name` with errno `err`. */
static bool has_rule(const struct plan *pl, const char *name, int err)
{
	for (size_t i = 0; i < pl->nsc; i++)
		if (strcmp(pl->sc[i].syscall, name) == 0 && pl->sc[i].err == err)
			return true;
	return false;
}

/* True if `name` is in a default @group: systemd's cross-architecture
 * lists, whose members exist on some architectures only. */
static bool in_group(const char *name)
{
	for (const char *const *g = sc_group_names; *g; g++)
		for (const char *const *m = sc_group_members(*g); m && *m; m++)
			if (strcmp(*m, name) == 0)
				return true;
	return false;
}

/* Every rule whose syscall this architecture lacks (libseccomp resolves
 * it to a negative pseudo number; seccomp_compile skips it) is covered:
 * its *at form carries a rule with the same errno, or it is one of the
 * default groups' architecture-specific members, or SysV's multiplexer
 * ipc (each SysV call has its own rule).  Plans: the default with and
 * without a mount namespace, network "on", and one below Landlock ABI 3
 * without a read-only root (the truncate rules, on open and openat). */
static void test_dropped(void)
{
	static const char *const profiles[] = {"{}", "{\"network\":\"on\"}",
		"{\"mounts\":\"off\",\"unenforced\":{\"signal_scope\":true,\"workspace_sockets\":true,\"host_sockets\":true}}"};
	for (size_t i = 0; i < 2 * (sizeof profiles / sizeof profiles[0]); i++) {
		bool old_abi = i / 2 == 2, mounts = i % 2 == 0 && !old_abi;
		if (old_abi && i % 2)
			continue;
		char *json = old_abi ? xasprintf("%s", profiles[i / 2]) : runnable(profiles[i / 2]);
		struct profile prof;
		struct plan pl;
		if (!ok(plan_at(json, 0, mounts, old_abi ? 2 : 0, &prof, &pl) == 0,
			"fit %s%s%s", json, mounts ? "" : " (no mount namespace)", old_abi ? " on Landlock ABI 2" : "")) {
			free(json);
			continue;
		}
		if (old_abi)
			ok(pl.truncate_filter, "%s on ABI 2: the truncate rules are in the plan", json);
		size_t dropped = 0;
		for (size_t r = 0; r < pl.nsc; r++) {
			const struct sc_rule *ru = &pl.sc[r];
			if (seccomp_syscall_resolve_name(ru->syscall) >= 0)
				continue;
			dropped++;
			const char *at = NULL;
			for (size_t k = 0; k < sizeof at_forms / sizeof at_forms[0]; k++)
				if (strcmp(at_forms[k].old, ru->syscall) == 0)
					at = at_forms[k].at;
			if (at) {
				ok(seccomp_syscall_resolve_name(at) >= 0 && has_rule(&pl, at, ru->err),
				   "%s: %s (not on %s) is refused through %s (errno %d, %s)", json, ru->syscall,
				   BUILD_ARCH_NAME, at, ru->err, ru->why);
			} else if (strcmp(ru->syscall, "ipc") != 0 && !in_group(ru->syscall)) {
				ok(0, "%s: %s (%s) has no syscall on %s and no replacement is refused", json,
				   ru->syscall, ru->why, BUILD_ARCH_NAME);
			}
		}
		diag("%s%s: %zu of %zu rules name syscalls %s lacks", json, mounts ? "" : " (no mount namespace)",
		     dropped, pl.nsc, BUILD_ARCH_NAME);
		plan_free(&pl);
		profile_free(&prof);
		free(json);
	}
}

int main(void)
{
	test_table();
	test_identical();
	test_misses();
	test_key_fields();
	test_runner();
	test_arch();
	test_dropped();
	return done_testing();
}

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
 * No filter is loaded; nothing here needs a kernel feature. */
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "../../policy/fit.h"
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

/* fit() as the shim runs it, on this host with persona forced. */
static int plan_of(const char *json, uint32_t persona, bool mounts,
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
	if (fit(prof, &h, &fsview_real, pl, &err)) {
		diag("fit %s: %s %s", json, err.where, err.why);
		profile_free(prof);
		return -1;
	}
	return 0;
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

int main(void)
{
	test_table();
	test_identical();
	test_misses();
	test_key_fields();
	test_runner();
	return done_testing();
}

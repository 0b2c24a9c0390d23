/* Probe what this host can enforce: Landlock ABI and errata, seccomp,
 * capabilities held.  Cheap: a handful of syscalls, no fork. */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <jansson.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#include "versions.h" /* build/deps/versions.h, written by scripts/deps */
#include "shim.h"
#include "sys.h"

void probe_host(struct host *h)
{
	memset(h, 0, sizeof *h);
	int abi = sb_landlock_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi > 0) {
		h->ll_abi = abi;
		int e = sb_landlock_create_ruleset(NULL, 0, LL_CREATE_RULESET_ERRATA);
		h->ll_errata = e > 0 ? (uint32_t)e : 0;
	} else {
		h->ll_errno = errno;
	}
	/* PR_GET_SECCOMP answers EINVAL without CONFIG_SECCOMP; filter mode
	 * itself is checked by asking whether the kill action exists. */
	uint32_t act = SECCOMP_RET_KILL_PROCESS;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		h->seccomp_errno = errno;
	else if (syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) < 0)
		h->seccomp_errno = errno;
	else
		h->seccomp = true;
	capng_get_caps_process();
	for (unsigned c = 0; c <= CAP_LAST_CAP && c < 64; c++)
		if (capng_have_capability(CAPNG_PERMITTED, c))
			h->cap_permitted |= 1ULL << c;
	int pers = personality(0xffffffff);
	h->persona = pers < 0 ? 0 : (uint32_t)pers;
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(h->release, sizeof h->release, "%s", u.release);
}

int probe_print(const struct host *h)
{
	json_t *ll = json_object();
	json_object_set_new(ll, "abi", json_integer(h->ll_abi));
	json_object_set_new(ll, "errata", json_integer(h->ll_errata));
	json_object_set_new(ll, "status", json_string(
		h->ll_abi > 0 ? "enabled" :
		h->ll_errno == EOPNOTSUPP ? "disabled at boot (EOPNOTSUPP)" :
		"not built in (ENOSYS)"));
	json_t *fs = json_object(), *net = json_object(), *sc = json_object();
	for (int b = 0; b < 64; b++) {
		const char *n;
		if ((n = ll_right_name(0, 1ULL << b)))
			json_object_set_new(fs, n, json_boolean(ll_fs_rights(h->ll_abi) & (1ULL << b)));
		if ((n = ll_right_name(1, 1ULL << b)))
			json_object_set_new(net, n, json_boolean(ll_net_rights(h->ll_abi) & (1ULL << b)));
		if ((n = ll_right_name(2, 1ULL << b)))
			json_object_set_new(sc, n, json_boolean(ll_scopes(h->ll_abi) & (1ULL << b)));
	}
	json_object_set_new(ll, "access_fs", fs);
	json_object_set_new(ll, "access_net", net);
	json_object_set_new(ll, "scoped", sc);
	int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	json_t *root = json_pack("{s:s, s:s, s:o, s:{s:b, s:s}, s:b, s:i, s:I}",
		"version", SB_VERSION, "kernel", h->release, "landlock", ll,
		"seccomp", "filter", h->seccomp, "error", h->seccomp ? "" : strerror(h->seccomp_errno),
		"no_new_privs", nnp == 1, "uid", (int)getuid(),
		"capabilities_permitted", (json_int_t)h->cap_permitted);
	json_object_set_new(root, "libraries", json_pack("{s:s, s:s, s:s, s:s}",
		"libseccomp", DEP_LIBSECCOMP_VERSION, "libcap-ng", DEP_LIBCAPNG_VERSION,
		"jansson", DEP_JANSSON_VERSION, "musl", DEP_MUSL_VERSION));
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s)
		return 125;
	puts(s);
	free(s);
	return fflush(stdout) == 0 ? 0 : 125;
}

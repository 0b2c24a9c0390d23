/* Capability layer (libcap-ng): clear every set — effective, permitted,
 * inheritable, ambient, bounding — but the kept ones, lock the securebits
 * so uid 0 regains nothing on execve, then set no_new_privs.
 * capabilities(7); REFERENCE.md "Capabilities and process state". */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "../policy/names.h"
#include "shim.h"

/* Drop every capability but the kept ones from the bounding set, one
 * PR_CAPBSET_DROP each, up to the last one this kernel knows (EINVAL
 * beyond it).  This is the loop capng_apply(CAPNG_SELECT_BOUNDS) runs, done
 * here because libcap-ng wraps it in three reads of /proc/self/status
 * (about 25 us each here, a tenth of an exec) to learn what the kernel
 * tells PR_CAPBSET_DROP anyway.  The kernel checks CAP_SETPCAP in the
 * effective set before anything else (security/commoncap.c,
 * cap_prctl_drop), so EPERM on the first call means the shim does not hold
 * it: *held = false and nothing changed.  Returns 0 or -1 (errno). */
static int drop_bounding(uint64_t keep, bool *held)
{
	bool first = true;
	*held = true;
	for (unsigned c = 0; c < 64; c++) {
		if (keep & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) == 0) {
			first = false;
			continue;
		}
		if (errno == EINVAL) /* past CAP_LAST_CAP of this kernel */
			return 0;
		if (errno == EPERM && first) {
			*held = false;
			return 0;
		}
		return -1;
	}
	return 0;
}

/* The error for a kept capability libcap-ng refused: named as the
 * profile wrote it, ".capabilities[i]" and its CAP_ name. */
static int keep_failed(const struct profile *p, int c, struct sb_err *err)
{
	char where[64] = ".capabilities", name[64];
	for (size_t i = 0; i < p->ncaps; i++)
		if (p->caps[i] == c) {
			snprintf(where, sizeof where, ".capabilities[%zu]", i);
			break;
		}
	cap_name(c, name, sizeof name);
	return sb_fail(err, where, NULL, "cannot keep %s: libcap-ng refused to add it to the sets", name);
}

int caps_apply(struct run *r, struct sb_err *err)
{
	uint64_t keep = r->plan->keep_caps;
	/* The sets libcap-ng will write: everything cleared but the kept
	 * capabilities, kept across execve through the ambient set (with
	 * NOROOT locked, uid 0 no longer gets the bounding set back). */
	capng_clear(CAPNG_SELECT_ALL);
	for (int c = 0; c < 64; c++) {
		if (!(keep & (1ULL << c)))
			continue;
		if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED |
				 CAPNG_INHERITABLE | CAPNG_BOUNDING_SET | CAPNG_AMBIENT,
				 (unsigned)c) < 0)
			return keep_failed(r->prof, c, err);
	}
	/* Dropping the bounding set and locking securebits both need
	 * CAP_SETPCAP, so they happen before it is dropped itself. */
	bool setpcap;
	if (drop_bounding(keep, &setpcap) < 0)
		return sb_fail(err, NULL, NULL, "dropping the capability bounding set failed: %s", strerror(errno));
	if (setpcap) {
		if (capng_lock() < 0)
			return sb_fail(err, NULL, NULL, "locking securebits failed: %s", strerror(errno));
		/* capng_lock leaves KEEP_CAPS unlocked; lock it off so a later
		 * setuid() cannot keep capabilities either. */
		int sb = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (sb < 0 || prctl(PR_SET_SECUREBITS, (unsigned long)sb | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) < 0)
			return sb_fail(err, NULL, NULL, "locking securebits failed: %s", strerror(errno));
	}
	/* Without CAP_SETPCAP the bounding set cannot shrink; with no
	 * permitted capabilities and no_new_privs nothing can be gained from
	 * it on execve.  Effective, permitted, inheritable, then ambient
	 * (raising an ambient capability needs it permitted and
	 * inheritable first), as capng_apply(CAPNG_SELECT_ALL) orders them. */
	if (capng_apply(CAPNG_SELECT_CAPS) < 0 ||
	    capng_apply(CAPNG_SELECT_AMBIENT) < 0)
		return sb_fail(err, NULL, NULL, "dropping capabilities failed: %s", strerror(errno));
	/* Permanent, inherited, survives execve; disables setuid bits and file
	 * capabilities; required by Landlock restrict_self without
	 * CAP_SYS_ADMIN. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sb_fail(err, NULL, NULL, "setting no_new_privs failed: %s", strerror(errno));
	return 0;
}

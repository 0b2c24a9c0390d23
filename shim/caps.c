/* Capability layer (libcap-ng): clear every set — effective, permitted,
 * inheritable, ambient, bounding — but the kept ones, lock the securebits
 * so uid 0 regains nothing on execve, then set no_new_privs.
 * capabilities(7); REFERENCE.md "Capabilities and process state". */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/prctl.h>

#include "shim.h"

int caps_apply(struct run *r, struct sb_err *err)
{
	if (capng_get_caps_process() < 0)
		return sb_fail(err, NULL, NULL, "reading this process's capabilities failed");
	/* Dropping the bounding set and locking securebits both need
	 * CAP_SETPCAP, so they happen before it is dropped itself. */
	bool setpcap = capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(CAPNG_SELECT_ALL);
	for (int c = 0; c < 64; c++) {
		if (!(r->plan->keep_caps & (1ULL << c)))
			continue;
		/* Kept across execve through the ambient set: with NOROOT
		 * locked, uid 0 no longer gets the bounding set back. */
		if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED |
				 CAPNG_INHERITABLE | CAPNG_BOUNDING_SET | CAPNG_AMBIENT,
				 (unsigned)c) < 0)
			return sb_fail(err, ".capabilities", NULL, "cannot keep capability %d", c);
	}
	if (setpcap) {
		if (capng_lock() < 0)
			return sb_fail(err, NULL, NULL, "locking securebits failed: %s", strerror(errno));
		/* capng_lock leaves KEEP_CAPS unlocked; lock it off so a later
		 * setuid() cannot keep capabilities either. */
		int sb = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (sb < 0 || prctl(PR_SET_SECUREBITS, (unsigned long)sb | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) < 0)
			return sb_fail(err, NULL, NULL, "locking securebits failed: %s", strerror(errno));
		if (capng_apply(CAPNG_SELECT_ALL) < 0)
			return sb_fail(err, NULL, NULL, "dropping capabilities failed: %s", strerror(errno));
	} else {
		/* Without CAP_SETPCAP the bounding set cannot shrink; with no
		 * permitted capabilities and no_new_privs nothing can be gained
		 * from it on execve. */
		if (capng_apply(CAPNG_SELECT_CAPS) < 0 ||
		    capng_apply(CAPNG_SELECT_AMBIENT) < 0)
			return sb_fail(err, NULL, NULL, "dropping capabilities failed: %s", strerror(errno));
	}
	/* Permanent, inherited, survives execve; disables setuid bits and file
	 * capabilities; required by Landlock restrict_self without
	 * CAP_SYS_ADMIN. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sb_fail(err, NULL, NULL, "setting no_new_privs failed: %s", strerror(errno));
	return 0;
}

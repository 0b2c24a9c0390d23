/* Landlock layer: one ruleset with filesystem and network rights together,
 * every rule path opened (O_PATH) and added before anything irreversible,
 * then restrict_self. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

/* Size of the ruleset attr the running ABI knows (see sys.h). */
static size_t attr_size(int abi)
{
	return abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
}

int landlock_prepare(struct run *r, struct sb_err *err)
{
	struct plan *pl = r->plan;
	r->ruleset_fd = -1;
	if (!pl->landlock)
		return 0;
	/* The ruleset first, then each path opened, added and closed in
	 * turn: one descriptor at a time, so a profile of thousands of paths
	 * does not run into RLIMIT_NOFILE (EMFILE would skip its rules).
	 * Nothing here is irreversible yet; restrict_self comes later. */
	struct sb_ruleset_attr attr = {pl->handled_fs, pl->handled_net, pl->scoped};
	int rs = sb_landlock_create_ruleset(&attr, attr_size(pl->abi), 0);
	if (rs < 0)
		return sb_fail(err, NULL, NULL, "Landlock ruleset (ABI %d) refused by the kernel: %s", pl->abi, strerror(errno));
	r->ruleset_fd = rs;
	for (size_t i = 0; i < pl->nrules; i++) {
		struct ll_path_rule *ru = &pl->rules[i];
		if (ru->open_check) {
			/* A device that cannot really be opened (no terminal:
			 * /dev/tty → ENXIO) is skipped, never fatal. */
			int t = open(ru->path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			if (t < 0) {
				sb_say("notice: %s \"%s\": skipped: %s", ru->where, ru->path, strerror(errno));
				continue;
			}
			close(t);
		}
		/* tmp (and any rule the shim created) must not be a symlink:
		 * O_NOFOLLOW; other paths are canonical already.  O_DIRECTORY:
		 * the kind may have changed since fit() looked, and a directory
		 * right on a file would make add_rule fail. */
		int fl = O_PATH | O_CLOEXEC | (ru->is_dir ? O_DIRECTORY : 0) |
			 (ru->create_dir || strcmp(ru->where, ".tmp") == 0 ? O_NOFOLLOW : 0);
		int fd = open(ru->path, fl);
		if (fd < 0 && errno == ENOTDIR && ru->is_dir)
			return sb_fail(err, ru->where, ru->path, "changed from a directory to a file while the sandbox was set up");
		if (fd < 0) {
			if (strcmp(ru->where, ".writable[0]") == 0 || strcmp(ru->where, ".tmp") == 0)
				return sb_fail(err, ru->where, ru->path, "%s", strerror(errno));
			sb_say("notice: %s \"%s\": skipped: %s", ru->where, ru->path, strerror(errno));
			continue;
		}
		struct sb_path_beneath_attr pb = {ru->access, fd};
		int rc = sb_landlock_add_rule(rs, LL_RULE_PATH_BENEATH, &pb, 0);
		int e = errno;
		close(fd);
		if (rc < 0)
			return sb_fail(err, ru->where, ru->path, "Landlock rule refused by the kernel: %s", strerror(e));
	}
	for (size_t i = 0; i < pl->nports; i++) {
		struct sb_net_port_attr np = {pl->ports[i].access, pl->ports[i].port};
		if (sb_landlock_add_rule(rs, LL_RULE_NET_PORT, &np, 0) < 0)
			return sb_fail(err, NULL, NULL, "Landlock port rule %u refused by the kernel: %s",
				       pl->ports[i].port, strerror(errno));
	}
	return 0;
}

int landlock_apply(struct run *r, struct sb_err *err)
{
	if (r->ruleset_fd < 0)
		return 0;
	/* Needs no_new_privs (set by caps_apply) or CAP_SYS_ADMIN; applies to
	 * this thread only before ABI 8 — the shim never starts threads. */
	if (sb_landlock_restrict_self(r->ruleset_fd, 0) < 0)
		return sb_fail(err, NULL, NULL, "Landlock restrict_self failed: %s%s", strerror(errno),
			       errno == E2BIG ? " (16 nested Landlock layers already: is this already inside many sandboxes?)" : "");
	close(r->ruleset_fd);
	r->ruleset_fd = -1;
	return 0;
}

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

/* How a rule's path is opened: a failure is fatal (the workspace, tmp)
 * rather than a notice; no symlink may stand there (tmp, and any path the
 * shim created: O_NOFOLLOW; other paths are canonical already). */
enum { MUST_OPEN = 1, NO_FOLLOW = 2 };
static unsigned open_flags(const struct ll_path_rule *ru)
{
	bool tmp = strcmp(ru->where, ".tmp") == 0;
	return (tmp || strcmp(ru->where, ".writable[0]") == 0 ? MUST_OPEN : 0) |
	       (tmp || ru->create_dir ? NO_FOLLOW : 0);
}

static int by_path(const void *a, const void *b)
{
	const struct ll_path_rule *x = *(const struct ll_path_rule *const *)a;
	const struct ll_path_rule *y = *(const struct ll_path_rule *const *)b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x > y) - (x < y); /* ties in plan order */
}

/* Rules on one path are one rule to Landlock (a second rule on an inode
 * ORs its rights into the first: security/landlock/ruleset.c, insert_rule),
 * and the defaults make many — readable and executable both hold "/", so
 * each entry of "/" comes twice.  Merge them before opening: one open and
 * one add_rule per path.  acc[i] is the union for the first rule of a
 * path (in plan order), 0 for the ones merged into it; how[i] the union
 * of their open_flags().  Both arrays malloc'd (caller frees). */
static void merge_same_path(const struct plan *pl, uint64_t **acc, unsigned **how)
{
	size_t n = pl->nrules;
	const struct ll_path_rule **v = xmalloc((n ? n : 1) * sizeof *v);
	*acc = xcalloc(n ? n : 1, sizeof **acc);
	*how = xcalloc(n ? n : 1, sizeof **how);
	for (size_t i = 0; i < n; i++)
		v[i] = &pl->rules[i];
	qsort(v, n, sizeof *v, by_path);
	/* One pass over each run of equal paths: the first rule of each kind
	 * in the run (at most 8 kinds) takes the others' rights, so a profile
	 * repeating one path many times stays linear. */
	for (size_t start = 0; start < n;) {
		size_t end = start + 1;
		while (end < n && strcmp(v[end]->path, v[start]->path) == 0)
			end++;
		const struct ll_path_rule *first[8] = {0};
		for (size_t i = start; i < end; i++) {
			unsigned kind = (unsigned)v[i]->is_dir | (unsigned)v[i]->open_check << 1 |
					(unsigned)v[i]->create_dir << 2;
			if (!first[kind])
				first[kind] = v[i];
			size_t k = (size_t)(first[kind] - pl->rules);
			(*acc)[k] |= v[i]->access;
			(*how)[k] |= open_flags(v[i]);
		}
		start = end;
	}
	free(v);
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
	uint64_t *acc;
	unsigned *how;
	merge_same_path(pl, &acc, &how);
	int rc = 0;
	for (size_t i = 0; i < pl->nrules && !rc; i++) {
		struct ll_path_rule *ru = &pl->rules[i];
		if (!acc[i])
			continue; /* merged into an earlier rule on this path */
		if (ru->open_check) {
			/* A device that cannot really be opened (no terminal:
			 * /dev/tty → ENXIO) is skipped, never fatal. */
			int t = open(ru->path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			if (t < 0) {
				if (!ru->quiet)
					sb_say("notice: %s \"%s\": skipped: %s", ru->where, ru->path, strerror(errno));
				continue;
			}
			close(t);
		}
		/* O_DIRECTORY: the kind may have changed since fit() looked,
		 * and a directory right on a file would make add_rule fail.  No
		 * O_CLOEXEC: closed right after add_rule (musl would add an
		 * fcntl per path for it). */
		/* open_path(): no symlink inside a writable tree is followed,
		 * so the rule lands on what fit() checked (a sibling swapped
		 * for a link to ~/.ssh between the two would otherwise be
		 * granted there); tmp must be the directory checked at step 0. */
		int fl = (ru->is_dir ? O_DIRECTORY : 0) | (how[i] & NO_FOLLOW ? O_NOFOLLOW : 0);
		char link[4096] = "";
		bool tmp = strcmp(ru->where, ".tmp") == 0;
		int fd = tmp ? proc_tmp_open(r, ru->path, ru->where, fl, err)
			     : open_path(&pl->trees, ru->path, fl, link, sizeof link);
		int e = fd < 0 ? -fd : 0;
		if (tmp && fd < 0) {
			rc = -1; /* (err filled) */
		} else if (fd < 0 && e == ELOOP && link[0]) {
			rc = open_path_fail(err, ru->where, ru->path, e, link);
		} else if (fd < 0 && e == ENOTDIR && ru->is_dir) {
			rc = sb_fail(err, ru->where, ru->path, "changed from a directory to a file while the sandbox was set up");
		} else if (fd < 0 && (how[i] & MUST_OPEN)) {
			rc = sb_fail(err, ru->where, ru->path, "%s", strerror(e));
		} else if (fd < 0) {
			sb_say("notice: %s \"%s\": skipped: %s", ru->where, ru->path, strerror(e));
		} else {
			struct sb_path_beneath_attr pb = {acc[i], fd};
			if (sb_landlock_add_rule(rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
				rc = sb_fail(err, ru->where, ru->path, "Landlock rule refused by the kernel: %s", strerror(errno));
			close(fd);
		}
	}
	free(acc);
	free(how);
	if (rc)
		return rc;
	for (size_t i = 0; i < pl->nports; i++) {
		struct sb_net_port_attr np = {pl->ports[i].access, pl->ports[i].port};
		if (sb_landlock_add_rule(rs, LL_RULE_NET_PORT, &np, 0) < 0)
			return sb_fail(err, pl->ports[i].where, NULL, "Landlock rule for port %u refused by the kernel: %s",
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

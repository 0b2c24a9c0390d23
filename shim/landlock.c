/* Landlock layer: one ruleset with filesystem and network rights together,
 * every rule path opened (O_PATH) and added before anything irreversible,
 * then restrict_self. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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
static unsigned open_flags(const struct plan *pl, const struct ll_path_rule *ru)
{
	bool tmp = plan_rule_from(pl, ru, ".tmp");
	bool workspace = ru->entry == 0 && plan_rule_in_list(ru, ".writable");
	return (tmp || workspace ? MUST_OPEN : 0) |
	       (tmp || ru->create_dir ? NO_FOLLOW : 0);
}

static uint32_t path_hash(const char *s, unsigned kind)
{
	uint32_t h = 2166136261u ^ kind; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Rules on one path are one rule to Landlock (a second rule on an inode
 * ORs its rights into the first: security/landlock/ruleset.c, insert_rule),
 * and the defaults make many — readable and executable both hold "/", so
 * each entry of "/" comes twice.  Merge them before opening: one open and
 * one add_rule per path.  acc[i] is the union for the first rule of a
 * path and kind (in plan order), 0 for the ones merged into it; how[i] the
 * union of their open_flags().  One pass with a hash table of rule
 * numbers (at most half full): no sort of the paths, whose long common
 * prefixes made it most of the planning time at 10,000 paths.  The
 * first rule takes a kept descriptor of one merged into it when it has
 * none (a writable tree reached through a symlink, also readable by its
 * canonical name).  Both arrays malloc'd (caller frees). */
static void merge_same_path(struct plan *pl, uint64_t **acc, unsigned **how)
{
	size_t n = pl->nrules, cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	uint32_t *idx = xcalloc(cap, sizeof *idx);
	*acc = xcalloc(n ? n : 1, sizeof **acc);
	*how = xcalloc(n ? n : 1, sizeof **how);
	for (size_t i = 0; i < n; i++) {
		const struct ll_path_rule *ru = &pl->rules[i];
		unsigned kind = (unsigned)ru->is_dir | (unsigned)ru->open_check << 1 |
				(unsigned)ru->create_dir << 2;
		size_t j = path_hash(ru->path, kind) & (cap - 1);
		for (;; j = (j + 1) & (cap - 1)) {
			if (!idx[j]) {
				idx[j] = (uint32_t)i + 1;
				break;
			}
			const struct ll_path_rule *f = &pl->rules[idx[j] - 1];
			if (f->is_dir == ru->is_dir && f->open_check == ru->open_check &&
			    f->create_dir == ru->create_dir && strcmp(f->path, ru->path) == 0)
				break;
		}
		size_t k = idx[j] - 1;
		(*acc)[k] |= ru->access;
		(*how)[k] |= open_flags(pl, ru);
		if (pl->rules[k].fd < 0)
			pl->rules[k].fd = ru->fd;
	}
	free(idx);
}

static int landlock_rules(struct run *r, struct sb_err *err);

static int by_mount_path(const void *a, const void *b)
{
	return strcmp((*(const struct mount_rule *const *)a)->path,
		      (*(const struct mount_rule *const *)b)->path);
}

/* The plan's mounts sorted by path (malloc'd, caller frees), for
 * kept_valid(): a lookup per directory above a rule path, not a scan of
 * every mount per rule. */
static const struct mount_rule **mounts_by_path(const struct plan *pl)
{
	const struct mount_rule **m = xmalloc((pl->nmounts + 1) * sizeof *m);
	for (size_t i = 0; i < pl->nmounts; i++)
		m[i] = &pl->mounts[i];
	qsort(m, pl->nmounts, sizeof *m, by_mount_path);
	return m;
}

/* True when canonical `path` in the final mount tree is the inode fit()
 * resolved before the namespaces were made, so the descriptor kept then
 * (ll_path_rule.fd) may carry its rule: Landlock rules belong to inodes
 * (security/landlock/fs.c, get_inode_object), and a mount that replaces
 * the path or a directory above it (a view, a mask, the private /tmp or
 * /dev/shm) puts another inode there — the private /tmp must get the
 * rule, not the host's /tmp under it.  The deepest mount at or above
 * `path` decides: none, or one that binds the same tree (pin, read-only
 * bind, kept tree, writable tree, the read-only root) keeps the inode.
 * /dev and /proc are always opened again: the shim mounts there outside
 * the plan (a devpts instance and its ptmx, the PID namespace's /proc). */
static bool kept_valid(const struct run *r, const struct mount_rule **m,
		       const char *path)
{
	const struct plan *pl = r->plan;
	if (!pl->mount_ns)
		return true;
	if (path_within(path, "/dev") || path_within(path, "/proc"))
		return false;
	char up[4096];
	if (strlen(path) >= sizeof up)
		return false;
	strcpy(up, path);
	for (;;) {
		struct mount_rule key = {.path = up};
		const struct mount_rule *kp = &key;
		const struct mount_rule **hit = bsearch(&kp, m, pl->nmounts, sizeof *m, by_mount_path);
		if (hit) {
			enum mount_op op = (*hit)->op;
			return op == MNT_PIN || op == MNT_RO_BIND || op == MNT_KEEP || op == MNT_RW ||
			       op == MNT_RO_ROOT;
		}
		char *slash = strrchr(up, '/');
		if (!slash || (slash == up && !up[1]))
			return true; /* "/" done: no mount above */
		slash[slash == up] = 0;
	}
}

/* Descriptors opened for one rule each, closed together (close_set: one
 * close_range per run of consecutive numbers, as they come the lowest
 * free one each time), at most LATER_MAX open at once. */
#define LATER_MAX 64
struct later {
	int fd[LATER_MAX];
	size_t n;
};

static void later_close(struct later *l, int fd)
{
	if (l->n == LATER_MAX) {
		close_set(l->fd, l->n);
		l->n = 0;
	}
	l->fd[l->n++] = fd;
}

int landlock_prepare(struct run *r, struct sb_err *err)
{
	int rc = landlock_rules(r, err);
	/* the descriptors fit() kept have served (or a rule failed and the
	 * shim stops): closed before anything forks a process that stays */
	fsview_release(&r->fsr);
	return rc;
}

static int landlock_rules(struct run *r, struct sb_err *err)
{
	struct plan *pl = r->plan;
	r->ruleset_fd = -1;
	if (!pl->landlock)
		return 0;
	/* The ruleset first, then each rule added with the descriptor fit()
	 * kept for its path (shim/fsview.c: held within RLIMIT_NOFILE), or
	 * its path opened, added and closed in turn: never more descriptors
	 * than the limit allows (EMFILE would skip rules).  Nothing here is
	 * irreversible yet; restrict_self comes later. */
	struct sb_ruleset_attr attr = {pl->handled_fs, pl->handled_net, pl->scoped};
	int rs = sb_landlock_create_ruleset(&attr, attr_size(pl->abi), 0);
	if (rs < 0)
		return sb_fail(err, NULL, NULL, "Landlock ruleset (ABI %d) refused by the kernel: %s", pl->abi, strerror(errno));
	r->ruleset_fd = rs;
	uint64_t *acc;
	unsigned *how;
	merge_same_path(pl, &acc, &how);
	const struct mount_rule **mounts = mounts_by_path(pl);
	struct later lc = {.n = 0};
	int rc = 0;
	for (size_t i = 0; i < pl->nrules && !rc; i++) {
		struct ll_path_rule *ru = &pl->rules[i];
		if (!acc[i])
			continue; /* merged into an earlier rule on this path */
		if (ru->open_check) {
			/* A device that cannot really be opened (no terminal:
			 * /dev/tty → ENXIO) is skipped, never fatal. */
			int t = open(ru->path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			if (t < 0 && !ru->quiet) {
				char wb[PLAN_WHERE_MAX];
				sb_say("notice: %s \"%s\": skipped: %s", plan_rule_where(pl, ru, wb, sizeof wb), ru->path, strerror(errno));
			}
			if (t < 0)
				continue;
			close(t);
		}
		/* Opened here: O_DIRECTORY, as the kind may have changed since
		 * fit() looked, and a directory right on a file would make
		 * add_rule fail. */
		/* open_path(): no symlink inside a writable tree is followed,
		 * so the rule lands on what fit() checked (a sibling swapped
		 * for a link to ~/.ssh between the two would otherwise be
		 * granted there); tmp must be the directory checked at step 0. */
		int fl = (ru->is_dir ? O_DIRECTORY : 0) | (how[i] & NO_FOLLOW ? O_NOFOLLOW : 0);
		/* (not "= {0}": 4 KiB zeroed per rule showed at 10,000 rules) */
		char link[4096];
		link[0] = 0;
		bool tmp = plan_rule_from(pl, ru, ".tmp");
		/* the location, rendered for a message only */
		char wb[PLAN_WHERE_MAX];
		const char *where = tmp ? ".tmp" : NULL;
		/* The descriptor fit() resolved the path with (no symlink on
		 * the way at all, so none inside a writable tree): the rule
		 * lands on the very inode checked, with no second lookup.  Not
		 * for tmp (checked against proc_tmp_prepare's directory), nor
		 * when the kind differs from the rule's, nor where a mount put
		 * another inode on the path. */
		int kept = tmp || (how[i] & NO_FOLLOW) ? -1 : ru->fd;
		if (kept >= 0 && !kept_valid(r, mounts, ru->path))
			kept = -1;
		int fd = kept >= 0 ? kept : tmp ? proc_tmp_open(r, ru->path, where, fl, err)
			     : open_path(&pl->trees, ru->path, fl, link, sizeof link);
		int e = fd < 0 ? -fd : 0;
		if (fd < 0)
			where = plan_rule_where(pl, ru, wb, sizeof wb);
		if (tmp && fd < 0) {
			rc = -1; /* (err filled) */
		} else if (fd < 0 && e == ELOOP && link[0]) {
			rc = open_path_fail(err, where, ru->path, e, link);
		} else if (fd < 0 && e == ENOTDIR && ru->is_dir) {
			rc = sb_fail(err, where, ru->path, "changed from a directory to a file while the sandbox was set up");
		} else if (fd < 0 && (how[i] & MUST_OPEN)) {
			rc = sb_fail(err, where, ru->path, "%s", strerror(e));
		} else if (fd < 0) {
			sb_say("notice: %s \"%s\": skipped: %s", where, ru->path, strerror(e));
		} else {
			struct sb_path_beneath_attr pb = {acc[i], fd};
			if (sb_landlock_add_rule(rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
				rc = sb_fail(err, plan_rule_where(pl, ru, wb, sizeof wb), ru->path,
					     "Landlock rule refused by the kernel: %s", strerror(errno));
			if (fd != kept)
				later_close(&lc, fd); /* (the kept ones: fsview_release) */
		}
	}
	close_set(lc.fd, lc.n);
	free(mounts);
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

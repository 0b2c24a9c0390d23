/* exec layer: look COMMAND up on the final environment's PATH (like
 * execvp, never through a shell) and become it.  On failure say whether
 * the profile or the file itself is why (env(1) exit codes 126/127). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shim.h"

/* Value of variable `name` in `env` (borrowed), or NULL. */
static const char *env_get(const struct strvec *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (env_entry_is(env->v[i], name, n))
			return env->v[i] + n + 1;
	return NULL;
}

/* Why execve(path) gave EACCES: the file mode, the mount, or the profile. */
static int explain_eacces(struct run *r, const char *path, struct sb_err *err)
{
	struct stat st;
	struct statvfs vfs;
	char canon[PATH_MAX];
	if (stat(path, &st) < 0)
		return sb_fail(err, NULL, path, "cannot execute: %s", strerror(EACCES));
	if (S_ISDIR(st.st_mode))
		return sb_fail(err, NULL, path, "cannot execute: is a directory");
	if (!S_ISREG(st.st_mode))
		return sb_fail(err, NULL, path, "cannot execute: not a regular file");
	if (access(path, X_OK) < 0)
		return sb_fail(err, NULL, path, "cannot execute: the file mode (%04o) does not allow it, not the profile",
			       (unsigned)(st.st_mode & 07777));
	if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC))
		return sb_fail(err, NULL, path, "cannot execute: its filesystem is mounted noexec, not the profile");
	if (!realpath(path, canon))
		snprintf(canon, sizeof canon, "%s", path);
	for (size_t i = 0; r->plan->landlock && i < r->plan->nrules; i++) {
		const struct ll_path_rule *ru = &r->plan->rules[i];
		if ((ru->access & LL_FS_EXECUTE) && path_within(canon, ru->path)) {
			char wb[PLAN_WHERE_MAX];
			return sb_fail(err, ".executable", path, "Landlock refused execute although the file is inside %s (\"%s\"); its interpreter or dynamic loader may lie outside the profile's executable trees",
				       plan_rule_where(r->plan, ru, wb, sizeof wb), ru->path);
		}
	}
	return sb_fail(err, ".executable", path, "cannot execute: the file is not inside the profile's executable trees (Landlock refused execute; the file mode allows it)");
}

int exec_command(struct run *r, struct sb_err *err)
{
	const char *cmd = r->argv[0];
	char *const *envp = r->env.v ? r->env.v : (char *[]){NULL};
	if (strchr(cmd, '/')) {
		execve(cmd, r->argv, envp);
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			return sb_fail(err, NULL, cmd, "command not found: %s", strerror(e)), 127;
		if (e == EACCES)
			return explain_eacces(r, cmd, err), 126;
		return sb_fail(err, NULL, cmd, "cannot execute: %s", strerror(e)), 126;
	}
	const char *path = env_get(&r->env, "PATH");
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin"; /* execvp's default */
	char *denied = NULL;
	int other = 0;
	char *other_path = NULL;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char *full = end == p ? xasprintf("./%s", cmd)
				      : xasprintf("%.*s/%s", (int)(end - p), p, cmd);
		execve(full, r->argv, envp);
		int e = errno;
		if (e == EACCES && !denied) {
			denied = full;
		} else if (e != ENOENT && e != ENOTDIR && e != EACCES && !other) {
			other = e;
			other_path = full;
			break;
		} else {
			free(full);
		}
		if (!*end)
			break;
		p = end;
	}
	if (other)
		return sb_fail(err, NULL, other_path, "cannot execute: %s", strerror(other)), 126;
	if (denied)
		return explain_eacces(r, denied, err), 126;
	return sb_fail(err, NULL, cmd, "command not found on PATH (%s)", path), 127;
}

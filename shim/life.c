/* Lifetime layer: who ends the sandbox, and how its end is reported.
 *
 *  - die_with_parent follows the parent *process*: PR_SET_PDEATHSIG fires
 *    when the thread that forked the shim exits (a Python thread pool, or
 *    asyncio.to_thread, spawning a server), so the shim watches a pidfd of
 *    the parent instead, which polls readable only once every thread of it
 *    has exited (kernel/pid.c pidfd_poll; pidfd_open is Linux 5.3).
 *    Without no_survivors the shim becomes the command, so the watcher is
 *    a separate process, double-forked (not the command's child: nothing
 *    to reap), in its own session (no terminal signals), holding nothing
 *    but two pidfds, confined to poll, kill and exit.
 *  - no_survivors: the shim stays outside as a supervisor (the caller's
 *    child, with the caller's pid for the sandbox) and forks.  With a PID
 *    namespace the child is its pid 1, a minimal init confined like the
 *    command, which forks the command as pid 2, reaps orphans and ends
 *    the namespace when the command ends (the kernel then SIGKILLs every
 *    process left in it: zap_pid_ns_processes).  Without one the
 *    supervisor is a subreaper (PR_SET_CHILD_SUBREAPER, Linux 3.4) and
 *    kills the descendants left when the command ends.
 *
 * Signals the supervisor receives are forwarded (FORWARDED below) unless
 * the kernel sent them (SI_KERNEL: the terminal's Ctrl-C, Ctrl-\, resize
 * and hang-up go to the whole foreground process group, the command
 * included).  The command's exit status comes back exactly: a code as
 * that code, a death by signal N as a death by N (core dumps not
 * repeated). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim.h"
#include "sys.h"

/* What the supervisor passes on to the command (DESIGN.md; job control
 * signals are left to their default: the supervisor stops with the
 * terminal's Ctrl-Z, so a shell sees its job stop). */
static const int FORWARDED[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
				SIGUSR2, SIGWINCH, SIGCONT};
/* sigqueue() value marking a signal the supervisor forwarded to the
 * init: the init passes on only those (a signal sent to the whole
 * process group reaches the init too, and must not reach the command a
 * second time through it). */
#define FORWARD_COOKIE 0x5b0f1de5

static void forwarded_set(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < sizeof FORWARDED / sizeof FORWARDED[0]; i++)
		sigaddset(s, FORWARDED[i]);
	sigaddset(s, SIGCHLD);
}

/* Close every descriptor above 2 but the n (at most 3) in keep[] (any
 * order; below 3: ignored): one close_range per gap (Linux 5.9; before,
 * one close each, up to the soft RLIMIT_NOFILE, at most 65536).  Raw
 * system calls only, so the die_with_parent watcher can call it beside
 * the shim (shim/sys.h) as well as the supervisor and the init. */
SB_BESIDE static void close_except(const int *keep, int n)
{
	int k[3] = {-1, -1, -1};
	for (int i = 0; i < n; i++)
		k[i] = keep[i];
	for (int i = 0; i < n; i++) /* sorted */
		for (int j = i + 1; j < n; j++)
			if (k[j] < k[i]) {
				int t = k[i];
				k[i] = k[j];
				k[j] = t;
			}
	long from = 3, max = -1;
	for (int i = 0; i <= n; i++) {
		if (i < n && k[i] < from)
			continue;
		long to = i < n ? (long)k[i] - 1 : (long)~0U;
		if (to >= from && sb_raw(__NR_close_range, from, to, 0, 0, 0) < 0) {
			if (max < 0) {
				struct rlimit rl;
				max = sb_raw(__NR_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl, 0) == 0 &&
						      rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
			}
			for (long fd = from; fd <= to && fd < max; fd++)
				sb_raw(__NR_close, fd, 0, 0, 0, 0);
		}
		if (i < n)
			from = (long)k[i] + 1;
	}
}

/* stdin, stdout and stderr onto /dev/null (closed if it cannot be
 * opened): a process that stays behind must not delay the parent's end
 * of file, nor keep a pipe's reader alive.  Raw system calls, like
 * close_except(). */
SB_BESIDE static void drop_stdio(void)
{
	long n = sb_raw(__NR_openat, AT_FDCWD, (long)"/dev/null", O_RDWR | O_CLOEXEC, 0, 0);
	for (long fd = 0; fd < 3; fd++) {
		if (n >= 0 && n != fd)
			sb_raw(__NR_dup3, n, fd, 0, 0, 0);
		else if (n < 0)
			sb_raw(__NR_close, fd, 0, 0, 0, 0);
	}
	if (n > 2)
		sb_raw(__NR_close, n, 0, 0, 0, 0);
}

/* End this process the way the command ended (wait status `st`): the
 * same exit code, or death by the same signal with core dumps off (the
 * command dumped its own core, if any; a second one of the shim would
 * land in the caller's directory). */
static _Noreturn void end_like(int st)
{
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	kill(getpid(), sig);
	_exit(128 + sig); /* (a signal whose default is not to terminate) */
}

/* Subreaper: SIGKILL every child until none is left.  A killed child's
 * own children are reparented here before it can be reaped (exit_notify),
 * so each round reaches one generation further; a process only escapes
 * by not being a descendant.  `proc`: a descriptor of /proc opened
 * before the sandbox's mounts (which may cover /proc). */
static void kill_descendants(int proc)
{
	pid_t me = getpid();
	for (int round = 0; round < 100000; round++) {
		int d = openat(proc, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *dir = d >= 0 ? fdopendir(d) : NULL;
		if (!dir) {
			if (d >= 0)
				close(d);
			/* no /proc: kill and reap what waitpid names */
			while (waitpid(-1, NULL, 0) > 0)
				;
			return;
		}
		pid_t kids[256];
		size_t n = 0;
		struct dirent *de;
		while ((de = readdir(dir)) && n < sizeof kids / sizeof kids[0]) {
			char path[300], buf[512];
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			snprintf(path, sizeof path, "%s/stat", de->d_name);
			int f = openat(proc, path, O_RDONLY | O_CLOEXEC);
			if (f < 0)
				continue;
			ssize_t len = read(f, buf, sizeof buf - 1);
			close(f);
			if (len <= 0)
				continue;
			buf[len] = 0;
			/* "pid (comm) S ppid": comm may hold spaces and ')' */
			char *rp = strrchr(buf, ')');
			int ppid;
			char state;
			if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == me)
				kids[n++] = (pid_t)atoi(de->d_name);
		}
		closedir(dir);
		for (size_t i = 0; i < n; i++)
			kill(kids[i], SIGKILL);
		for (size_t i = 0; i < n; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
		/* zombies that were not in the listing */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (n == 0)
			return;
	}
}

/* The supervisor: forwards signals to `child`, kills it when the parent
 * (pidfd `pfd`, -1 when not watched) has gone, and ends like the command.
 * `status`: the read end of the init's status pipe (PID namespace), -1
 * for a subreaper.  Never returns. */
static _Noreturn void supervise(pid_t child, int pfd, int status, int proc)
{
	sigset_t set;
	forwarded_set(&set);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		/* cannot forward nor reap: end the sandbox rather than lose it */
		kill(child, SIGKILL);
		_exit(125);
	}
	int st = 0;
	bool done = false;
	nfds_t nf = pfd >= 0 ? 2 : 1;
	while (!done) {
		struct pollfd f[2] = {{sfd, POLLIN, 0}, {pfd, POLLIN, 0}};
		if (poll(f, nf, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* cannot wait any more: end the sandbox, report its end */
			kill(child, SIGKILL);
			while (waitpid(child, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (nf == 2 && (f[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			/* die_with_parent: everything goes (a PID namespace with
			 * its init, a subreaper's descendants below); the pidfd
			 * stays readable, so it is not polled again */
			nf = 1;
			kill(child, SIGKILL);
		}
		struct signalfd_siginfo si;
		if (!(f[0].revents & POLLIN) || read(sfd, &si, sizeof si) != (ssize_t)sizeof si)
			continue;
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD) {
			pid_t w;
			int s;
			while ((w = waitpid(-1, &s, WNOHANG)) > 0)
				if (w == child) {
					st = s;
					done = true;
				}
			continue;
		}
		if (si.ssi_code == SI_KERNEL)
			continue; /* the terminal's: the command has it already */
		if (status >= 0) {
			union sigval v = {.sival_int = FORWARD_COOKIE};
			sigqueue(child, sig, v);
		} else {
			kill(child, sig);
		}
	}
	if (status >= 0) {
		/* the init's report of the command's wait status; none when
		 * it ended before starting the command (its own 125 and
		 * message then) */
		int cs;
		if (read(status, &cs, sizeof cs) == (ssize_t)sizeof cs)
			st = cs;
	} else {
		kill_descendants(proc);
	}
	end_like(st);
}

/* The fallback where no pidfd can be had: PR_SET_PDEATHSIG(SIGKILL),
 * which follows the thread that forked the shim (README "Known limits").
 * 0, or -1 with `err`. */
static int pdeathsig(struct sb_err *err)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return sb_fail(err, ".die_with_parent", NULL, "PR_SET_PDEATHSIG failed: %s", strerror(errno));
	return 0;
}

/* A pidfd of the parent seen at start into *fd, checked to be still our
 * parent after it was opened (a pid reused after the parent was reaped
 * would not be ours).  No pidfd (ENOSYS before Linux 5.3; EPERM from a
 * container runtime's seccomp profile older than the call): *fd = -1 and
 * the PDEATHSIG fallback.  0, or -1 with `err`. */
static int watch_open(const struct run *r, int *fd, struct sb_err *err)
{
	*fd = sb_pidfd_open(r->parent, 0);
	bool gone = *fd < 0 && errno == ESRCH;
	if (*fd < 0 && !gone && pdeathsig(err))
		return -1;
	if (gone || getppid() != r->parent) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return sb_fail(err, ".die_with_parent", NULL, "the parent (pid %d) exited before the command started", (int)r->parent);
	}
	return 0;
}

int life_split(struct run *r, struct sb_err *err)
{
	const struct profile *p = r->prof;
	r->life = LIFE_EXEC;
	r->status_fd = -1;
	if (!p->no_survivors)
		return 0;
	/* the supervisor reaps only its child: no other child of the shim
	 * may be left to it */
	ns_ahead_reap(r);
	r->life = r->host.pidns_made ? LIFE_PIDNS : LIFE_SUBREAPER;
	int pfd = -1;
	if (p->die_with_parent && watch_open(r, &pfd, err))
		return -1;
	int sp[2] = {-1, -1};
	if (r->life == LIFE_PIDNS && pipe2(sp, O_CLOEXEC) < 0)
		return sb_fail(err, ".no_survivors", NULL, "a pipe for the exit status: %s", strerror(errno));
	/* /proc as it is now, before mounts may cover it: the subreaper
	 * lists its children there */
	int proc = r->life == LIFE_SUBREAPER ? open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	/* A terminal in this session: the init and the command stay in
	 * this process group, which the terminal's signals and job control
	 * address.  None: their own group, so a signal to this one's whole
	 * group (killpg by the caller) reaches the command once, forwarded. */
	int tty = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	bool own_group = tty < 0 && !p->new_session;
	if (tty >= 0)
		close(tty);
	/* Blocked before the fork, so nothing sent meanwhile is lost: the
	 * supervisor reads them from a signalfd, the init with sigwaitinfo,
	 * and the command gets the original mask back before execve. */
	sigset_t set;
	forwarded_set(&set);
	sigprocmask(SIG_BLOCK, &set, &r->sigmask);
	if (r->life == LIFE_SUBREAPER && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return sb_fail(err, ".no_survivors", NULL, "PR_SET_CHILD_SUBREAPER failed: %s", strerror(errno));
	pid_t self = getpid();
	pid_t c = fork();
	if (c < 0)
		return sb_fail(err, ".no_survivors", NULL, "fork failed: %s", strerror(errno));
	if (c == 0) {
		if (pfd >= 0)
			close(pfd);
		if (proc >= 0)
			close(proc);
		if (sp[0] >= 0)
			close(sp[0]);
		r->status_fd = sp[1];
		r->supervisor = self;
		if (own_group)
			setpgid(0, 0);
		return 0;
	}
	if (sp[1] >= 0)
		close(sp[1]);
	/* Out of the way: no stdio (the parent's end of file comes when the
	 * sandbox's copies close), no other inherited descriptor, no
	 * working directory pinned. */
	if (chdir("/") < 0) {
		/* (a cwd that cannot be left only pins a directory) */
	}
	drop_stdio();
	close_except((int[]){pfd, sp[0] >= 0 ? sp[0] : proc}, 2);
	supervise(c, pfd, sp[0], proc);
}

/* The die_with_parent watcher shares the shim's memory (CLONE_VM) until
 * the shim's execve gives the command a memory of its own: making it
 * copies no page tables (a fork of the shim cost about 100 us of every
 * start, on the path to exec).  Until then it runs beside the shim on
 * its own stack (struct watch below, in a mapping the shim never
 * unmaps) and uses nothing of libc that writes: errno and every other
 * thread-local live in the shim's thread, so only raw system calls
 * (sb_raw, shim/sys.h), and no write to shared memory before the shim has gone. */
struct watch {
	int parent;      /* pidfd of the parent seen at start */
	int cmd;         /* pidfd of the shim, later the command */
	int execd;       /* read end of a pipe whose O_CLOEXEC write end the
			  * shim holds: EOF once it has exec'd or exited */
	char *args;      /* the argument area, blanked once it is ours alone */
	size_t args_len;
	char *stack;     /* top of the watcher's stack */
};
#define WATCH_MAP (64 * 1024)     /* bytes: struct watch, both stacks */

#define WATCH_MID_STACK (8 * 1024) /* the intermediate's, above the struct */

/* The watcher: the command's end ends it; the parent's end (pidfd
 * `parent`) kills the command (pidfd `cmd`). */
SB_BESIDE static int watcher(void *arg)
{
	const struct watch *w = arg;
	sb_raw(__NR_setsid, 0, 0, 0, 0, 0);
	sb_raw(__NR_prctl, PR_SET_NAME, (long)"__sandbox:watch", 0, 0, 0);
	sb_raw(__NR_chdir, (long)"/", 0, 0, 0, 0);
	drop_stdio();
	close_except((int[]){w->parent, w->cmd, w->execd}, 3);
	/* until the shim has exec'd (or exited) its memory is this one */
	char c;
	while (sb_raw(__NR_read, w->execd, (long)&c, 1, 0, 0) == -EINTR)
		;
	sb_raw(__NR_close, w->execd, 0, 0, 0, 0);
	/* /proc/PID/cmdline reads the argument area: no profile there (its
	 * paths would make this look like part of the run, which it is not
	 * for longer than the command) */
	if (w->args && w->args_len > sizeof "__sandbox:watch") {
		for (size_t i = 0; i < w->args_len; i++)
			w->args[i] = i < sizeof "__sandbox:watch" ? "__sandbox:watch"[i] : 0;
	}
	/* Nothing but waiting and one kill from here: a filter allowing
	 * only that (its own, since the sandbox's is not installed yet and
	 * would not apply anyway: this process never executes anything). */
#if defined(__x86_64__)
#define WATCH_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WATCH_ARCH AUDIT_ARCH_AARCH64
#endif
	struct sock_filter f[] = {
		/* another architecture's numbering (i386 through int 0x80,
		 * x32 with bit 30): killed */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WATCH_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ppoll, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_send_signal, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_restart_syscall, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
	/* (x32 numbers, bit 30 set, match none of the allowed ones) */
	if (sb_raw(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		sb_raw(__NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (long)&prog, 0, 0);
	for (;;) {
		struct pollfd p[2] = {{w->parent, POLLIN, 0}, {w->cmd, POLLIN, 0}};
		if (sb_raw(__NR_ppoll, (long)p, 2, 0, 0, 0) < 0)
			continue; /* EINTR: nothing is caught here, but be safe */
		if (p[1].revents)
			break;
		if (p[0].revents) {
			sb_raw(__NR_pidfd_send_signal, w->cmd, SIGKILL, 0, 0, 0);
			break;
		}
	}
	sb_raw(__NR_exit_group, 0, 0, 0, 0, 0);
	return 0; /* (not reached) */
}

/* The intermediate: makes the watcher and exits, so the watcher is
 * nobody's child here (not the command's: nothing for it to reap) —
 * init or a subreaper takes it.  It runs beside the shim, like the
 * watcher: musl's clone() writes errno only when it fails (then the
 * shim's, which reads it only after its own calls fail). */
SB_BESIDE static int watch_mid(void *arg)
{
	struct watch *w = arg;
	return clone(watcher, w->stack, CLONE_VM | SIGCHLD, w) < 0;
}

/* die_with_parent without no_survivors: start the watcher (or
 * PR_SET_PDEATHSIG where it cannot be had); life_watch_reap() reaps the
 * intermediate later, so making the watcher overlaps the shim's next
 * steps instead of adding to them. */
static int watch_parent(struct run *r, struct sb_err *err)
{
	int parent;
	if (watch_open(r, &parent, err))
		return -1;
	if (parent < 0)
		return 0;
	/* (failing to start the watcher — a pidfd refused, a mapping or a
	 * clone refused under small rlimits — falls back as well) */
	int cmd = sb_pidfd_open(getpid(), 0);
	int pp[2] = {-1, -1};
	char *map = cmd < 0 || pipe2(pp, O_CLOEXEC) < 0 ? MAP_FAILED
		: mmap(NULL, WATCH_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t a = -1;
	if (map != MAP_FAILED) {
		/* (the mapping stays: after the exec it is the watcher's alone) */
		struct watch *w = (struct watch *)(void *)map;
		*w = (struct watch){parent, cmd, pp[0], r->args, r->args_len, map + WATCH_MAP};
		a = clone(watch_mid, map + WATCH_MID_STACK, CLONE_VM | SIGCHLD, w);
	}
	close(parent);
	if (cmd >= 0)
		close(cmd);
	if (pp[0] >= 0)
		close(pp[0]);
	if (a < 0) {
		if (pp[1] >= 0)
			close(pp[1]);
		return pdeathsig(err);
	}
	/* the write end stays open, close-on-exec: the watcher's signal
	 * that the memory is its own */
	r->watch_mid = a;
	r->watch_execd = pp[1];
	return 0;
}

int life_watch_reap(struct run *r, struct sb_err *err)
{
	/* the shim's other helper too: the network namespace's maker */
	ns_ahead_reap(r);
	if (r->watch_mid <= 0)
		return 0;
	int st = 0;
	while (waitpid(r->watch_mid, &st, 0) < 0 && errno == EINTR)
		;
	r->watch_mid = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0; /* the watcher names a pidfd opened while the parent was still ours (watch_open) */
	close(r->watch_execd);
	r->watch_execd = -1;
	return pdeathsig(err);
}

int life_watch(struct run *r, struct sb_err *err)
{
	if (r->life == LIFE_EXEC)
		return r->prof->die_with_parent ? watch_parent(r, err) : 0;
	/* Under a supervisor, always: with it gone the sandbox could
	 * neither be stopped nor report its end.  Its only thread is the
	 * one that forked us, so PDEATHSIG means the process here.  Set
	 * after the user switch (which clears it), then checked: a
	 * supervisor gone already sent nothing. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return sb_fail(err, ".no_survivors", NULL, "PR_SET_PDEATHSIG failed: %s", strerror(errno));
	bool gone;
	if (r->life == LIFE_SUBREAPER) {
		gone = getppid() != r->supervisor;
	} else {
		/* pid 1 sees no parent pid: the status pipe's reader is gone */
		struct pollfd f = {r->status_fd, POLLOUT, 0};
		gone = poll(&f, 1, 0) == 1 && (f.revents & POLLERR);
	}
	if (gone)
		return sb_fail(err, ".no_survivors", NULL, "the shim's supervisor exited before the command started");
	return 0;
}

/* The init (pid 1 of the namespace): reaps every orphan, passes on what
 * the supervisor forwards, and reports the command's wait status when
 * it ends; its exit ends the namespace.  Runs confined like the command
 * (Landlock, seccomp, the final user), executes nothing. */
static _Noreturn void init_loop(int status, pid_t cmd)
{
	/* the caller's end of file must not wait for this process */
	close(0);
	close(1);
	close(2);
	close_except(&status, 1);
	sigset_t set;
	forwarded_set(&set);
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);
		if (sig < 0)
			continue;
		if (sig == SIGCHLD) {
			pid_t w;
			int st;
			while ((w = waitpid(-1, &st, WNOHANG)) > 0)
				if (w == cmd) {
					ssize_t n = write(status, &st, sizeof st);
					_exit(n == (ssize_t)sizeof st ? 0 : 125);
				}
			continue;
		}
		if (si.si_code == SI_QUEUE && si.si_value.sival_int == FORWARD_COOKIE)
			kill(cmd, sig);
	}
}

int life_exec(struct run *r, struct sb_err *err)
{
	if (r->life == LIFE_EXEC)
		return 0;
	if (r->life == LIFE_PIDNS) {
		pid_t g = fork();
		if (g < 0)
			return sb_fail(err, ".no_survivors", NULL, "starting the command under the init: fork failed: %s", strerror(errno));
		if (g > 0)
			init_loop(r->status_fd, g);
	}
	/* the command: the signal mask it would have had */
	sigprocmask(SIG_SETMASK, &r->sigmask, NULL);
	return 0;
}

/* Denial report (profile "denials"): one JSON line per system call the
 * seccomp filter refuses, written to an inherited descriptor by a small
 * listener process that is not part of the sandbox.
 *
 * How: the filter is loaded with every SECCOMP_RET_ERRNO turned into
 * SECCOMP_RET_USER_NOTIF (bpf_errno_to_notify) and a listener
 * (SECCOMP_FILTER_FLAG_NEW_LISTENER).  For each notification the listener
 * runs the original program on the notified seccomp_data (bpf_run) for
 * the errno the filter would have returned, answers with it, then writes
 * the line.  The command sees the same errno as without the report.
 *
 * Failing closed: a notification nobody answers because the listener is
 * gone fails with ENOSYS (kernel/seccomp.c seccomp_do_user_notification:
 * no listener → -ENOSYS; seccomp_notify_detach answers pending ones the
 * same), never runs; the listener never answers
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE.  A listener of the command's own is
 * refused by the filter (policy/filter.c), so none can answer for it.
 *
 * The listener: forked (twice: it is not a child of the command, which
 * keeps the shim's pid, and not in its session or process group) after
 * the namespaces and before Landlock, capabilities and seccomp, so it is
 * outside the Landlock domain (the signal scope keeps the command from
 * killing it) and not under the filter; it drops its capabilities, sets
 * no_new_privs and is not dumpable (no ptrace, no /proc/PID/mem from the
 * same uid).  It keeps only the report descriptor and the listener, not
 * stdin or stdout, nor stderr when that is a pipe or socket, which a
 * caller may read to their end before it reaps the command (serve()).  It exits when the filter has no users
 * left (POLLHUP, Linux 5.8). */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seccomp_bpf.h"
#include "shim.h"

#define QUEUE_BYTES 65536 /* lines waiting for a slow reader; beyond: counted as dropped */
#define DROPPED_RESERVE 64 /* of QUEUE_BYTES, kept for the last {"dropped":N} line */
#define LINE_MAX_BYTES 512
#define FLUSH_WAIT_MS 2000 /* at the end: how long a reader that takes nothing is waited for */

/* Lines waiting to be written, and what happened to the descriptor. */
struct report {
	int fd;
	char q[QUEUE_BYTES];
	size_t len;
	unsigned long dropped;
	bool broken; /* a write failed: nothing more is written */
};

static const char *arch_name(uint32_t a, char *buf, size_t n)
{
	switch (a) {
	case AUDIT_ARCH_X86_64: return "x86_64";
	case AUDIT_ARCH_I386: return "x86";
	case AUDIT_ARCH_AARCH64: return "aarch64";
	case AUDIT_ARCH_ARM: return "arm";
	case AUDIT_ARCH_RISCV64: return "riscv64";
	case AUDIT_ARCH_PPC64LE: return "ppc64le";
	case AUDIT_ARCH_S390X: return "s390x";
	default:
		snprintf(buf, n, "0x%08x", a);
		return buf;
	}
}

/* One line for a refused call: JSON, newline-terminated, into buf[n]. */
static size_t format_line(char *buf, size_t n, const struct seccomp_notif *req, int e)
{
	struct timespec ts = {0, 0};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, req->data.nr);
	/* libseccomp's names are [a-z0-9_]; anything else would need JSON
	 * escaping, and is not a name */
	for (const char *c = name; c && *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) {
			free(name);
			name = NULL;
			break;
		}
	char ab[16];
	int w = snprintf(buf, n, "{\"syscall\":%s%s%s,\"nr\":%d,\"errno\":%d,\"error\":\"%s\","
			 "\"pid\":%u,\"arch\":\"%s\",\"monotonic\":%lld.%06ld}\n",
			 name ? "\"" : "", name ? name : "null", name ? "\"" : "",
			 req->data.nr, e, plan_errno_name(e), req->pid,
			 arch_name(req->data.arch, ab, sizeof ab), (long long)ts.tv_sec, ts.tv_nsec / 1000);
	free(name);
	return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
}

/* The lines dropped so far as one {"dropped":N} line, queued.  Always
 * fits when `room` is DROPPED_RESERVE or more: every other line leaves
 * that much of the queue free. */
static bool queue_dropped(struct report *rp, size_t room)
{
	char d[DROPPED_RESERVE];
	int w = snprintf(d, sizeof d, "{\"dropped\":%lu}\n", rp->dropped);
	if (w <= 0 || (size_t)w > room || rp->len + (size_t)w > sizeof rp->q)
		return false;
	memcpy(rp->q + rp->len, d, (size_t)w);
	rp->len += (size_t)w;
	rp->dropped = 0;
	return true;
}

static void enqueue(struct report *rp, const char *line, size_t n)
{
	if (rp->broken)
		return;
	size_t cap = sizeof rp->q - DROPPED_RESERVE;
	if (rp->dropped && (rp->len + DROPPED_RESERVE + n > cap || !queue_dropped(rp, DROPPED_RESERVE))) {
		rp->dropped++;
		return;
	}
	if (rp->len + n > cap) {
		rp->dropped++;
		return;
	}
	memcpy(rp->q + rp->len, line, n);
	rp->len += n;
}

/* Write what the descriptor takes now.  At most PIPE_BUF bytes per call:
 * after POLLOUT a pipe takes that much without blocking, so a reader that
 * is slow never holds up the answers (and with them the command). */
static void flush_some(struct report *rp)
{
	while (rp->len && !rp->broken) {
		struct pollfd p = {rp->fd, POLLOUT, 0};
		if (poll(&p, 1, 0) != 1)
			return;
		ssize_t w = write(rp->fd, rp->q, rp->len < PIPE_BUF ? rp->len : PIPE_BUF);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0) {
			/* EPIPE (the reader is gone), ENOSPC, EBADF...: the
			 * calls are still answered, nothing more is written,
			 * and that is said once (where stderr was kept) */
			sb_say("denials: writing the report to descriptor %d failed: %s; refused calls are no longer reported",
			       rp->fd, w < 0 ? strerror(errno) : "nothing written");
			rp->broken = true;
			rp->len = 0;
			return;
		}
		memmove(rp->q, rp->q + w, rp->len - (size_t)w);
		rp->len -= (size_t)w;
	}
}

/* Queue the line of one notification and write what the descriptor takes
 * now (flush_some never waits), then answer with the errno the original
 * program gives for it.  Written first: once answered, the caller may
 * exit at once and, under no_survivors' PID namespace, take this
 * listener down with its init before a later write.  An answer for a
 * caller that is gone (ENOENT: killed meanwhile) is no error. */
static void answer(int lfd, const struct sock_fprog *orig, struct seccomp_notif *req,
		   struct seccomp_notif_resp *resp, size_t resp_size, struct report *rp)
{
	bool ok;
	uint32_t ret = bpf_run(orig->filter, orig->len, &req->data, &ok);
	int e = (int)(ret & SECCOMP_RET_DATA);
	/* Only a refusal is notified, so the original program refuses this
	 * call; should the two ever disagree, refuse anyway (fail closed). */
	if (!ok || (ret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO || e == 0)
		e = EPERM;
	if (e > 4095) /* MAX_ERRNO, as the kernel caps SECCOMP_RET_ERRNO */
		e = 4095;
	char line[LINE_MAX_BYTES];
	size_t n = format_line(line, sizeof line, req, e);
	enqueue(rp, line, n);
	flush_some(rp);
	memset(resp, 0, resp_size);
	resp->id = req->id;
	resp->error = -e;
	resp->val = 0;
	resp->flags = 0; /* never SECCOMP_USER_NOTIF_FLAG_CONTINUE */
	while (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno == EINTR)
		;
}

/* The listener's loop.  Writes what the descriptor takes, answers, and
 * writes the rest when it takes more.  Ends on POLLHUP: the filter has no users left — every process of
 * the sandbox has exited *and been reaped* (the kernel drops a task's
 * filter in release_task()), hence no stdio is held here: a caller that
 * reads the command's stdout or stderr to their end before it waits for
 * the command would otherwise wait for this process, and this process for
 * it.  The report descriptor itself ends the same way: read it while the
 * command runs, or after waiting for it. */
static void serve(int lfd, const struct sock_fprog *orig, struct report *rp)
{
	struct seccomp_notif_sizes sz = {0, 0, 0};
	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		sz = (struct seccomp_notif_sizes){sizeof(struct seccomp_notif),
			sizeof(struct seccomp_notif_resp), sizeof(struct seccomp_data)};
	/* the kernel's structures may be larger than these headers' */
	size_t req_size = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif : sizeof(struct seccomp_notif);
	size_t resp_size = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sz.seccomp_notif_resp : sizeof(struct seccomp_notif_resp);
	struct seccomp_notif *req = xmalloc(req_size);
	struct seccomp_notif_resp *resp = xmalloc(resp_size);
	for (;;) {
		struct pollfd p[2] = {{lfd, POLLIN, 0}, {rp->fd, (short)(rp->len ? POLLOUT : 0), 0}};
		if (poll(p, rp->len && !rp->broken ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents & POLLIN) {
			memset(req, 0, req_size);
			if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, req) == 0)
				answer(lfd, orig, req, resp, resp_size, rp);
			/* else ENOENT: the caller died before it was read; EINTR */
			flush_some(rp);
			continue;
		}
		if (p[1].revents)
			flush_some(rp);
		if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
	}
	/* what was dropped at the very end is said too (the queue kept room
	 * for it): lines and dropped counts always add up to the refused
	 * calls, for a reader that reads to the end */
	if (rp->dropped && !rp->broken)
		queue_dropped(rp, sizeof rp->q - rp->len);
	/* the last lines, for a reader that still reads */
	while (rp->len && !rp->broken) {
		struct pollfd p = {rp->fd, POLLOUT, 0};
		int n = poll(&p, 1, FLUSH_WAIT_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		flush_some(rp);
	}
}

/* The listener descriptor, sent by the shim once the filter is loaded;
 * -1 when the shim failed before that (its end closed). */
static int recv_fd(int sock)
{
	char byte;
	struct iovec io = {&byte, 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof c.buf};
	ssize_t n;
	while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
	if (!h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
	    h->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(h), sizeof fd);
	return fd;
}

/* Close every descriptor but `a` and `b` (a < b); stdin and stdout onto
 * /dev/null, and stderr too when it is a pipe or a socket (whose reader
 * may wait for its end: see serve()).  A terminal or a file stays, for
 * the one note about a failing report. */
static void keep_only(int a, int b)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct stat st;
	bool err_ok = fstat(2, &st) == 0 && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode);
	for (int i = 0; i <= (err_ok ? 1 : 2); i++)
		if (nul < 0 || dup2(nul, i) < 0)
			close(i);
	if (nul > 2)
		close(nul);
	if (syscall(__NR_close_range, 3u, (unsigned)a - 1, 0u) < 0 && errno == ENOSYS) {
		/* before Linux 5.9: the descriptors of a start-up are few and low */
		for (int i = 3; i < 4096; i++)
			if (i != a && i != b)
				close(i);
		return;
	}
	if (b > a + 1)
		syscall(__NR_close_range, (unsigned)a + 1, (unsigned)b - 1, 0u);
	syscall(__NR_close_range, (unsigned)b + 1, ~0u, 0u);
}

static _Noreturn void listener(int sock, int out, const struct sock_fprog *orig)
{
	static struct report rp; /* 64 KiB: not on the stack */
	rp.fd = out;
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "sandbox-denials", 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	keep_only(sock < out ? sock : out, sock < out ? out : sock);
	/* nothing here needs a privilege; failures leave it as unprivileged
	 * as the shim's caller was */
	capng_clear(CAPNG_SELECT_BOTH);
	capng_apply(CAPNG_SELECT_BOTH);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	int lfd = recv_fd(sock);
	close(sock);
	if (lfd >= 0)
		serve(lfd, orig, &rp);
	_exit(0);
}

int denials_start(struct run *r, struct sb_err *err)
{
	r->denials_sock = -1;
	int fd = r->plan->denials_fd;
	struct sock_fprog *orig = r->seccomp_ctx;
	if (fd < 0 || !orig)
		return 0;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return sb_fail(err, ".denials.fd", NULL, "descriptor %d is not open: %s", fd, strerror(errno));
	if ((fl & O_ACCMODE) == O_RDONLY)
		return sb_fail(err, ".denials.fd", NULL, "descriptor %d is open for reading only", fd);
	r->denials_prog = bpf_errno_to_notify(orig->filter, orig->len);
	struct seccomp_data probe = {0, 0, 0, {0, 0, 0, 0, 0, 0}};
	bool ok;
	bpf_run(orig->filter, orig->len, &probe, &ok);
	if (!r->denials_prog || !ok)
		return sb_fail(err, ".denials", NULL, "the seccomp filter cannot be reported on (an instruction the report does not know)");
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return sb_fail(err, ".denials", NULL, "cannot start the listener: socketpair: %s", strerror(errno));
	pid_t c = fork();
	if (c < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return sb_fail(err, ".denials", NULL, "cannot start the listener: fork: %s", strerror(e));
	}
	if (c == 0) {
		/* a session of its own (no terminal, no process group of the
		 * command's); then the listener, orphaned at once */
		close(sv[0]);
		setsid();
		pid_t l = fork();
		if (l == 0)
			listener(sv[1], fd, orig);
		_exit(l < 0 ? 1 : 0);
	}
	close(sv[1]);
	int st = 0;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		close(sv[0]);
		return sb_fail(err, ".denials", NULL, "cannot start the listener: fork failed");
	}
	r->denials_sock = sv[0];
	return 0;
}

int denials_handoff(struct run *r, int lfd, struct sb_err *err)
{
	char byte = 0;
	struct iovec io = {&byte, 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof c.buf};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &lfd, sizeof lfd);
	ssize_t n;
	while ((n = sendmsg(r->denials_sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	int e = errno;
	close(lfd);
	close(r->denials_sock);
	r->denials_sock = -1;
	/* Without the listener every refused call would fail with ENOSYS
	 * instead of its errno: still refused, but not what the command
	 * would see, and nothing reported.  Do not run it like that. */
	if (n != 1)
		return sb_fail(err, ".denials", NULL, "the listener did not take the notifications: %s",
			       n < 0 ? strerror(e) : "short write");
	return 0;
}

/* Raw syscall wrappers musl does not provide (Landlock, close_range) and
 * the Landlock UAPI structs, in one place (STYLE.md practice 10).
 * Struct layouts: include/uapi/linux/landlock.h. */
#ifndef SB_SYS_H
#define SB_SYS_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

/* Grows with the ABI: 8 bytes (ABI 1-3), 16 (ABI 4-5: net), 24 (ABI 6+:
 * scoped).  The kernel accepts a larger size only if the tail is zero, so
 * the shim passes the size of what the running ABI knows. */
struct sb_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/* struct landlock_path_beneath_attr: packed in the UAPI too (12 bytes). */
struct sb_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* struct landlock_net_port_attr (ABI 4): `port` in host byte order. */
struct sb_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* The raw syscalls below return what the kernel does: a descriptor or 0,
 * or -1 with errno (landlock(7), close_range(2), the mount API's pages). */
static inline int sb_landlock_create_ruleset(const struct sb_ruleset_attr *a,
					     size_t size, uint32_t flags)
{
	return (int)syscall(__NR_landlock_create_ruleset, a, size, flags);
}

static inline int sb_landlock_add_rule(int fd, int type, const void *attr,
				       uint32_t flags)
{
	return (int)syscall(__NR_landlock_add_rule, fd, type, attr, flags);
}

static inline int sb_landlock_restrict_self(int fd, uint32_t flags)
{
	return (int)syscall(__NR_landlock_restrict_self, fd, flags);
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
static inline int sb_close_range(unsigned first, unsigned last, unsigned flags)
{
	return (int)syscall(__NR_close_range, first, last, flags);
}

/* openat2(2) (Linux 5.6), include/uapi/linux/openat2.h. */
struct sb_open_how {
	uint64_t flags, mode, resolve;
};
#define SB_RESOLVE_NO_MAGICLINKS 0x02u
#define SB_RESOLVE_NO_SYMLINKS   0x04u
static inline int sb_openat2(int dfd, const char *path, struct sb_open_how *how)
{
	return (int)syscall(__NR_openat2, dfd, path, how, sizeof *how);
}

/* pidfds: pidfd_send_signal Linux 5.1, pidfd_open 5.3 (ENOSYS before).
 * A pidfd polls readable (POLLIN) once the whole process has exited
 * (every thread: kernel/pid.c pidfd_poll), never for one thread. */
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
static inline int sb_pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(__NR_pidfd_open, pid, flags);
}
static inline int sb_pidfd_send_signal(int pidfd, int sig, void *info, unsigned flags)
{
	return (int)syscall(__NR_pidfd_send_signal, pidfd, sig, info, flags);
}

/* New mount API (Linux 5.2; mount_setattr 5.12), include/uapi/linux/mount.h.
 * Own definitions: <linux/mount.h> and musl's <sys/mount.h> clash. */
#define SB_OPEN_TREE_CLONE      1u
#define SB_OPEN_TREE_CLOEXEC    02000000u
#define SB_AT_RECURSIVE         0x8000
#define SB_AT_EMPTY_PATH        0x1000
#define SB_AT_SYMLINK_NOFOLLOW  0x100
#define SB_MOVE_MOUNT_F_EMPTY_PATH 0x04u
#define SB_MOVE_MOUNT_T_EMPTY_PATH 0x40u
#define SB_FSCONFIG_SET_STRING  1u
#define SB_FSCONFIG_CMD_CREATE  6u
#define SB_FSOPEN_CLOEXEC       1u
#define SB_FSMOUNT_CLOEXEC      1u
#define SB_MOUNT_ATTR_RDONLY    0x01u
#define SB_MOUNT_ATTR_NOSUID    0x02u
#define SB_MOUNT_ATTR_NODEV     0x04u
#define SB_MOUNT_ATTR_NOEXEC    0x08u

/* struct mount_attr (mount_setattr(2)). */
struct sb_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static inline int sb_open_tree(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}
static inline int sb_move_mount(int from_dfd, const char *from, int to_dfd,
				const char *to, unsigned flags)
{
	return (int)syscall(SYS_move_mount, from_dfd, from, to_dfd, to, flags);
}
static inline int sb_fsopen(const char *fs, unsigned flags)
{
	return (int)syscall(SYS_fsopen, fs, flags);
}
static inline int sb_fsconfig(int fd, unsigned cmd, const char *key,
			      const void *value, int aux)
{
	return (int)syscall(SYS_fsconfig, fd, cmd, key, value, aux);
}
static inline int sb_fsmount(int fd, unsigned flags, unsigned attr)
{
	return (int)syscall(SYS_fsmount, fd, flags, attr);
}
static inline int sb_mount_setattr(int dfd, const char *path, unsigned flags,
				   struct sb_mount_attr *a)
{
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, a, sizeof *a);
}

/* For code that runs beside the shim in its memory (clone CLONE_VM, no
 * CLONE_THREAD: shim/life.c's watcher, shim/ns.c's namespace maker):
 * errno and every other thread-local belong to the shim's thread there,
 * so such code makes its system calls with sb_raw() — the kernel's
 * answer, -errno on error, nothing written — and is kept out of the
 * sanitizers' runtime (make check-asan instruments these files). */
#if defined(__SANITIZE_ADDRESS__)
#define SB_BESIDE __attribute__((no_sanitize_address, no_sanitize("undefined")))
#else
#define SB_BESIDE
#endif
static inline long sb_raw(long n, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory", "cc");
	return x0;
#else
#error "sb_raw: x86_64 and aarch64 only"
#endif
}

#endif

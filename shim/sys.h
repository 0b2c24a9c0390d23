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

struct sb_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct sb_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

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

#endif

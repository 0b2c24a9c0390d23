#include "names.h"

#include <cap-ng.h>
#include <ctype.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* Groups follow systemd's src/shared/seccomp-util.c membership, limited to
 * what REFERENCE.md lists for the default filter; names a profile may use
 * in seccomp.deny / seccomp.allow. */
static const char *const g_mount[] = {"chroot", "fsconfig", "fsmount", "fsopen",
	"fspick", "mount", "mount_setattr", "move_mount", "open_tree",
	"pivot_root", "umount", "umount2", NULL};
static const char *const g_module[] = {"delete_module", "finit_module",
	"init_module", NULL};
static const char *const g_reboot[] = {"kexec_file_load", "kexec_load",
	"reboot", NULL};
static const char *const g_swap[] = {"swapoff", "swapon", NULL};
static const char *const g_clock[] = {"adjtimex", "clock_adjtime",
	"clock_adjtime64", "clock_settime", "clock_settime64", "settimeofday",
	"stime", NULL};
static const char *const g_raw_io[] = {"ioperm", "iopl", "pciconfig_iobase",
	"pciconfig_read", "pciconfig_write", "s390_pci_mmio_read",
	"s390_pci_mmio_write", NULL};
static const char *const g_cpu_emulation[] = {"modify_ldt", "subpage_prot",
	"switch_endian", "vm86", "vm86old", NULL};
static const char *const g_obsolete[] = {"_sysctl", "afs_syscall", "bdflush",
	"break", "create_module", "ftime", "get_kernel_syms", "getpmsg", "gtty",
	"idle", "lock", "mpx", "prof", "profil", "putpmsg", "query_module",
	"security", "sgetmask", "ssetmask", "stty", "sysfs", "tuxcall", "ulimit",
	"uselib", "ustat", "vserver", NULL};
static const char *const g_debug[] = {"lookup_dcookie", "perf_event_open",
	"pidfd_getfd", "ptrace", "rtas", "s390_runtime_instr",
	"sys_debug_setcontext", NULL};
static const char *const g_keyring[] = {"add_key", "keyctl", "request_key",
	NULL};
static const char *const g_io_uring[] = {"io_uring_enter", "io_uring_register",
	"io_uring_setup", NULL};

struct group { const char *name; const char *const *members; };
static const struct group groups[] = {
	{"@clock", g_clock}, {"@cpu-emulation", g_cpu_emulation},
	{"@debug", g_debug}, {"@io-uring", g_io_uring}, {"@keyring", g_keyring},
	{"@module", g_module}, {"@mount", g_mount}, {"@obsolete", g_obsolete},
	{"@raw-io", g_raw_io}, {"@reboot", g_reboot}, {"@swap", g_swap},
};

const char *const sc_group_names[] = {"@clock", "@cpu-emulation", "@debug",
	"@io-uring", "@keyring", "@module", "@mount", "@obsolete", "@raw-io",
	"@reboot", "@swap", NULL};

const char *const *sc_group_members(const char *group)
{
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (strcmp(groups[i].name, group) == 0)
			return groups[i].members;
	return NULL;
}

bool sc_name_valid(const char *name)
{
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}

struct rl { const char *name; int res; };
static const struct rl rlimits[] = {
	{"as", RLIMIT_AS}, {"core", RLIMIT_CORE}, {"cpu", RLIMIT_CPU},
	{"data", RLIMIT_DATA}, {"fsize", RLIMIT_FSIZE}, {"locks", RLIMIT_LOCKS},
	{"memlock", RLIMIT_MEMLOCK}, {"msgqueue", RLIMIT_MSGQUEUE},
	{"nice", RLIMIT_NICE}, {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC},
	{"rss", RLIMIT_RSS}, {"rtprio", RLIMIT_RTPRIO}, {"rttime", RLIMIT_RTTIME},
	{"sigpending", RLIMIT_SIGPENDING}, {"stack", RLIMIT_STACK},
};

int rlimit_by_name(const char *name, const char **static_name)
{
	for (size_t i = 0; i < sizeof rlimits / sizeof rlimits[0]; i++)
		if (strcmp(rlimits[i].name, name) == 0) {
			if (static_name)
				*static_name = rlimits[i].name;
			return rlimits[i].res;
		}
	return -1;
}

const char *rlimit_name(size_t i)
{
	return i < sizeof rlimits / sizeof rlimits[0] ? rlimits[i].name : NULL;
}

int cap_by_name(const char *name)
{
	char low[64];
	size_t i = 0;
	if (strncasecmp(name, "cap_", 4) == 0)
		name += 4;
	for (; name[i] && i + 1 < sizeof low; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	if (name[i] || i == 0)
		return -1;
	low[i] = 0;
	int c = capng_name_to_capability(low);
	return c < 0 ? -1 : c;
}

void cap_name(int cap, char *buf, unsigned n)
{
	const char *s = capng_capability_to_name((unsigned)cap);
	size_t i = 4;
	snprintf(buf, n, "CAP_%s", s ? s : "?");
	for (; buf[i]; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
}

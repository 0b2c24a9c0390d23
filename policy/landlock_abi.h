/* Landlock UAPI constants and the table of rights per ABI.
 *
 * Own definitions rather than <linux/landlock.h>: the build machine's kernel
 * headers (Debian 12: 6.1) stop at ABI 2, and the shim must name rights of
 * ABI 10.  Values are from include/uapi/linux/landlock.h; they are ABI and
 * never change once released.  Pure data: no syscalls here (see
 * shim/sys.h for the raw syscall wrappers). */
#ifndef SB_LANDLOCK_ABI_H
#define SB_LANDLOCK_ABI_H

#include <stddef.h>
#include <stdint.h>

#define LL_FS_EXECUTE      (1ULL << 0)
#define LL_FS_WRITE_FILE   (1ULL << 1)
#define LL_FS_READ_FILE    (1ULL << 2)
#define LL_FS_READ_DIR     (1ULL << 3)
#define LL_FS_REMOVE_DIR   (1ULL << 4)
#define LL_FS_REMOVE_FILE  (1ULL << 5)
#define LL_FS_MAKE_CHAR    (1ULL << 6)
#define LL_FS_MAKE_DIR     (1ULL << 7)
#define LL_FS_MAKE_REG     (1ULL << 8)
#define LL_FS_MAKE_SOCK    (1ULL << 9)
#define LL_FS_MAKE_FIFO    (1ULL << 10)
#define LL_FS_MAKE_BLOCK   (1ULL << 11)
#define LL_FS_MAKE_SYM     (1ULL << 12)
#define LL_FS_REFER        (1ULL << 13) /* ABI 2 */
#define LL_FS_TRUNCATE     (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV    (1ULL << 15) /* ABI 5 */
#define LL_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9 */

#define LL_NET_BIND_TCP         (1ULL << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP      (1ULL << 1) /* ABI 4 */
#define LL_NET_BIND_UDP         (1ULL << 2) /* ABI 10 */
#define LL_NET_CONNECT_SEND_UDP (1ULL << 3) /* ABI 10 */

#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL               (1ULL << 1) /* ABI 6 */

/* landlock_restrict_self() flags (kind 3 in the table): audit logging
 * (ABI 7) and whole-process enforcement (ABI 8). */
#define LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF  (1ULL << 0) /* ABI 7 */
#define LL_RESTRICT_SELF_LOG_NEW_EXEC_ON    (1ULL << 1) /* ABI 7 */
#define LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1ULL << 2) /* ABI 7 */
#define LL_RESTRICT_SELF_TSYNC              (1ULL << 3) /* ABI 8 */

#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT     2

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_CREATE_RULESET_ERRATA  (1U << 1)

/* Rights a rule on a non-directory may carry; any other right on a file
 * path makes landlock_add_rule() fail with EINVAL (security/landlock/fs.c,
 * ACCESS_FILE). */
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
                           LL_FS_TRUNCATE | LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX)

/* The newest ABI this shim knows the rights of; a newer kernel is driven
 * at this ABI (rights it adds are not handled, which only means they stay
 * unrestricted as they would be for any older program). */
#define LL_ABI_KNOWN 10

/* Filesystem rights handled by ABI `abi` (0 → none).  Pure. */
uint64_t ll_fs_rights(int abi);
/* Network rights handled by ABI `abi`.  Pure. */
uint64_t ll_net_rights(int abi);
/* Scopes handled by ABI `abi`.  Pure. */
uint64_t ll_scopes(int abi);
/* The first ABI that knows `right` of kind `kind` (0 fs, 1 net, 2 scope,
 * 3 restrict_self flag). */
int ll_abi_of(int kind, uint64_t right);

/* Landlock's own name of one right bit ("read_file", "bind_tcp", "signal").
 * kind: 0 filesystem, 1 network, 2 scope, 3 restrict_self flag
 * ("log_same_exec_off", "tsync").  Static string; NULL if unknown. */
const char *ll_right_name(int kind, uint64_t bit);

#endif

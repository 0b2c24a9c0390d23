/* Rights per Landlock ABI, in one table (Documentation/userspace-api/landlock.rst). */
#include "landlock_abi.h"

struct ll_right {
	int kind;        /* 0 fs, 1 net, 2 scope, 3 restrict_self flag */
	uint64_t bit;
	int abi;         /* first ABI that handles it */
	const char *name;
};

static const struct ll_right ll_table[] = {
	{0, LL_FS_EXECUTE, 1, "execute"},
	{0, LL_FS_WRITE_FILE, 1, "write_file"},
	{0, LL_FS_READ_FILE, 1, "read_file"},
	{0, LL_FS_READ_DIR, 1, "read_dir"},
	{0, LL_FS_REMOVE_DIR, 1, "remove_dir"},
	{0, LL_FS_REMOVE_FILE, 1, "remove_file"},
	{0, LL_FS_MAKE_CHAR, 1, "make_char"},
	{0, LL_FS_MAKE_DIR, 1, "make_dir"},
	{0, LL_FS_MAKE_REG, 1, "make_reg"},
	{0, LL_FS_MAKE_SOCK, 1, "make_sock"},
	{0, LL_FS_MAKE_FIFO, 1, "make_fifo"},
	{0, LL_FS_MAKE_BLOCK, 1, "make_block"},
	{0, LL_FS_MAKE_SYM, 1, "make_sym"},
	{0, LL_FS_REFER, 2, "refer"},
	{0, LL_FS_TRUNCATE, 3, "truncate"},
	{0, LL_FS_IOCTL_DEV, 5, "ioctl_dev"},
	{0, LL_FS_RESOLVE_UNIX, 9, "resolve_unix"},
	{1, LL_NET_BIND_TCP, 4, "bind_tcp"},
	{1, LL_NET_CONNECT_TCP, 4, "connect_tcp"},
	{1, LL_NET_BIND_UDP, 10, "bind_udp"},
	{1, LL_NET_CONNECT_SEND_UDP, 10, "connect_send_udp"},
	{2, LL_SCOPE_ABSTRACT_UNIX_SOCKET, 6, "abstract_unix_socket"},
	{2, LL_SCOPE_SIGNAL, 6, "signal"},
	{3, LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF, 7, "log_same_exec_off"},
	{3, LL_RESTRICT_SELF_LOG_NEW_EXEC_ON, 7, "log_new_exec_on"},
	{3, LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF, 7, "log_subdomains_off"},
	{3, LL_RESTRICT_SELF_TSYNC, 8, "tsync"},
};

static uint64_t rights_upto(int kind, int abi)
{
	uint64_t m = 0;
	if (abi > LL_ABI_KNOWN)
		abi = LL_ABI_KNOWN;
	for (size_t i = 0; i < sizeof ll_table / sizeof ll_table[0]; i++)
		if (ll_table[i].kind == kind && ll_table[i].abi <= abi)
			m |= ll_table[i].bit;
	return m;
}

uint64_t ll_fs_rights(int abi) { return rights_upto(0, abi); }
uint64_t ll_net_rights(int abi) { return rights_upto(1, abi); }
uint64_t ll_scopes(int abi) { return rights_upto(2, abi); }

int ll_abi_of(int kind, uint64_t right)
{
	for (size_t i = 0; i < sizeof ll_table / sizeof ll_table[0]; i++)
		if (ll_table[i].kind == kind && ll_table[i].bit == right)
			return ll_table[i].abi;
	return 0;
}

const char *ll_right_name(int kind, uint64_t bit)
{
	for (size_t i = 0; i < sizeof ll_table / sizeof ll_table[0]; i++)
		if (ll_table[i].kind == kind && ll_table[i].bit == bit)
			return ll_table[i].name;
	return NULL;
}

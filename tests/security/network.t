#!/usr/bin/env bash
# Network escapes.  "network": "off" refuses creating TCP/UDP (and any
# non-unix, non-route-netlink) socket: EAFNOSUPPORT from seccomp, so a
# connect to a listener on 127.0.0.1 or a UDP send cannot happen.  "on"
# still refuses exotic families (AF_PACKET), and with a tcp_connect list
# (Landlock TCP port rules) MPTCP sockets and TCP Fast Open (sendto /
# sendmsg with MSG_FASTOPEN, which goes around the connect hook) are
# refused.  Controls: the same helper connects/sends outside the sandbox
# and under the relaxed profile.
. "$(dirname "$0")/common.sh"

# family WHO KEYS FAMILY TYPE PROTO — socket(FAMILY) refused inside with
# EAFNOSUPPORT, once the kernel has shown outside that the family exists.
family() {
	local who=$1 keys=$2 o
	shift 2
	o=$(outside "$who" socket "$@")
	if [ "$o" = EAFNOSUPPORT ]; then
		skip "$who: socket($*) is not supported by this kernel even outside the sandbox"
		return
	fi
	ok "$who: control: socket($*) outside answers $o (the family exists)"
	expect "$who: socket($*) is refused with {$keys}" EAFNOSUPPORT \
		"$(inside "$who" "$keys" socket "$@")"
}

ON='"network":"on"'
for who in $USERS; do
	bg_start "$who" listen-inet
	read -r tport uport <<<"$BG_LINE"
	check_match "$who: the outside listener is ready on 127.0.0.1" '^[0-9]+ [0-9]+$' "$BG_LINE"

	# --- network off (the default) ---
	expect "$who: control: TCP connect to 127.0.0.1:$tport works outside" ok \
		"$(outside "$who" tcp-connect "$tport")"
	expect "$who: control: UDP send to 127.0.0.1:$uport works outside" ok \
		"$(outside "$who" udp-send "$uport")"
	expect "$who: network off: TCP connect refused at socket creation" EAFNOSUPPORT \
		"$(inside "$who" "" tcp-connect "$tport")"
	expect "$who: network off: UDP send refused at socket creation" EAFNOSUPPORT \
		"$(inside "$who" "" udp-send "$uport")"
	expect "$who: network off: TCP Fast Open refused at socket creation" EAFNOSUPPORT \
		"$(inside "$who" "" sendto-fastopen "$tport")"
	family "$who" "" AF_INET6 SOCK_STREAM 0
	family "$who" "" AF_INET SOCK_STREAM IPPROTO_MPTCP
	family "$who" "" AF_PACKET SOCK_RAW ETH_P_ALL
	# The kernel reads the family as an int: high bits must not slip past
	# a 64-bit comparison (CVE-2019-10063 style).
	expect "$who: control: socket(0x100000000|AF_INET) is an AF_INET socket outside" ok \
		"$(outside "$who" socket 0x100000002 SOCK_STREAM 0)"
	expect "$who: network off: socket(0x100000000|AF_INET) is refused" EAFNOSUPPORT \
		"$(inside "$who" "" socket 0x100000002 SOCK_STREAM 0)"
	expect "$who: network off: route netlink (getifaddrs) still works" ok \
		"$(inside "$who" "" socket AF_NETLINK SOCK_RAW NETLINK_ROUTE)"
	expect "$who: control: audit netlink can be created outside" ok \
		"$(outside "$who" socket AF_NETLINK SOCK_RAW NETLINK_AUDIT)"
	expect "$who: network off: other netlink families are refused" EPROTONOSUPPORT \
		"$(inside "$who" "" socket AF_NETLINK SOCK_RAW NETLINK_AUDIT)"

	# --- network on, TCP unrestricted: the relaxation control ---
	expect "$who: control: network on: TCP connect works" ok \
		"$(inside "$who" "$ON" tcp-connect "$tport")"
	expect "$who: control: network on: UDP send works" ok \
		"$(inside "$who" "$ON" udp-send "$uport")"
	expect "$who: control: network on without port lists: MPTCP socket works" ok \
		"$(inside "$who" "$ON" socket AF_INET SOCK_STREAM IPPROTO_MPTCP)"
	expect "$who: control: network on without port lists: sendto(MSG_FASTOPEN) works" ok \
		"$(inside "$who" "$ON" sendto-fastopen "$tport")"
	expect "$who: control: network on without port lists: sendmsg(MSG_FASTOPEN) works" ok \
		"$(inside "$who" "$ON" sendmsg-fastopen "$tport")"
	family "$who" "$ON" AF_PACKET SOCK_RAW ETH_P_ALL
	family "$who" "$ON" AF_PACKET SOCK_DGRAM ETH_P_ALL
	family "$who" "$ON" AF_VSOCK SOCK_STREAM 0
	family "$who" "$ON" AF_ALG SOCK_SEQPACKET 0

	# --- network on with a tcp_connect list (Landlock TCP rules, ABI 4) ---
	if [ "$ABI" -lt 4 ]; then
		skip "$who: TCP port rules need Landlock ABI 4 (Linux 6.7), this kernel has $ABI"
	else
		allowed="$ON,\"tcp_connect\":[$tport]"
		other="$ON,\"tcp_connect\":[1]"
		expect "$who: control: tcp_connect [$tport]: connect to it works" ok \
			"$(inside "$who" "$allowed" tcp-connect "$tport")"
		expect "$who: tcp_connect [1]: connect to $tport is refused by Landlock" EACCES \
			"$(inside "$who" "$other" tcp-connect "$tport")"
		expect "$who: control: protocol 0x100000000|IPPROTO_MPTCP is MPTCP outside" ok \
			"$(outside "$who" socket AF_INET SOCK_STREAM 0x100000106)"
		expect "$who: tcp_connect [1]: MPTCP with high bits in the protocol refused" EPROTONOSUPPORT \
			"$(inside "$who" "$other" socket AF_INET SOCK_STREAM 0x100000106)"
		for keys in "$allowed" "$other"; do
			list=${keys#*tcp_connect\":}
			expect "$who: tcp_connect $list: MPTCP socket refused" EPROTONOSUPPORT \
				"$(inside "$who" "$keys" socket AF_INET SOCK_STREAM IPPROTO_MPTCP)"
			expect "$who: tcp_connect $list: MPTCP IPv6 socket refused" EPROTONOSUPPORT \
				"$(inside "$who" "$keys" socket AF_INET6 SOCK_STREAM IPPROTO_MPTCP)"
			expect "$who: tcp_connect $list: sendto(MSG_FASTOPEN) refused" EPERM \
				"$(inside "$who" "$keys" sendto-fastopen "$tport")"
			expect "$who: tcp_connect $list: sendmsg(MSG_FASTOPEN) refused" EPERM \
				"$(inside "$who" "$keys" sendmsg-fastopen "$tport")"
		done
		# What the seccomp rule closes: without it, does Fast Open get
		# past Landlock's connect rule on this kernel?  (Informational:
		# a kernel that checks it too makes this EACCES.)
		r=$(inside "$who" "$other,\"seccomp\":{\"allow\":[\"sendto\"]}" sendto-fastopen "$tport")
		diag "$who: with seccomp.allow [\"sendto\"], sendto(MSG_FASTOPEN) to a port outside tcp_connect gives: $r"
	fi
	bg_stop
done

done_testing

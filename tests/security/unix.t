#!/usr/bin/env bash
# Unix sockets: with the default "unix_sockets": "scoped" (Landlock scope,
# ABI 6; with a namespace also its own network namespace) the command cannot
# connect or send to an abstract unix socket created outside the sandbox
# (EPERM, or ECONNREFUSED: not there), while socketpair() works.
# Controls: the same connect works outside and with "unix_sockets": "any".
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	expect "$who: socketpair() works" ok "$(inside "$who" "" socketpair)"
	expect "$who: socketpair() works with unix_sockets \"none\"" ok \
		"$(inside "$who" '"unix_sockets":"none"' socketpair)"
	expect "$who: control: an AF_UNIX socket can be created by default" ok \
		"$(inside "$who" "" socket AF_UNIX SOCK_STREAM 0)"
	expect "$who: unix_sockets \"none\" refuses socket(AF_UNIX)" EAFNOSUPPORT \
		"$(inside "$who" '"unix_sockets":"none"' socket AF_UNIX SOCK_STREAM 0)"

	if [ "$ABI" -lt 6 ]; then
		skip "$who: the abstract unix socket scope needs Landlock ABI 6 (Linux 6.12), this kernel has $ABI"
		continue
	fi
	name=sbtest-$who-$$-$RANDOM
	bg_start "$who" listen-abstract "$name"
	check "$who: the outside listener is ready" ok "$BG_LINE"
	expect "$who: control: connect to the outside abstract socket works outside" ok \
		"$(outside "$who" connect-abstract "$name")"
	expect "$who: control: sendto the outside abstract datagram socket works outside" ok \
		"$(outside "$who" sendto-abstract "$name")"
	# with a namespace the sandbox has its own network namespace, where
	# the name does not exist (ECONNREFUSED); without one the Landlock
	# scope refuses (EPERM)
	expect "$who: connect to an abstract socket created outside is refused (own network namespace)" ECONNREFUSED \
		"$(inside "$who" "" connect-abstract "$name")"
	expect "$who: sendto an abstract socket created outside is refused (own network namespace)" ECONNREFUSED \
		"$(inside "$who" "" sendto-abstract "$name")"
	expect "$who: no namespace: connect to it is refused (Landlock scope)" EPERM \
		"$(inside "$who" '"mounts":"off"' connect-abstract "$name")"
	expect "$who: no namespace: sendto to it is refused (Landlock scope)" EPERM \
		"$(inside "$who" '"mounts":"off"' sendto-abstract "$name")"
	expect "$who: control: connect works with unix_sockets \"any\"" ok \
		"$(inside "$who" '"unix_sockets":"any"' connect-abstract "$name")"
	expect "$who: control: sendto works with unix_sockets \"any\"" ok \
		"$(inside "$who" '"unix_sockets":"any"' sendto-abstract "$name")"
	bg_stop
done

done_testing

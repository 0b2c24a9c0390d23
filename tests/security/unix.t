#!/usr/bin/env bash
# Unix sockets: with the default "unix_sockets": "scoped" (Landlock scope,
# ABI 6) the command cannot connect or send to an abstract unix socket
# created outside the sandbox (EPERM), while socketpair() works.
# Controls: the same connect works outside and with "unix_sockets": "any".
. "$(dirname "$0")/../lib.sh"

TRY=$HELPERS/try-syscall
if [ ! -x "$TRY" ]; then
	echo "Bail out! $TRY is missing: run make build/helpers/try-syscall"
	exit 1
fi

# inside WHO KEYS OP [ARG...] — try-syscall OP under the sandbox as WHO,
# with the profile {$UNF,KEYS}; prints its one line.  The shim's stderr is
# kept in $T/err for the diagnostics of a mismatch.
inside() {
	local who=$1 keys=$2
	shift 2
	as "$who" "$SB" "{$UNF${keys:+,$keys}}" -- "$TRY" "$@" 2>"$T/err"
}

# outside WHO OP [ARG...] — the same attempt without the sandbox (control).
outside() {
	local who=$1
	shift
	as "$who" "$TRY" "$@" 2>"$T/err"
}

# expect NAME EXPECTED ACTUAL — check, plus the last stderr on a mismatch.
expect() {
	check "$1" "$2" "$3"
	[ "$2" = "$3" ] || diag "stderr: $(cat "$T/err" 2>/dev/null)"
}

# bg_start WHO OP [ARG...] — start try-syscall OP as WHO in the background
# (it becomes the coprocess itself: BG_PID is its pid), its stdin on a pipe
# we hold, and wait for its first line (ready) into BG_LINE.  bg_stop
# closes that pipe, which ends it, and reaps it.
bg_start() {
	local who=$1
	shift
	if [ "$who" = nobody ]; then
		coproc BG { exec setpriv --reuid $NOBODY --regid $NOBODY --clear-groups -- "$TRY" "$@" 2>"$T/bg.err"; }
	else
		coproc BG { exec "$TRY" "$@" 2>"$T/bg.err"; }
	fi
	BG_IN=${BG[1]}
	BG_LINE=
	read -r BG_LINE <&"${BG[0]}"
}
bg_stop() {
	exec {BG_IN}>&-
	wait "$BG_PID" 2>/dev/null
}

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
	expect "$who: connect to an abstract socket created outside is refused" EPERM \
		"$(inside "$who" "" connect-abstract "$name")"
	expect "$who: sendto an abstract socket created outside is refused" EPERM \
		"$(inside "$who" "" sendto-abstract "$name")"
	expect "$who: control: connect works with unix_sockets \"any\"" ok \
		"$(inside "$who" '"unix_sockets":"any"' connect-abstract "$name")"
	expect "$who: control: sendto works with unix_sockets \"any\"" ok \
		"$(inside "$who" '"unix_sockets":"any"' sendto-abstract "$name")"
	bg_stop
done

done_testing

#!/usr/bin/env bash
# network "loopback" (issue 3), root and nobody, in both carve modes (the
# network namespace does not depend on "mounts"):
#  - a python3 HTTP server and a client inside one sandbox talk over
#    127.0.0.1 (and ::1 when the host has IPv6 on lo); only lo is there;
#  - a listener on the host's 127.0.0.1 is not reachable (ECONNREFUSED: the
#    namespace's own 127.0.0.1 has nothing listening), nor an abstract unix
#    socket of the host (even with "unix_sockets": "any": the namespace
#    isolates them);
#  - without namespaces it is enforced as "off" with a notice naming the
#    call that failed ("no mount namespace here: unshare(...): ..."):
#    forced by running the shim inside another sandbox (seccomp refuses
#    unshare; the outer sandbox dropped CAP_SYS_ADMIN, so even root goes
#    through a user namespace), and for nobody also by
#    user.max_user_namespaces=0 (as root; restored).
# Controls: the same connects succeed outside and with network "on".
. "$(dirname "$0")/common.sh"

TRY=$HELPERS/try-syscall
if [ ! -x "$TRY" ]; then
	echo "Bail out! $TRY is missing: run make build/helpers/try-syscall"
	exit 1
fi

# Host listeners, started once (root, or the current user), stopped at exit:
# TCP on 127.0.0.1 and an abstract unix socket.  Their first line says they
# are ready.
me=$(echo "$USERS" | cut -d' ' -f1)
bg tcpl "$me" $PY "$OP" tcp-serve 127.0.0.1
port=${BG_LINE%% *}
check "host TCP listener on 127.0.0.1 is ready" "ok" "${BG_LINE#* }"
abs=sbtest-lo-$$-$RANDOM
bg absl "$me" "$TRY" listen-abstract "$abs"
check "host abstract unix listener is ready" ok "$BG_LINE"
v6=
if grep -q '^0\{31\}1 .* lo$' /proc/net/if_inet6 2>/dev/null; then v6=::1; fi

for who in $USERS; do
	expect "$who: control: the host TCP listener is reachable outside" ok "$(outside "$who" tcp-connect 127.0.0.1 "$port")"
	expect "$who: control: the host abstract socket is reachable outside" ok "$(as "$who" "$TRY" connect-abstract "$abs" 2>"$T/err")"
	for mode in $MODES; do
		t=$who/$mode
		if ! mounts_ok "$who"; then
			skip "$t: no namespaces for $who on this machine (see the notice test below)"
			continue
		fi
		mk=$(mode_keys "$mode")
		ws=$(mkws "$who" "lo-$mode")
		echo hello-from-inside >"$ws/hello.txt"
		own "$who" "$ws/hello.txt"
		p="{$mk\"writable\":[\"$ws\"],\"network\":\"loopback\"}"
		on="{$mk\"writable\":[\"$ws\"],\"network\":\"on\"}"
		check "$t: the plan has a network namespace" True \
			"$(as "$who" "$SB" --check "$p" | $PY -c 'import json,sys; print(json.load(sys.stdin)["namespaces"]["network"])')"

		expect "$t: HTTP server and client inside talk over 127.0.0.1" "200 hello-from-inside" \
			"$(op "$who" "$p" http-pair 127.0.0.1 "$ws")"
		if [ -n "$v6" ]; then
			expect "$t: ... and over ::1" "200 hello-from-inside" "$(op "$who" "$p" http-pair ::1 "$ws")"
		else
			skip "$t: the host has no ::1 on lo"
		fi
		sbsh "$who" "$p" "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"
		check "$t: only lo is in the namespace" lo "$out"
		check "$t: no loopback notice" "" "$(grep -i 'loopback' "$T/err")"
		expect "$t: the host's 127.0.0.1 listener is not reachable" ECONNREFUSED "$(op "$who" "$p" tcp-connect 127.0.0.1 "$port")"
		expect "$t: control: it is reachable with network \"on\"" ok "$(op "$who" "$on" tcp-connect 127.0.0.1 "$port")"
		expect "$t: the host's abstract unix socket is not reachable (unix_sockets \"any\")" ECONNREFUSED \
			"$(as "$who" "$SB" "{$mk\"writable\":[\"$ws\"],\"network\":\"loopback\",\"unix_sockets\":\"any\"}" -- "$TRY" connect-abstract "$abs" 2>"$T/err")"
		expect "$t: control: it is reachable with unix_sockets \"any\" and network \"off\"" ok \
			"$(as "$who" "$SB" "{$mk\"writable\":[\"$ws\"],\"unix_sockets\":\"any\"}" -- "$TRY" connect-abstract "$abs" 2>"$T/err")"
	done

	# --- without namespaces: enforced as "off", with the notice ---
	ws=$(mkws "$who" lo-nested)
	outer="{\"writable\":[\"$ws\",\"$T\"],\"network\":\"on\",\"mounts\":\"off\",$UNF}"
	inner="{\"writable\":[\"$ws\"],\"network\":\"loopback\",$UNF}"
	expect "$who: control: the host listener is reachable from the outer sandbox (network \"on\")" ok \
		"$(as "$who" "$SB" "$outer" -- $PY "$OP" tcp-connect 127.0.0.1 "$port" 2>"$T/err")"
	out=$(as "$who" "$SB" "$outer" -- "$SB" "$inner" -- $PY "$OP" tcp-connect 127.0.0.1 "$port" 2>"$T/err")
	check_match "$who: inside another sandbox (unshare refused): loopback enforced as \"off\" with a notice" \
		'^__sandbox: notice: \.network "loopback": enforced as "off" \(no mount namespace here: unshare\((CLONE_NEWUSER\|)?CLONE_NEWNS\|CLONE_NEWIPC(\|CLONE_NEWNET)?\): Operation not permitted\)$' "$(errs)"
	expect "$who: ... and TCP sockets are refused as with \"off\"" EAFNOSUPPORT "$out"
done

# nobody with user namespaces switched off machine-wide (briefly; restored
# by the exit trap as well).
old=$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)
if [ "$(id -u)" != 0 ]; then
	skip "user.max_user_namespaces=0 needs root"
elif ! (echo "$old" >/proc/sys/user/max_user_namespaces) 2>/dev/null; then
	skip "user.max_user_namespaces cannot be changed here (/proc/sys/user is not writable)"
else
	ws=$(mkws nobody lo-nouserns)
	at_exit "echo $old > /proc/sys/user/max_user_namespaces"
	echo 0 >/proc/sys/user/max_user_namespaces
	out=$(as nobody "$SB" "{\"writable\":[\"$ws\"],\"network\":\"loopback\",$UNF}" -- $PY "$OP" tcp-connect 127.0.0.1 "$port" 2>"$T/err")
	echo "$old" >/proc/sys/user/max_user_namespaces
	check_match "nobody, user.max_user_namespaces=0: loopback enforced as \"off\" with a notice" \
		'^__sandbox: notice: \.network "loopback": enforced as "off" \(no mount namespace here: unshare\(CLONE_NEWUSER\|CLONE_NEWNS\|CLONE_NEWIPC\): [^)]*\)$' "$(errs)"
	expect "nobody, user.max_user_namespaces=0: ... TCP sockets are refused as with \"off\"" EAFNOSUPPORT "$out"
	check "user.max_user_namespaces is restored" "$old" "$(cat /proc/sys/user/max_user_namespaces)"
fi

done_testing

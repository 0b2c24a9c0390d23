#!/usr/bin/env bash
# Signals: with the default "signals": "scoped" (Landlock signal scope,
# ABI 6) the command cannot signal its parent nor an unrelated process
# (EPERM), while signalling itself works.  Controls: the same kill works
# outside the sandbox and with "signals": "any".
. "$(dirname "$0")/common.sh"

if [ "$ABI" -lt 6 ]; then
	echo "1..0 # SKIP the signal scope needs Landlock ABI 6 (Linux 6.12), this kernel has $ABI"
	exit 0
fi

for who in $USERS; do
	P="{$UNF}"
	# --- the parent (a dedicated sh owned by $who) ---
	for sig in 0 CONT; do
		check "$who: control: kill(parent, $sig) works outside the sandbox" ok \
			"$(under_sh "$who" "$TRY" kill ppid $sig 2>&1)"
		check "$who: kill(parent, $sig) is refused" EPERM \
			"$(under_sh "$who" "$SB" "$P" -- "$TRY" kill ppid $sig 2>&1 | tail -n1)"
	done
	check "$who: control: pidfd_send_signal(parent, 0) works outside the sandbox" ok \
		"$(under_sh "$who" "$TRY" pidfd-kill ppid 0 2>&1)"
	check "$who: pidfd_send_signal(parent, 0) is refused" EPERM \
		"$(under_sh "$who" "$SB" "$P" -- "$TRY" pidfd-kill ppid 0 2>&1 | tail -n1)"
	check "$who: control: kill(parent, 0) works with signals \"any\"" ok \
		"$(under_sh "$who" "$SB" "{$UNF,\"signals\":\"any\"}" -- "$TRY" kill ppid 0 2>&1 | tail -n1)"

	# --- an unrelated process of the same user (ignores SIGUSR1) ---
	bg_start "$who" block
	check "$who: the unrelated process is ready" ok "$BG_LINE"
	for sig in 0 USR1; do
		expect "$who: kill(unrelated, $sig) is refused" EPERM \
			"$(inside "$who" "" kill "$BG_PID" $sig)"
		expect "$who: control: kill(unrelated, $sig) works outside the sandbox" ok \
			"$(outside "$who" kill "$BG_PID" $sig)"
	done
	expect "$who: pidfd_send_signal(unrelated, USR1) is refused" EPERM \
		"$(inside "$who" "" pidfd-kill "$BG_PID" USR1)"
	expect "$who: control: pidfd_send_signal(unrelated, USR1) works outside" ok \
		"$(outside "$who" pidfd-kill "$BG_PID" USR1)"
	expect "$who: control: kill(unrelated, USR1) works with signals \"any\"" ok \
		"$(inside "$who" '"signals":"any"' kill "$BG_PID" USR1)"
	bg_stop

	# --- itself ---
	expect "$who: raise() (a signal to itself) works" ok "$(inside "$who" "" raise)"
done

done_testing

#!/usr/bin/env bash
# Shared kernel objects and the user's terminal (issue 10, class 5), as
# root and as uid 65534:
#  - SysV IPC: a 0600 shared-memory segment made outside is out of reach:
#    with a mount namespace the sandbox has its own IPC namespace (the key
#    is not there: ENOENT), without one SysV IPC is refused (EPERM);
#  - the terminal: a command none of whose stdio is a terminal cannot open
#    /dev/tty (not granted), while one whose stdin is the terminal can;
#  - new_session works when the shim already leads its process group (a
#    job-control shell) or its session (setsid): no controlling terminal;
#  - abstract unix names: with network "off" and a namespace, a name bound
#    inside is not reachable from the host.
# Controls: the same calls outside, and the terminal on stdio.
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
SHM='import ctypes, os, sys
l = ctypes.CDLL(None, use_errno=True)
key, flags = int(sys.argv[1]), int(sys.argv[2], 8)
r = l.shmget(key, 4096, flags)
print("ok" if r >= 0 else {1: "EPERM", 2: "ENOENT", 13: "EACCES"}.get(ctypes.get_errno(), ctypes.get_errno()))'

KEY=$((0x5b000000 + $$ % 65536))
for who in $USERS; do
	k=$((KEY + ${#who}))
	# the host's segment, 0600, owned by WHO
	check "$who: control: a 0600 SysV segment is made outside" ok "$(as "$who" $PY -c "$SHM" "$k" 1600)"
	check "$who: control: ... and found again outside" ok "$(as "$who" $PY -c "$SHM" "$k" 0)"
	ws=$(mkws "$who" ipc)
	check "$who: mounts: the host's segment is not there (private IPC namespace)" ENOENT \
		"$(as "$who" "$SB" "{\"writable\":[\"$ws\"]}" -- $PY -c "$SHM" "$k" 0 2>"$T/err")"
	check "$who: mounts: a segment of its own works inside" ok \
		"$(as "$who" "$SB" "{\"writable\":[\"$ws\"]}" -- $PY -c "$SHM" 0 1600 2>"$T/err")"
	off="{\"mounts\":\"off\",$UNF,\"writable\":[\"$ws\"]}"
	check "$who: no namespace: SysV IPC is refused" EPERM "$(as "$who" "$SB" "$off" -- $PY -c "$SHM" "$k" 0 2>"$T/err")"
	check "$who: no namespace: ... unless seccomp.allow lifts it" ok \
		"$(as "$who" "$SB" "{\"mounts\":\"off\",$UNF,\"writable\":[\"$ws\"],\"seccomp\":{\"allow\":[\"shmget\"]}}" -- $PY -c "$SHM" "$k" 0 2>"$T/err")"
	as "$who" ipcrm -M "$k" 2>/dev/null

	# the terminal: script(1) gives the shim a controlling terminal
	if command -v script >/dev/null; then
		o=$ws/tty-out
		as "$who" script -qec "$SB '{}' -- $TRY open-read /dev/tty </dev/null >$o 2>/dev/null" /dev/null >/dev/null 2>&1
		check "$who: stdio not a terminal: /dev/tty cannot be opened" EACCES "$(cat "$o" 2>/dev/null)"
		as "$who" script -qec "$SB '{}' -- $TRY open-read /dev/tty >$o 2>/dev/null" /dev/null >/dev/null 2>&1
		check "$who: control: stdin is the terminal: /dev/tty opens" ok "$(cat "$o" 2>/dev/null)"
		# a job-control shell makes the shim a process group leader
		as "$who" script -qec "sh -mc '$SB {\\\"new_session\\\":true} -- sh -c \"cut -d\\\" \\\" -f7 /proc/self/stat\" >$o 2>$o.err'" /dev/null >/dev/null 2>&1
		check "$who: new_session as a process group leader: runs, no controlling terminal (tty_nr 0)" 0 "$(cat "$o" 2>/dev/null)"
		[ "$(cat "$o" 2>/dev/null)" = 0 ] || diag "$(cat "$o.err" 2>/dev/null)"
		as "$who" script -qec "sh -mc '$SB {} -- sh -c \"cut -d\\\" \\\" -f7 /proc/self/stat\" >$o 2>$o.err'" /dev/null >/dev/null 2>&1
		t=$(cat "$o" 2>/dev/null)
		if [ -n "$t" ] && [ "$t" != 0 ]; then ok "$who: control: without new_session the terminal is there (tty_nr $t)"; else not_ok "$who: control: without new_session the terminal is there"; diag "got: $t"; fi
	else
		skip "$who: script(1) is not installed: no terminal to test with"
	fi
	out=$(as "$who" setsid -w "$SB" '{"new_session":true}' -- sh -c 'echo ran' </dev/null 2>"$T/err")
	check "$who: new_session when already a session leader (setsid): runs" "0 ran" "$? $out"
done

# abstract names bound inside are not reachable from the host
name=sbtest-abs-$$
ws=$(mkws root abs)
coproc ABS { exec "$SB" "{\"writable\":[\"$ws\"]}" -- "$TRY" listen-abstract "$name" 2>"$T/abs.err"; }
ABS_IN=${ABS[1]}
# bash unsets ABS_PID as soon as the coproc exits: keep it now
abs_pid=$ABS_PID
line=
read -r line <&"${ABS[0]}"
check "fixture: an abstract listener inside the sandbox (network off)" ok "$line"
check "network off with a namespace: an abstract name bound inside is not reachable from the host" ECONNREFUSED \
	"$(outside root connect-abstract "$name")"
exec {ABS_IN}>&-
wait "$abs_pid" 2>/dev/null
bg_start root listen-abstract "$name-ctl"
check "control: fixture: the same listener outside" ok "$BG_LINE"
check "control: one bound outside is reachable from the host" ok "$(outside root connect-abstract "$name-ctl")"
bg_stop
done_testing

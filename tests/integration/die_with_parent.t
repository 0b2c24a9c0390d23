#!/usr/bin/env bash
# die_with_parent (default true): when the process that started the shim
# exits, the command is killed; with false it lives on.  And a parent that
# exits while the shim is still setting up is noticed (125, nothing runs).
. "$(dirname "$0")/common.sh"

# alive PID — running (not gone, not a zombie waiting for a reaper) and still sleep
alive() {
	local st
	st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' /proc/"$1"/stat 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && [ "$(cat /proc/"$1"/comm 2>/dev/null)" = sleep ]
}
# gone_within TENTHS PID — true once PID is no longer alive, polling for at most TENTHS/10 s
gone_within() {
	local i
	for ((i = 0; i < $1 * 2; i++)); do alive "$2" || return 0; sleep 0.05; done
	return 1
}

# PARENT: starts the sandboxed sleep in the background, waits (bounded) until
# it is running (comm "sleep"), records its pid, exits.
PARENT='"$1" "$2" -- sleep 300 </dev/null >/dev/null 2>"$3.err" &
c=$!
i=0
while [ "$(cat /proc/$c/comm 2>/dev/null)" != sleep ]; do
	i=$((i + 1)); [ $i -gt 200 ] && { kill $c; exit 1; }
	sleep 0.05
done
echo $c > "$3"'

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "dwp-$style")
		t="$who/$style"
		for mode in absent true false; do
			case $mode in
			absent) p=$(prof "$style" "$ws") ;;
			*) p=$(prof "$style" "$ws" "\"die_with_parent\":$mode") ;;
			esac
			pf=$ws/pid-$mode
			as "$who" sh -c "$PARENT" sh "$SB" "$p" "$pf"
			prc=$?
			pid=$(cat "$pf" 2>/dev/null)
			if [ "$prc" != 0 ] || [ -z "$pid" ]; then
				not_ok "$t: die_with_parent $mode: the sandboxed sleep started"
				diag "parent exited $prc" "$(cat "$pf.err" 2>&1)"
				continue
			fi
			if [ "$mode" = false ]; then
				# must survive: still alive for a whole second after the parent left
				if gone_within 10 "$pid"; then
					not_ok "$t: die_with_parent false: the command outlives its parent"
				else
					ok "$t: die_with_parent false: the command outlives its parent"
				fi
				kill "$pid" 2>/dev/null
				gone_within 100 "$pid" || diag "could not stop pid $pid"
			else
				if gone_within 100 "$pid"; then
					ok "$t: die_with_parent $mode: the command is killed when its parent exits"
				else
					not_ok "$t: die_with_parent $mode: the command is killed when its parent exits"
					kill "$pid" 2>/dev/null
				fi
			fi
		done

		# The parent exits while the shim is still reading its profile
		# (fd:0 from a pipe whose writer waits for a "go" file): the shim
		# sees it has been reparented and refuses to run anything.
		for mode in true false; do
			d=$(mkws "$who" "dwp-race-$style-$mode")
			p=$(prof "$style" "$d" "\"die_with_parent\":$mode")
			printf '%s' "$p" >"$d/prof.json"
			chmod 644 "$d/prof.json"
			as "$who" sh -c '
				d=$1
				{ i=0; while [ ! -e "$d/go" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done; cat "$d/prof.json"; } |
					"$2" fd:0 -- sh -c "touch \"\$0/ran\"" "$d" >/dev/null 2>"$d/err" &
				c=$!
				i=0
				# wait until blocked reading the profile: past the getppid() of main, even in a slow (sanitizer) build
				while ! case $(cat /proc/$c/wchan 2>/dev/null) in *pipe_read) true ;; *) false ;; esac && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
				echo $c > "$d/pid"' sh "$d" "$SB"
			pid=$(cat "$d/pid")
			touch "$d/go"
			for ((i = 0; i < 200; i++)); do [ -d /proc/"$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = __sandbox ] || break; sleep 0.05; done
			# the command (if any) may still be finishing
			for ((i = 0; i < 40; i++)); do [ -e "$d/ran" ] && break; grep -q 'exited before' "$d/err" 2>/dev/null && break; sleep 0.05; done
			errl=$(grep -v '^__sandbox: notice: ' "$d/err")
			if [ "$mode" = true ]; then
				check "$t: parent gone before exec: the command does not run" no "$([ -e "$d/ran" ] && echo yes || echo no)"
				check_match "$t: ... one line naming .die_with_parent" '^__sandbox: profile \.die_with_parent: the parent \(pid [0-9]+\) exited before the command started$' "$errl"
			else
				check "$t: control (die_with_parent false): the command runs" yes "$([ -e "$d/ran" ] && echo yes || echo no)"
			fi
		done
	done
done
done_testing

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
# The parent is a process, not a thread.  A Python parent that spawns the
# server from a worker thread which then ends (a thread pool,
# asyncio.to_thread) keeps its server — PR_SET_PDEATHSIG would fire on
# the thread's end; the Python process killed takes the server down, with
# and without no_survivors.  The watcher doing it is not the command's
# child, holds no stdio, and leaves with the command.
PY=/usr/bin/python3
cat >"$T/thread.py" <<'EOF'
import os, subprocess, sys, threading, time
sb, prof, pidfile, mark = sys.argv[1:5]
box = {}
def spawn():
    p = subprocess.Popen([sb, prof, "--", "sleep", mark], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL)
    box["p"] = p
    # the thread lives until the server runs: it is then the parent
    for _ in range(400):
        if os.popen("pgrep -f '^sleep %s$'" % mark).read().strip():
            break
        time.sleep(0.05)
t = threading.Thread(target=spawn)
t.start()
t.join()
open(pidfile + ".tmp", "w").write("%d %d\n" % (os.getpid(), box["p"].pid))
os.rename(pidfile + ".tmp", pidfile)
time.sleep(300)
EOF
chmod 644 "$T/thread.py"
# running MARK — how many "sleep MARK" run (zombies have no command line)
running() { pgrep -cf "^sleep $1\$"; }
# watcher_of PID — the die_with_parent watcher holding a pidfd of PID
watcher_of() {
	local w f
	for w in $(pgrep -x '__sandbox:watch'); do
		for f in /proc/"$w"/fdinfo/*; do
			grep -qx "Pid:[[:space:]]*$1" "$f" 2>/dev/null && { echo "$w"; return; }
		done
	done
}
# U: this run's base for the marks (host-wide pgrep), so two checkouts
# tested at once never count each other's servers
U=$((($$ % 9000 + 1000) * 100000))
n=0
for who in $USERS; do
	[ -x $PY ] || { skip "$who: $PY is not installed"; continue; }
	for opt in default no_survivors; do
		n=$((n + 1))
		mark=$((U + 31900 + n))
		t="$who/$opt"
		ws=$(mkws "$who" "dwp-thread-$opt")
		if [ $opt = default ]; then p=$(prof default "$ws"); else p=$(prof default "$ws" '"no_survivors":true'); fi
		as "$who" $PY "$T/thread.py" "$SB" "$p" "$ws/pids" "$mark" </dev/null >/dev/null 2>"$ws/err" &
		for ((i = 0; i < 200; i++)); do [ -s "$ws/pids" ] && break; sleep 0.05; done
		py= shim=
		read -r py shim <"$ws/pids" 2>/dev/null
		if [ -z "$shim" ]; then not_ok "$t: Python thread parent: the server started"; diag "$(cat "$ws/err")"; continue; fi
		# one second after its thread ended, the server runs on
		sleep 1
		check "$t: Python parent spawning from a worker thread that ended: the server keeps running" 1 "$(running $mark)"
		w=
		if [ $opt = default ]; then
			w=$(watcher_of "$shim")
			if [ -n "$w" ]; then
				ok "$t: a watcher holds a pidfd of the command"
				check "$t: ... it is not the command's child" "" "$(cat /proc/"$shim"/task/*/children 2>/dev/null | tr -d ' ')"
				check "$t: ... its own session" "$w" "$(ps -o sid= -p "$w" | tr -d ' ')"
				check "$t: ... its command line names no profile (nothing of the run in it)" "__sandbox:watch" \
					"$(tr -s '\0' ' ' <"/proc/$w/cmdline" | sed 's/ *$//')"
				check "$t: ... its working directory is /" / "$(readlink /proc/"$w"/cwd)"
				check "$t: ... stdin, stdout, stderr on /dev/null" "/dev/null /dev/null /dev/null" \
					"$(echo $(readlink /proc/"$w"/fd/0 /proc/"$w"/fd/1 /proc/"$w"/fd/2))"
				check "$t: ... and nothing else but two pidfds" "anon_inode:[pidfd] anon_inode:[pidfd]" \
					"$(for f in /proc/"$w"/fd/*; do case ${f##*/} in [012]) ;; *) readlink "$f" ;; esac; done | sort | tr '\n' ' ' | sed 's/ $//')"
			else
				not_ok "$t: a watcher holds a pidfd of the command"
			fi
		fi
		kill -9 "$py"
		wait 2>/dev/null
		gone=no
		for ((i = 0; i < 100; i++)); do [ "$(running $mark)" = 0 ] && { gone=yes; break; }; sleep 0.05; done
		check "$t: the Python parent process killed: the server is gone within 5 s" yes "$gone"
		if [ -n "$w" ]; then
			left=yes
			for ((i = 0; i < 100; i++)); do [ -d /proc/"$w" ] || { left=no; break; }; sleep 0.05; done
			check "$t: ... and the watcher with it" no "$left"
		fi
		pkill -9 -f "^sleep $mark\$" 2>/dev/null
	done
	# the watcher leaves when the command ends by itself (when told to:
	# a command of fixed length could end before its watcher is looked
	# up on a loaded machine or under emulation)
	ws=$(mkws "$who" dwp-watch-end)
	rm -f "$ws/stop"
	as "$who" "$SB" "$(prof default "$ws")" -- sh -c 'echo $$ >"$1/pid"; while [ ! -e "$1/stop" ]; do sleep 0.05; done' sh "$ws" </dev/null >/dev/null 2>&1 &
	for ((i = 0; i < 600; i++)); do [ -s "$ws/pid" ] && break; sleep 0.05; done
	w=
	for ((i = 0; i < 100; i++)); do
		w=$(watcher_of "$(cat "$ws/pid" 2>/dev/null)")
		[ -n "$w" ] && break
		sleep 0.05
	done
	touch "$ws/stop"
	wait
	left=yes
	for ((i = 0; i < 100; i++)); do [ -n "$w" ] && [ -d /proc/"$w" ] || { left=no; break; }; sleep 0.05; done
	if [ -n "$w" ]; then check "$who: the watcher exits when the command ends" no "$left"; else not_ok "$who: the watcher of a running command is found"; fi
	# where the watcher cannot be started (fork refused: a process limit
	# of 1 for uid 65534) the command still runs, under PR_SET_PDEATHSIG
	if [ "$who" = nobody ]; then
		ws=$(mkws "$who" dwp-nproc)
		out=$(as "$who" "$SB" "$(prof default "$ws" '"rlimits":{"nproc":[1,1]}')" -- sh -c 'echo ran' </dev/null 2>"$T/err")
		check "$who: the watcher cannot be forked (rlimits.nproc 1): the command runs anyway" "0 ran" "$? $out"
	fi
done
done_testing

#!/usr/bin/env bash
# no_survivors: no process of the sandbox outlives the command or its
# parent.  With namespaces (mount mode): a PID namespace, the command as
# pid 2 under a minimal init, a fresh /proc listing only the sandbox.
# Without ("mounts":"off", or namespaces refused: build/tests/nons): a
# subreaper, with the notice saying so.  Either way: exit codes and signal
# deaths come back exactly, forwarded signals arrive once, the parent's
# end of file is not held up, and killing the parent (a shell with kill -9,
# a Python process) leaves nothing behind.
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
if [ ! -x $PY ]; then skip "$PY is not installed"; done_testing; exit; fi

# U: this run's base for the sleep durations that mark its processes
# (host-wide pgrep), so two checkouts tested at once never see each
# other's (fixed marks did, on a shared machine)
U=$((($$ % 9000 + 1000) * 100000))
# pids_of "ARGV" — host pids whose command line is exactly ARGV (a
# zombie's is empty: only running ones); ARGV is "sleep N" here
pids_of() { pgrep -f "^$1\$"; }
# count_alive ARGV... — how many of these command lines are running
count_alive() { local n=0 a; for a in "$@"; do n=$((n + $(pids_of "$a" | wc -l))); done; echo $n; }
# wait_count WANT TENTHS ARGV... — poll (bounded) until count_alive is WANT; prints the last count
wait_count() {
	local want=$1 tenths=$2 i n
	shift 2
	for ((i = 0; i < tenths * 2; i++)); do n=$(count_alive "$@"); [ "$n" = "$want" ] && break; sleep 0.05; done
	echo "$n"
}
# kill_all ARGV... — clean up after a control run
kill_all() { local a p; for a in "$@"; do for p in $(pids_of "$a"); do kill -9 "$p" 2>/dev/null; done; done; }

# The Python parent: run the shim with the profile and a command and
# report what a parent sees.  Modes:
#   status       print "exit N" or "signal N" (os.WIFSIGNALED)
#   forward S..  wait for "ready" on the command's stdout, send each
#                signal to the shim (by pid; "group:SIG" to its process
#                group), print the command's output and the status
#   killcmd ARGV wait for the process with command line ARGV (the
#                command, inside the sandbox), SIGTERM it from outside
#   eof          read stdout to end of file: print how long it took and
#                whether the shim was still running then
#   spawn FILE   start the shim, write "started" to FILE, sleep (the
#                test kills this parent)
cat >"$T/drive.py" <<'EOF'
import os, signal, subprocess, sys, time
mode, sb, prof = sys.argv[1], sys.argv[2], sys.argv[3]
# A parent that ignored SIGINT and SIGQUIT (a shell's background job
# without job control: `(make check &)`) passes that on through the shim,
# as it should, and sh cannot trap an ignored signal: the command starts
# with the defaults a terminal's parent would give it.  And a signal lost
# on the way fails the case after 60 s instead of waiting for ever.
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
signal.alarm(60)
rest = sys.argv[4:]
def status(rc):
    return "signal %d" % -rc if rc < 0 else "exit %d" % rc
def cmd_after(args):
    return args[args.index("--") + 1:]
if mode == "status":
    r = subprocess.run([sb, prof, "--"] + rest, stdin=subprocess.DEVNULL)
    print(status(r.returncode))
elif mode == "forward":
    sigs = rest[:rest.index("--")]
    p = subprocess.Popen([sb, prof, "--"] + cmd_after(rest), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, start_new_session=True)
    line = p.stdout.readline()
    assert line == b"ready\n", line
    for s in sigs:
        if s.startswith("group:"):
            os.killpg(p.pid, getattr(signal, "SIG" + s[6:]))
        else:
            p.send_signal(getattr(signal, "SIG" + s))
        # the command acknowledges each one before the next is sent
        print(p.stdout.readline().decode().strip())
    p.stdin and p.stdin.close()
    out = p.stdout.read().decode().split()
    print(" ".join(out))
    print(status(p.wait(timeout=20)))
elif mode == "killcmd":
    want, args = rest[0], rest[1:]
    p = subprocess.Popen([sb, prof, "--"] + args, stdin=subprocess.DEVNULL)
    pid = None
    for _ in range(400):
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    if open("/proc/%s/cmdline" % d, "rb").read().replace(b"\0", b" ") == want.encode() + b" ":
                        pid = int(d)
                except OSError:
                    pass
        if pid:
            break
        time.sleep(0.05)
    if pid:
        os.kill(pid, signal.SIGTERM)
    print(status(p.wait(timeout=20)))
elif mode == "eof":
    t0 = time.monotonic()
    p = subprocess.Popen([sb, prof, "--"] + rest, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    data = p.stdout.read()
    t = time.monotonic() - t0
    running = p.poll() is None
    p.wait(timeout=20)
    print(data.decode().strip(), "%.1f" % t, "running" if running else "ended")
elif mode == "tty":
    # the shim on a terminal, leading its foreground group: Ctrl-C there
    # reaches the command once (from the terminal, not forwarded again);
    # a SIGUSR2 to the shim is forwarded
    import pty, select
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sb, [sb, prof, "--"] + rest)
    buf = b""
    def collect(until, secs):
        global buf
        end = time.monotonic() + secs
        while until not in buf and time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return
                if not data:
                    return
                buf += data
    collect(b"ready", 20)
    os.write(fd, b"\x03")
    collect(b"never", 1.0)
    ints = buf.count(b"got-INT")
    os.kill(pid, signal.SIGUSR2)
    collect(b"never", 3.0)
    _, st = os.waitpid(pid, 0)
    print("INT x%d" % ints, "bye" if b"bye" in buf else "no-bye",
          "exit %d" % os.WEXITSTATUS(st) if os.WIFEXITED(st) else "signal %d" % os.WTERMSIG(st))
elif mode == "spawn":
    open(rest[0] + ".pid", "w").write("%d\n" % os.getpid())
    p = subprocess.Popen([sb, prof, "--"] + rest[1:], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL)
    open(rest[0], "w").write("started\n")
    time.sleep(300)
EOF
chmod 644 "$T/drive.py"
DRIVE="$PY $T/drive.py"

case=0
for who in $USERS; do
	for mounts in auto off; do
		ws=$(mkws "$who" "surv-$mounts")
		t="$who/mounts $mounts"
		p=$(prof default "$ws" "\"no_survivors\":true,\"mounts\":\"$mounts\"")
		# the mechanism this host gives this user (the plan, as --check says)
		mech=$(as "$who" "$SB" --check "$p" 2>/dev/null | sed -n 's/^ *"no_survivors": "\([a-z_]*\)".*/\1/p')
		if [ "$mounts" = off ] || [ -n "$NONS" ]; then
			check "$t: --check: no_survivors by a subreaper" subreaper "$mech"
		else
			check "$t: --check: no_survivors by a PID namespace" pid_namespace "$mech"
		fi

		# exit codes and deaths by signal, as a parent sees them
		sbrun "$who" "$p" sh -c 'exit 3'
		check "$t: exit 3 comes back as 3" 3 "$rc"
		if [ "$mech" = subreaper ]; then
			check_match "$t: ... with one notice naming the subreaper" '^__sandbox: notice: \.no_survivors: no PID namespace \(.*\): a subreaper kills what is left' "$(grep no_survivors "$T/err")"
		else
			check "$t: ... and no notice about it" "" "$(grep no_survivors "$T/err")"
		fi
		check "$t: a command killing itself with SIGTERM: the parent sees signal 15" "signal 15" \
			"$(as "$who" $DRIVE status "$SB" "$p" sh -c 'kill -TERM $$' 2>/dev/null)"
		check "$t: ... SIGKILL: signal 9" "signal 9" \
			"$(as "$who" $DRIVE status "$SB" "$p" sh -c 'kill -KILL $$' 2>/dev/null)"
		check "$t: ... exit 143 stays an exit" "exit 143" \
			"$(as "$who" $DRIVE status "$SB" "$p" sh -c 'exit 143' 2>/dev/null)"
		check "$t: a command not found: 127" "exit 127" \
			"$(as "$who" $DRIVE status "$SB" "$p" /nonexistent/cmd 2>/dev/null)"
		case=$((case + 1))
		m="sleep $((U + 1000 + case))"
		check "$t: SIGTERM to the command from outside: the parent sees signal 15" "signal 15" \
			"$(as "$who" $DRIVE killcmd "$SB" "$p" "$m" $m 2>/dev/null)"

		# forwarded signals arrive once each: to the shim's pid, and to
		# its whole process group (killpg, the parent's own way to stop
		# everything it started), which the command is not part of
		# without a terminal
		TRAPS='for s in TERM INT HUP USR1 QUIT; do trap "echo got-$s" $s; done; trap "echo bye; exit 7" USR2; echo ready; while :; do sleep 0.05; done'
		out=$(as "$who" $DRIVE forward "$SB" "$p" TERM INT HUP USR1 QUIT group:TERM group:USR2 -- sh -c "$TRAPS" 2>"$T/err" | tr '\n' ' ')
		check "$t: SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGQUIT to the shim, SIGTERM and SIGUSR2 to its group: each reaches the command once" \
			"got-TERM got-INT got-HUP got-USR1 got-QUIT got-TERM bye  exit 7 " "$out"
		out=$(as "$who" $DRIVE tty "$SB" "$p" sh -c "$TRAPS" 2>&1)
		check "$t: on a terminal: Ctrl-C reaches the command once, SIGUSR2 to the shim is forwarded" "INT x1 bye exit 7" "$out"
		# (SIGALRM is not forwarded: it ends the shim; the parent sees that)
		check_match "$t: ... SIGALRM, not forwarded, ends the sandbox" 'signal 14' "$(as "$who" $DRIVE forward "$SB" "$p" ALRM -- sh -c "$TRAPS" 2>&1 | tr '\n' ' ')"

		# kill -9 of a shell parent: every descendant goes, a setsid'd
		# double fork included; the control without no_survivors keeps them
		for opt in on off; do
			case=$((case + 1))
			b=$((U + 2000 + case * 10))
			marks=("sleep $b" "sleep $((b + 1))" "sleep $((b + 2))" "sleep $((b + 3))")
			if [ $opt = on ]; then pp=$p; else pp=$(prof default "$ws" "\"mounts\":\"$mounts\""); fi
			cmd="sleep $((b + 1)) & setsid sh -c 'sleep $((b + 2)) & sleep $((b + 3)) &'; exec sleep $b"
			as "$who" sh -c '"$1" "$2" -- sh -c "$3" </dev/null >/dev/null 2>&1 & echo $$ >"$4"; wait' sh "$SB" "$pp" "$cmd" "$ws/shell.$opt" &
			n=$(wait_count 4 100 "${marks[@]}")
			if [ "$n" != 4 ]; then
				not_ok "$t: kill -9 of a shell parent ($opt): the four sleeps started"
				diag "running: $n"
				kill_all "${marks[@]}"
				continue
			fi
			kill -9 "$(cat "$ws/shell.$opt")"
			wait 2>/dev/null
			if [ $opt = on ]; then
				check "$t: kill -9 of a shell parent: all four sleeps gone within 5 s" 0 "$(wait_count 0 50 "${marks[@]}")"
			else
				n=$(wait_count 0 10 "${marks[@]}")
				if [ "$n" -gt 0 ]; then ok "$t: control (no no_survivors): $n descendants outlive the parent"; else not_ok "$t: control (no no_survivors): descendants outlive the parent"; fi
			fi
			kill_all "${marks[@]}"
		done

		# a Python parent killed: the same
		case=$((case + 1))
		b=$((U + 3000 + case * 10))
		marks=("sleep $b" "sleep $((b + 1))")
		rm -f "$ws/started"
		[ "$who" = nobody ] && chown $NOBODY "$ws"
		as "$who" $DRIVE spawn "$SB" "$p" "$ws/started" sh -c "sleep $((b + 1)) & exec sleep $b" </dev/null >/dev/null 2>&1 &
		n=$(wait_count 2 100 "${marks[@]}")
		check "$t: Python parent: both sleeps run" 2 "$n"
		kill -9 "$(cat "$ws/started.pid")"
		wait 2>/dev/null
		check "$t: Python parent killed: both gone within 5 s" 0 "$(wait_count 0 50 "${marks[@]}")"
		kill_all "${marks[@]}"

		# end of file: the command's copies are the only ones
		out=$(as "$who" $DRIVE eof "$SB" "$p" sh -c 'echo a; exec >&-; sleep 2' 2>/dev/null)
		check_match "$t: stdout closed by the command: end of file at once, while it runs" '^a 0\.[0-9] running$' "$out"
		case=$((case + 1))
		out=$(as "$who" $DRIVE eof "$SB" "$p" sh -c "sleep $((U + 4000 + case)) & echo done" 2>/dev/null)
		check_match "$t: a background child holding stdout is ended with the command: end of file at once" '^done [0-2]\.[0-9] (running|ended)$' "$out"

		# /proc
		sbrun "$who" "$p" sh -c 'echo $$; ls /proc | grep -c "^[0-9]*$"'
		set -- $out
		if [ "$mech" = pid_namespace ]; then
			check "$t: the command is pid 2" 2 "${1:-}"
			if [ "${2:-99}" -le 4 ]; then ok "$t: /proc lists only the sandbox (${2:-?} processes)"; else not_ok "$t: /proc lists only the sandbox"; diag "got: $out"; fi
			sbrun "$who" "$p" sh -c 'cat /proc/$$/comm; touch /proc/x 2>/dev/null || echo ro'
			expect "$t: /proc/\$\$ is the command itself, read-only" 0 "sh
ro"
		else
			if [ "${1:-0}" -gt 2 ] && [ "${2:-0}" -gt 4 ]; then ok "$t: subreaper: the host's pids and /proc (as documented)"; else not_ok "$t: subreaper: the host's pids and /proc"; diag "got: $out"; fi
		fi

		# keep_fds and new_session still hold
		echo kept >"$ws/kept"
		out=$(as "$who" "$SB" "$(prof default "$ws" "\"no_survivors\":true,\"mounts\":\"$mounts\",\"keep_fds\":[5],\"new_session\":true")" -- sh -c 'cat <&5; ps -o sid= -p $$ >/dev/null; echo $?' 5<"$ws/kept" </dev/null 2>"$T/err")
		check "$t: keep_fds and new_session with no_survivors" "kept 0" "$(echo $out)"
	done
	if [ "$who" = root ]; then
		ws=$(mkws root surv-user)
		sbrun root "$(prof default "$ws" '"no_survivors":true,"user":{"uid":65534,"gid":65534}')" sh -c 'echo $(id -u) $$'
		if [ -n "$NONS" ]; then want="65534"; else want="65534 2"; fi
		check "root: user switch with no_survivors: runs as 65534${NONS:+ (subreaper)}" "$want" "$(echo "$out" | cut -d' ' -f1-$([ -n "$NONS" ] && echo 1 || echo 2))"
	fi
done
done_testing

#!/usr/bin/env bash
# The denial report ("denials": {"fd": N}): every system call the seccomp
# filter refuses is one JSON line on descriptor N, written by a listener
# outside the sandbox; the command sees the same errno as without it.
# As root and uid 65534, with mounts and "mounts":"off" (and, through
# build/tests/nons/report.t, with namespaces refused).
. "$(dirname "$0")/common.sh"
TS=$HELPERS/try-syscall
# the four calls of issue 11, each in a child of sh (the report follows
# forks), printing the errno each one saw
FOUR="$TS unshare-user; $TS mount \$0; $TS ptrace-attach ppid; $TS io_uring_setup"

# lines FILE — "syscall error" per report line, after checking every field
lines() {
	python3 - "$1" <<'EOF'
import json, sys
for raw in open(sys.argv[1]):
    d = json.loads(raw)
    assert set(d) == {"syscall", "nr", "errno", "error", "pid", "arch", "monotonic"}, d
    assert isinstance(d["nr"], int) and isinstance(d["pid"], int) and d["pid"] > 0, d
    assert isinstance(d["monotonic"], float) and d["arch"] == {"x86_64": "x86_64", "aarch64": "aarch64"}.get(__import__("platform").machine(), d["arch"]), d
    print(d["syscall"], d["error"])
EOF
}

# listeners TAG — pids of report listeners started with SB_REPORT_TAG=TAG
# in their environment (the listener keeps the shim's own)
listeners() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = sandbox-denials ] || continue
		{ tr "\0" "\n" <"$p/environ"; } 2>/dev/null | grep -qx "SB_REPORT_TAG=$1" && echo "${p#/proc/}"
	done
}

# gone FILE — wait (up to 5 s) until no process holds FILE open; "gone" or
# the pids still holding it
gone() {
	local i p held
	for i in $(seq 50); do
		held=
		for p in /proc/[0-9]*; do
			ls -l "$p/fd" 2>/dev/null | grep -q -- "-> $1\$" && held="$held ${p#/proc/}"
		done
		[ -z "$held" ] && { echo gone; return; }
		sleep 0.1
	done
	echo "held by$held"
}

# start_held WHO TAG PROFILE THEN — run `sh` in the sandbox (environment
# tag SB_REPORT_TAG=TAG, report on 3 to $rep, stdout to $T/held) that says
# "ready", waits for a line on $ws/fifo, then runs THEN; returns once it is
# ready (no sleeping: the listener, if any, was started before the command
# ran).  $sbpid is the sandbox's pid; release() lets it go on and waits.
start_held() {
	rm -f "$ws/fifo" "$T/ready"
	mkfifo "$ws/fifo" "$T/ready"
	chmod 666 "$ws/fifo"
	as "$1" env SB_REPORT_TAG="$2" "$SB" "$3" -- sh -c "echo ready >&4; exec 4>&-; read x <\"\$0/fifo\"; $4" "$ws" \
		</dev/null >"$T/held" 2>/dev/null 3>"$rep" 4>"$T/ready" &
	sbpid=$!
	read -r _ <"$T/ready"
}
release() { echo >"$ws/fifo"; wait "$sbpid"; }

for who in $USERS; do
	for mounts in auto off; do
		t="$who/mounts-$mounts"
		ws=$(mkws "$who" "report-$mounts")
		P=$(prof default "$ws" "\"mounts\":\"$mounts\",\"denials\":{\"fd\":3}")
		P0=$(prof default "$ws" "\"mounts\":\"$mounts\"")
		rep=$T/report-$who-$mounts.jsonl
		: >"$rep"

		out=$(as "$who" "$SB" "$P" -- sh -c "$FOUR" "$ws" </dev/null 2>"$T/err" 3>"$rep"); rc=$?
		seen=$(echo $out)
		without=$(as "$who" "$SB" "$P0" -- sh -c "$FOUR" "$ws" </dev/null 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
		check "$t: the command sees the same errnos with and without the report" "$without" "$seen"
		check "$t: nothing but notices on stderr, exit 0" "0 " "$rc $(grep -v '^__sandbox: notice: ' "$T/err")"
		got=$(lines "$rep" 2>&1)
		if [ -n "$NONS" ]; then
			# the outer filter (nons) refuses unshare first: an ERRNO
			# of an outer filter wins over this sandbox's notification,
			# and it is not this sandbox's refusal
			check "$t: exactly three lines, unshare refused by the outer filter" "mount EPERM
ptrace EPERM
io_uring_setup ENOSYS" "$got"
			check "$t: ... with the errnos the command saw" "EPERM EPERM EPERM ENOSYS" "$seen"
		else
			check "$t: exactly the four refused calls, one line each" "unshare EPERM
mount EPERM
ptrace EPERM
io_uring_setup ENOSYS" "$got"
			check "$t: ... with the errnos the command saw" "$(echo "$got" | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')" "$seen"
		fi
		check "$t: the listener does not outlive the sandbox" gone "$(gone "$rep")"

		# Nothing lost silently: 3,000 refused calls against a reader that
		# starts only once the command has ended — what did not fit is
		# counted ({"dropped":N}), the count of the very end too, and the
		# lines and the counts add up to the calls.
		rm -f "$T/many-done"
		res=$( { as "$who" "$SB" "$P" -- /usr/bin/python3 -c 'import ctypes
l = ctypes.CDLL(None)
for _ in range(3000): l.syscall(425, 1, 0)' </dev/null 3>&1 >/dev/null 2>/dev/null; touch "$T/many-done"; } |
			{ for _ in $(seq 600); do [ -e "$T/many-done" ] && break; sleep 0.05; done; python3 -c '
import json, sys
n = d = 0
for raw in sys.stdin:
    j = json.loads(raw)
    if "dropped" in j:
        d += j["dropped"]
    elif j.get("syscall") == "io_uring_setup":
        n += 1
print(n + d, d > 0)'; })
		check "$t: 3,000 refused calls, the reader late: lines + dropped counts = 3000, some dropped" "3000 True" "$res"

		# no_survivors: a command that exits right after its refused call
		# (its PID namespace, the listener's too, ends with it): every
		# line is written before the call is answered, so none is lost
		Pn=$(prof default "$ws" "\"mounts\":\"$mounts\",\"no_survivors\":true,\"denials\":{\"fd\":3}")
		lost=0
		for i in $(seq 20); do
			as "$who" "$SB" "$Pn" -- "$TS" io_uring_setup </dev/null >/dev/null 2>&1 3>"$rep"
			[ "$(lines "$rep" 2>&1)" = "io_uring_setup ENOSYS" ] || lost=$((lost + 1))
		done
		check "$t: no_survivors: a command exiting at once after its refused call loses no line (20 runs)" 0 "$lost"

		# the pids are the callers': a command that reports its own
		out=$(as "$who" "$SB" "$P" -- sh -c 'echo $$; exec "$1" io_uring_setup' sh "$TS" </dev/null 2>/dev/null 3>"$rep")
		check "$t: pid is the caller's" "$(echo "$out" | head -n1) ENOSYS" "$(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); print(d["pid"], d["error"])' "$rep" 2>&1)"

		# a listener of the command's own would win over the shim's
		out=$(as "$who" "$SB" "$P" -- "$TS" seccomp-listener </dev/null 2>/dev/null 3>"$rep")
		check "$t: the command cannot install a listener of its own (EBUSY, reported)" "EBUSY seccomp EBUSY" "$out $(lines "$rep")"
		check "$t: control: without the sandbox it can" ok "$(as "$who" "$TS" seccomp-listener)"

		# without the key no listener is started; with it, one, which is
		# not a child of the command, nor in its process group or session
		tag=$who-$mounts-$$-$RANDOM
		P0k=$(prof default "$ws" "\"mounts\":\"$mounts\",\"keep_fds\":[4]")
		Pk=$(prof default "$ws" "\"mounts\":\"$mounts\",\"keep_fds\":[4],\"denials\":{\"fd\":3}")
		start_held "$who" "$tag" "$P0k" true
		n0=$(listeners "$tag" | wc -l)
		release
		start_held "$who" "$tag-on" "$Pk" "\"$TS\" io_uring_setup"
		for _ in $(seq 100); do
			lpids=$(listeners "$tag-on")
			[ -n "$lpids" ] && break
			sleep 0.05
		done
		n1=$(echo "$lpids" | grep -c .)
		rel=$(for l in $lpids; do ps -o ppid=,pgid=,sid= -p "$l"; done | awk -v s="$sbpid" '{print ($1==s || $2==s || $3==s) ? "related" : "detached"}')
		release
		if [ "$(id -u)" = 0 ]; then
			check "$t: no listener without the key; one with it, detached from the command" "0 1 detached" "$n0 $n1 $rel"
		else
			skip "$t: listener count needs root (the listener is not dumpable)"
		fi

		# the listener gone: refused calls fail (ENOSYS), they never run
		: >"$rep"
		start_held "$who" "$tag-kill" "$Pk" "\"$TS\" mount \"\$0\"; \"$TS\" seccomp-listener"
		if [ "$(id -u)" = 0 ]; then
			# (found once it has named itself: on a loaded machine that
			# can come after the command is ready)
			lpids=
			for _ in $(seq 100); do
				lpids=$(listeners "$tag-kill")
				[ -n "$lpids" ] && break
				sleep 0.05
			done
			[ -n "$lpids" ] || diag "$t: no listener found to kill"
			for l in $lpids; do kill -9 "$l"; done
			# gone for good before the calls are made
			# dead (a zombie at most) before the calls are made
			for l in $lpids; do
				while [ -e "/proc/$l" ] && [ "$(awk '{print $3}' "/proc/$l/stat" 2>/dev/null)" != Z ]; do sleep 0.05; done
			done
			release
			check "$t: listener killed: refused calls fail with ENOSYS, a listener of the command's own still refused" "ENOSYS ENOSYS" "$(echo $(cat "$T/held"))"
		else
			release
			skip "$t: killing the listener needs root (finding it reads its environment)"
		fi
	done

	# profile errors name .denials
	ws=$(mkws "$who" report-errors)
	sbrun "$who" "$(prof default "$ws" '"denials":{"fd":9}')" true
	check_match "$who: a descriptor that is not open: 125 naming .denials.fd" '^125 __sandbox: profile \.denials\.fd: descriptor 9 is not open' "$rc $err"
	as "$who" "$SB" "$(prof default "$ws" '"denials":{"fd":3}')" -- true 2>"$T/err" 3</dev/null; rc=$?
	out=$(grep -v '^__sandbox: notice: ' "$T/err")
	check_match "$who: a descriptor open for reading only: 125" '^125 __sandbox: profile \.denials\.fd: descriptor 3 is open for reading only' "$rc $out"
	sbrun "$who" "$(prof default "$ws" '"denials":{"fd":2}')" true
	check_match "$who: stdio refused" '^125 __sandbox: profile \.denials\.fd: descriptors 0-2 belong to the command' "$rc $err"
	sbrun "$who" "$(prof default "$ws" '"denials":{"fd":3},"keep_fds":[3]')" true
	check_match "$who: the report descriptor kept for the command is refused" '^125 __sandbox: profile \.keep_fds\[0\]: descriptor 3 is \.denials\.fd' "$rc $err"

	# an outer filter with a listener (a container runtime's): one per chain
	as "$who" "$HELPERS/outer-listener" "$SB" "$(prof default "$ws" '"denials":{"fd":3}')" -- true 2>"$T/err" 3>/dev/null; rc=$?
	out=$(grep -v '^__sandbox: notice: ' "$T/err")
	check_match "$who: under an outer listener the report is refused (125), naming best_effort" '^125 __sandbox: profile \.denials: denial report: an outer seccomp filter already has a listener.*"best_effort":true' "$rc $out"
	out=$(as "$who" "$HELPERS/outer-listener" "$SB" "$(prof default "$ws" '"denials":{"fd":3},"best_effort":true')" -- "$TS" io_uring_setup 2>"$T/err" 3>/dev/null); rc=$?
	check "$who: ... with best_effort it runs, the filter still refusing" "0 ENOSYS" "$rc $out"
	check_match "$who: ... saying the report was left out" 'notice: left out: denial report' "$(cat "$T/err")"

	# --check shows the report and the rule that keeps listeners out
	js=$(as "$who" "$SB" --check "$(prof default "$ws" '"denials":{"fd":7}')" 2>/dev/null)
	check "$who: --check: seccomp.denials.fd and the EBUSY rule on seccomp" "7 EBUSY" \
		"$(printf '%s' "$js" | python3 -c 'import json,sys; s=json.load(sys.stdin)["seccomp"]; print(s["denials"]["fd"], *[r["action"] for r in s["rules"] if r["syscall"]=="seccomp"])')"
	js=$(as "$who" "$SB" --check "$(prof default "$ws")" 2>/dev/null)
	check "$who: --check without the key: no report, no such rule" "False 0" \
		"$(printf '%s' "$js" | python3 -c 'import json,sys; s=json.load(sys.stdin)["seccomp"]; print("denials" in s, len([r for r in s["rules"] if r["syscall"]=="seccomp"]))')"
done
done_testing

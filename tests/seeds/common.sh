# tests/seeds/common.sh — shared by speccoder.t, orch.t, mecha.t and codex.t (on top of
# tests/lib.sh): each seed system's policy, generated as the shim's JSON by
# tests/seeds/NAME_profile.py, run the way that system runs its commands,
# as root and as uid 65534, with mounts and where namespaces are refused
# (tests/helpers/nons), i.e. in both carve modes.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PY=/usr/bin/python3
TRY=$HELPERS/try-syscall
MODES="mounts nons"

# nspre MODE — the command prefix of MODE (tests/helpers/nons for "nons").
nspre() { [ "$1" = nons ] && echo "$HELPERS/nons"; return 0; }
# errno_of OUT — "refused" when OUT is an errno name (try-syscall's answer
# to a refused operation), else OUT.
errno_of() { case $1 in E[A-Z]*) echo refused ;; *) echo "${1:-(nothing)}" ;; esac; }

# run WHO MODE JSON CMD... — `__sandbox JSON -- CMD` as WHO, MODE "mounts"
# or "nons"; stdout in $out, status in $rc, stderr in $err.  HELPER_ARG
# (speccoder.t: "__sandbox") goes before JSON, as that system calls it.
HELPER_ARG=
run() {
	local who=$1 mode=$2 json=$3
	shift 3
	local pre=
	[ "$mode" = nons ] && pre=$HELPERS/nons
	out=$(as "$who" $pre "$SB" ${HELPER_ARG:+"$HELPER_ARG"} "$json" -- "$@" </dev/null 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
}
# outside WHO CMD... — the same command without the sandbox (control).
outside() { as "$who" "$@" 2>/dev/null; }
# fails RC — "refused" when RC is not 0, else "allowed".
fails() { [ "$1" != 0 ] && echo refused || echo allowed; }
# present PATH — "present" or "absent" (on the host).
present() { [ -e "$1" ] && echo present || echo absent; }
# own WHO PATH... — hand paths made by root to WHO.
own() {
	local who=$1
	shift
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$@"
	return 0
}
# ns_ok WHO MODE — false (after a skip line) when MODE cannot run for WHO.
ns_ok() {
	if [ "$2" = mounts ] && [ "$(as "$1" "$SB" --probe | $PY -c 'import json,sys; print(json.load(sys.stdin)["namespaces"]["mount"]["available"])')" != True ]; then
		skip "$1/$2: no mount namespace for $1 on this machine"
		return 1
	fi
	return 0
}

# no_landlock WHO MODE JSON — on a kernel without Landlock (lib.sh's ABI 0:
# none built in, or left out of lsm=; the kernel matrix boots one) a seed's
# profile, none of which sets best_effort, is refused: exit 125, the
# refusal naming Landlock and best_effort, the command never run; one skip
# line for the seed's other checks, which need Landlock.  Returns 1 on a
# kernel with Landlock (nothing checked), 0 after checking (the caller
# goes on to its next mode).
no_landlock() {
	[ "$ABI" = 0 ] || return 1
	run "$1" "$2" "$3" sh -c 'echo ran'
	check "$1/$2: without Landlock the seed's profile is refused (exit 125)" 125 "$rc"
	check_match "$1/$2: ... the refusal names Landlock and best_effort" \
		'cannot enforce .*Landlock \([^)]*refusing to run unconfined\).*"best_effort":true' "$err"
	check "$1/$2: ... and the command never ran" "" "$out"
	skip "$1/$2: the seed's other checks need Landlock (this kernel has none)"
	return 0
}

# A TCP server and a UDP socket on 127.0.0.1 outside the sandbox, as
# WHO: their ports in $PORT and $UPORT, stopped by tcp_stop.  Waits on its first line, not on time.
tcp_start() {
	rm -f "$T/tcp.in" "$T/tcp.out"
	mkfifo "$T/tcp.in" "$T/tcp.out"
	as "$1" "$TRY" listen-inet <"$T/tcp.in" >"$T/tcp.out" 2>/dev/null &
	TCP_PID=$!
	exec 7>"$T/tcp.in"
	read -r PORT UPORT <"$T/tcp.out"
}
tcp_stop() { exec 7>&-; wait "$TCP_PID" 2>/dev/null; }

# A pathname unix socket listening at PATH outside the sandbox, as WHO;
# unix_stop ends it.
unix_start() {
	rm -f "$T/unix.in" "$T/unix.out" "$2"
	mkfifo "$T/unix.in" "$T/unix.out"
	as "$1" "$TRY" listen-unix "$2" <"$T/unix.in" >"$T/unix.out" 2>/dev/null &
	UNIX_PID=$!
	exec 6>"$T/unix.in"
	read -r _ <"$T/unix.out"
}
unix_stop() { exec 6>&-; wait "$UNIX_PID" 2>/dev/null; }

# A process of WHO outside the sandbox to signal: its pid in $VICTIM.
victim_start() {
	if [ "$1" = nobody ]; then
		setpriv --reuid $NOBODY --regid $NOBODY --clear-groups -- sleep 300 &
	else
		sleep 300 &
	fi
	VICTIM=$!
	# until it is sleep (setpriv has switched uids and exec'd)
	for _ in $(seq 100); do
		[ "$(cat /proc/$VICTIM/comm 2>/dev/null)" = sleep ] && break
		sleep 0.02
	done
}
victim_stop() { kill "$VICTIM" 2>/dev/null; wait "$VICTIM" 2>/dev/null; }

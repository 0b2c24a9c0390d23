# tests/security/common.sh — shared by the security tests, on top of
# tests/lib.sh: the try-syscall helper ($TRY), one attempt inside the
# sandbox or outside it (the control) and the comparison, a background
# try-syscall for tests that need a peer (a listener, a victim), and a
# dedicated parent shell to attack.
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

# under_sh WHO CMD [ARG...] — run CMD as the child (not exec'd) of a
# dedicated sh owned by WHO: that sh is the "parent" a test attacks.
under_sh() {
	local who=$1
	shift
	as "$who" sh -c '"$@"; exit $?' sh "$@"
}

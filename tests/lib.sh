# tests/lib.sh — shared by the shell tests (TAP, run by prove).
#
# Each test file sources this, then loops over $USERS: "root" and "nobody"
# (uid 65534 through setpriv) when run as root, the current user otherwise.
# The binary and helpers are copied into a fresh world-accessible temporary
# directory, since the checkout may sit under /root (mode 700).
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Neither /tmp nor /var/tmp: the sandbox gives the command a private /tmp
# and /var/tmp (systemd's PrivateTmp), which would hide the fixtures; nor
# under /run (an empty view below Landlock ABI 9).  SBTEST_DIR overrides.
_tbase=${SBTEST_DIR:-/srv}
[ -w "$_tbase" ] || _tbase=$HOME
T=$(mktemp -d "$_tbase/sbtest.XXXXXX")
chmod 755 "$T"
# A file that hangs fails after SBTEST_TIMEOUT seconds (900) instead of
# holding make check, and CI, for ever: the watchdog holds none of the TAP
# pipe while it waits (prove would wait for it), writes "Bail out!" through
# the test's own standard output when it fires, kills the test's process
# tree and removes $T.  Disowned, so a bare `wait` in a test does not wait for it.
_sb_main=$$
_sb_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		_sb_tree "$c"
		echo "$c"
	done
}
(
	exec </dev/null >/dev/null 2>&1
	me=$BASHPID # (in the $(...) below $BASHPID would be that subshell's)
	sleep "${SBTEST_TIMEOUT:-900}" &
	# killed (the file ended: _sb_watchdog_stop) rather than timed out
	wait $! || exit 0
	kill -0 "$_sb_main" 2>/dev/null || exit 0
	echo "Bail out! $0: still running after ${SBTEST_TIMEOUT:-900} s (SBTEST_TIMEOUT)" >"/proc/$_sb_main/fd/1"
	kill -KILL $(_sb_tree "$_sb_main" | grep -vx "$me") "$_sb_main"
	rm -rf "$T"
) &
_sb_watchdog=$!
disown "$_sb_watchdog"
# ends the watchdog and its sleep (every EXIT trap calls it)
_sb_watchdog_stop() {
	pkill -P "$_sb_watchdog" sleep 2>/dev/null
	kill "$_sb_watchdog" 2>/dev/null
}
trap '_sb_watchdog_stop; rm -rf "$T"' EXIT
# SB_BINARY: test another build of the shim (make check-asan passes the
# sanitizer build); the default is the static binary `make` builds.
cp "${SB_BINARY:-$REPO/__sandbox}" "$T/__sandbox"
SB=$T/__sandbox
if [ -d "$REPO/build/helpers" ]; then
	mkdir -p "$T/bin"
	cp "$REPO"/build/helpers/* "$T/bin/" 2>/dev/null || true
fi
HELPERS=$T/bin
NOBODY=65534

if [ "$(id -u)" = 0 ]; then USERS="root nobody"; else USERS="user"; fi

# Landlock ABI of the running kernel (0 if none), from --probe.
ABI=$("$SB" --probe | sed -n 's/^ *"abi": \([0-9]*\),*$/\1/p' | head -n1)
ABI=${ABI:-0}

_n=0
_failed=0
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $*"; }
diag() { printf '# %s\n' "$@"; }
done_testing() { echo "1..$_n"; [ "$_failed" = 0 ]; }

# SB_NONS=1: run every `as` command where namespaces are refused the way
# container runtimes refuse them (tests/helpers/nons: unshare and clone with
# CLONE_NEW* → EPERM, clone3 → ENOSYS), so the shim must do without a mount,
# user or network namespace.  `make check` runs tests/integration that way
# too (tests/nons/*.t).
NONS=
if [ "${SB_NONS:-0}" = 1 ]; then
	if [ ! -x "$HELPERS/nons" ]; then
		echo "Bail out! SB_NONS=1 needs $REPO/build/helpers/nons (make tests)"
		exit 1
	fi
	NONS=$HELPERS/nons
fi

# as WHO CMD... — run CMD as root, as uid 65534, or as the current user
# (under $NONS when SB_NONS=1).
as() {
	local who=$1
	shift
	case $who in
	nobody) setpriv --reuid $NOBODY --regid $NOBODY --clear-groups -- ${NONS:+"$NONS"} "$@" ;;
	*) ${NONS:+"$NONS"} "$@" ;;
	esac
}

# mkws WHO NAME — a fresh workspace directory owned by WHO; prints its path.
mkws() {
	local d=$T/$1-$2
	mkdir -p "$d"
	[ "$1" = nobody ] && chown $NOBODY:$NOBODY "$d"
	echo "$d"
}

# The test profiles need the pathname unix socket scope left out on kernels
# below Landlock ABI 9 (mount views are not built yet); on ABI 9+ it is
# enforced regardless of this flag.
UNF='"unenforced":{"host_sockets":true}'

# check NAME EXPECTED ACTUAL — ok when equal, with both in the diagnostics.
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "expected: $2" "got: $3"; fi
}

# check_match NAME REGEX TEXT
check_match() {
	if printf '%s' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1"; diag "expected to match: $2" "got: $3"; fi
}

# need_mcp_server — set NM (tests/node_modules) and PKG (the MCP filesystem
# server), or fail the file: `make tests` installs it with npm ci.
need_mcp_server() {
	NM=$REPO/tests/node_modules
	PKG=@modelcontextprotocol/server-filesystem
	if [ ! -f "$NM/$PKG/dist/index.js" ]; then
		not_ok "$PKG is installed in tests/node_modules (make tests runs npm ci --prefix tests)"
		done_testing
		exit
	fi
}

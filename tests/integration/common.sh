# tests/integration/common.sh — shared by the integration tests, on top
# of tests/lib.sh: a plain PATH, the profiles they run under and running
# one command in the sandbox.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# READ_REAL: a realistic readable list, for the "real" style of prof
READ_REAL='"readable":["/usr","/etc","/bin","/lib","/lib64"]'
# prof STYLE WS [KEYS] — a profile: writable WS, readable / ("default")
# or $READ_REAL ("real"), plus KEYS.
prof() { local r=""; [ "$1" = real ] && r="$READ_REAL,"; echo "{$r\"writable\":[\"$2\"]${3:+,$3},$UNF}"; }
# sbrun WHO PROFILE CMD... — run CMD in the sandbox as WHO (stdin
# /dev/null): stdout in $out, exit status in $rc, stderr but the notices
# in $err.
sbrun() { local who=$1 p=$2; shift 2; out=$(as "$who" "$SB" "$p" -- "$@" </dev/null 2>"$T/err"); rc=$?; err=$(grep -v '^__sandbox: notice: ' "$T/err"); }
# expect NAME RC OUT — ok when the last sbrun exited RC and printed OUT.
expect() { if [ "$rc" = "$2" ] && [ "$out" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "expected rc=$2 out: $3" "got rc=$rc out: $out" "stderr: $err"; fi; }

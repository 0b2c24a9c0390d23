#!/bin/sh
# tests/guest/suite.sh BINDIR — the kernel-matrix suite: escape and
# behaviour tests of __sandbox for busybox sh, with expectations that
# depend on the Landlock ABI the running kernel reports (`__sandbox
# --probe`).  Run as root, inside a qemu guest (tests/guest/init) or
# natively (scripts/kernel-matrix); every test runs as root and as uid
# 65534 (through setuid-exec).  Prints TAP on stdout.
#
# BINDIR holds static programs only: __sandbox, try-syscall (one syscall,
# prints ok or the errno name), setuid-exec and busybox.
#
# For every ABI-dependent part the suite checks the one outcome the
# contract allows on this kernel: enforced (the escape fails, its control
# succeeds), or refused with the exact line naming every refused part
# (".where: part (reason)"), the ABI and the JSON that allows them; and with
# that JSON, run with the one notice line naming every part left out — the
# escape then succeeds, and the test says so (documented, not hidden).
# Where a mount namespace closes a gap below the ABI (truncate: everything
# outside the writable trees is a read-only mount; abstract sockets: an
# empty network namespace of its own), the part is neither refused nor
# named as left out in mount mode and the escape fails there; the same part
# is checked refused, and left out with the gap open, with "mounts":"off"
# and where the namespace does not cover it (a writable "/", network "on").
# A run on a kernel that enforces everything writes nothing on stderr.  Lines
# "# matrix: FEATURE | CELL" feed the kernel × feature table
# (doc/kernel-matrix.md) that scripts/kernel-matrix writes.
set -u
B=${1:?usage: suite.sh BINDIR}
SB=$B/__sandbox
TRY=$B/try-syscall
SU=$B/setuid-exec
BB=$B/busybox
NOBODY=65534
for f in "$SB" "$TRY" "$SU" "$BB"; do
	if [ ! -x "$f" ]; then
		echo "Bail out! $f is missing"
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "Bail out! the suite runs as root (it tests root and uid $NOBODY)"
	exit 1
fi
# Scratch space outside /tmp, /var/tmp and /run: in its mount namespace
# the sandbox gives the command a private /tmp and /var/tmp (and, below
# Landlock ABI 9, an empty view of /run), which would hide the fixtures and
# turn the filesystem tests' EACCES into ENOENT.  /srv (the guest's
# initramfs has it), SBG_BASE overrides.
SBG_BASE=${SBG_BASE:-/srv}
mkdir -p "$SBG_BASE" 2>/dev/null
W=$(mktemp -d "$SBG_BASE/sbg.XXXXXX") || { echo "Bail out! mktemp in $SBG_BASE"; exit 1; }
chmod 755 "$W"
BGPIDS=
cleanup() {
	for p in $BGPIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$W" ${TMPSOCKDIR:+"$TMPSOCKDIR"} ${RUNSOCKDIR:+"$RUNSOCKDIR"}
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- TAP ----------------------------------------------------------------
N=0
FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
skip() { N=$((N + 1)); echo "ok $N # SKIP $*"; }
diag() { for l in "$@"; do printf '# %s\n' "$l"; done; }
# check NAME EXPECTED ACTUAL — the last stderr of the shim on a mismatch
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "expected: $2" "got: $3"
		[ -s "$W/err" ] && diag "stderr: $(cat "$W/err")"
	fi
	return 0
}
# check_prefix NAME PREFIX ACTUAL — ACTUAL starts with PREFIX
check_prefix() {
	case $3 in
	"$2"*) ok "$1" ;;
	*) not_ok "$1"; diag "expected to start with: $2" "got: $3" ;;
	esac
}
# matrix FEATURE CELL — one cell of the kernel × feature table; a test
# of the feature failed since `section` (the start of its function): the
# cell says so.
SEC_FAILED=0
section() { SEC_FAILED=$FAILED; }
matrix() {
	if [ "$FAILED" -gt "$SEC_FAILED" ]; then
		echo "# matrix: $1 | $2 (TESTS FAILED)"
	else
		echo "# matrix: $1 | $2"
	fi
}

# ---- running things -------------------------------------------------------
# as WHO CMD... — run CMD as root or as uid 65534 (groups cleared)
as() {
	who=$1
	shift
	if [ "$who" = nobody ]; then "$SU" $NOBODY $NOBODY "$@"; else "$@"; fi
}
# as_exec WHO CMD... — the same, replacing the current (sub)shell
as_exec() {
	who=$1
	shift
	if [ "$who" = nobody ]; then exec "$SU" $NOBODY $NOBODY "$@"; else exec "$@"; fi
}

# The unenforced flags every ordinary profile of this suite carries so it
# runs on any ABI; on a kernel that can enforce a part, its flag changes
# nothing (checked by the feature tests below).
UNF='"unenforced":{"host_sockets":true,"signal_scope":true,"truncate":true}'

# inside WHO KEYS OP [ARG...] — try-syscall OP in the sandbox with profile
# {UNF,KEYS}; prints its one line, the shim's stderr in $W/err.
inside() {
	who=$1 keys=$2
	shift 2
	LAST_PROF="{$UNF${keys:+,$keys}}"
	as "$who" "$SB" "{$UNF${keys:+,$keys}}" -- "$TRY" "$@" 2>"$W/err"
}
# raw WHO PROFILE OP [ARG...] — the same with the profile as given, run
# as a statement (not in $(...)): the exit status in $RC, stdout in $OUT.
raw() {
	who=$1 prof=$2
	shift 2
	LAST_PROF=$prof
	as "$who" "$SB" "$prof" -- "$TRY" "$@" >"$W/out" 2>"$W/err"
	RC=$?
	OUT=$(cat "$W/out")
}
# outside WHO OP [ARG...] — the same attempt without the sandbox (control)
outside() {
	who=$1
	shift
	as "$who" "$TRY" "$@" 2>"$W/err"
}
# under_sh WHO CMD... — CMD as the child of a dedicated sh owned by WHO,
# the "parent" a test attacks
under_sh() {
	who=$1
	shift
	as "$who" "$BB" sh -c '"$@"; exit $?' sh "$@"
}
# chmod_try WHO MODE PATH [PROFILE] — busybox chmod MODE PATH as WHO, in
# the sandbox with PROFILE (as given) or, without one, outside; prints ok
# or the errno name of busybox's message (try-syscall has no chmod op).
chmod_try() {
	who=$1 mode=$2 path=$3
	if [ $# -ge 4 ]; then
		msg=$(as "$who" "$SB" "$4" -- "$BB" sh -c '"$0" chmod "$1" "$2" 2>&1 && echo ok' "$BB" "$mode" "$path" 2>"$W/err")
	else
		msg=$(as "$who" "$BB" sh -c '"$0" chmod "$1" "$2" 2>&1 && echo ok' "$BB" "$mode" "$path" 2>"$W/err")
	fi
	case $msg in
	ok) echo ok ;;
	*": Operation not permitted") echo EPERM ;;
	*": Read-only file system") echo EROFS ;;
	*": Permission denied") echo EACCES ;;
	*": No such file or directory") echo ENOENT ;;
	*) echo "$msg" ;;
	esac
}
# mode_of PATH — its permission bits in octal (set-uid/set-gid included)
mode_of() { "$BB" stat -c %a "$1"; }
# mnt_opts WHO PROFILE DIR — ro or rw, nosuid and nodev of the mount on DIR
# as the sandbox sees it (/proc/self/mountinfo: the last mount there)
mnt_opts() {
	as "$1" "$SB" "$2" -- "$BB" awk -v d="$3" '$5 == d { o = $6 }
		END { n = split(o, a, ","); for (i = 1; i <= n; i++) if (a[i] ~ /^(ro|rw|nosuid|nodev)$/) s = s (s ? " " : "") a[i]; print s }' \
		/proc/self/mountinfo 2>"$W/err"
}
# ns_of WHO [PROFILE] — "ipc:X net:Y" for the IPC and network namespaces,
# X and Y "host" (the suite's own) or "private"; in the sandbox with
# PROFILE, or outside without one
ns_of() {
	if [ $# -ge 2 ]; then
		ids=$(as "$1" "$SB" "$2" -- "$BB" sh -c '"$0" echo $("$0" readlink /proc/self/ns/ipc) $("$0" readlink /proc/self/ns/net)' "$BB" 2>"$W/err")
	else
		ids=$(as "$1" "$BB" sh -c '"$0" echo $("$0" readlink /proc/self/ns/ipc) $("$0" readlink /proc/self/ns/net)' "$BB" 2>"$W/err")
	fi
	set -- $ids
	if [ $# -ne 2 ]; then
		echo "?: $ids"
		return
	fi
	nsi=private nsn=private
	[ "$1" = "$("$BB" readlink /proc/self/ns/ipc)" ] && nsi=host
	[ "$2" = "$("$BB" readlink /proc/self/ns/net)" ] && nsn=host
	echo "ipc:$nsi net:$nsn"
}
# errline — the shim's non-notice stderr lines (a refusal is one line:
# comparing all of them checks that too)
errline() { grep -v '^__sandbox: notice: ' "$W/err"; }
# refusal FIX PART... — the one line refusing every PART (".where: part
# (reason)", or "part (reason)" without a location), FIX the JSON that
# allows them all
refusal() {
	fix=$1
	shift
	them=it
	[ $# -gt 1 ] && them=them
	list=
	for p in "$@"; do list="${list:+$list; }$p"; done
	# the profile's own unenforced parts (LAST_PROF: the profile of the
	# last raw/inside run) stay in the object, which replaces its own
	repl=
	case $fix in
	'"unenforced":{'*'}')
		have=$(printf '%s' "${LAST_PROF:-}" | sed -n 's/.*"unenforced":{\([^}]*\)}.*/\1/p')
		if [ -n "$have" ]; then
			inner=${fix#\"unenforced\":\{}
			inner=${inner%\}}
			for k in trust_handoff workspace_sockets signal_scope carve truncate tcp_ports udp_ports host_sockets; do
				case ",$have," in
				*"\"$k\":true"*)
					case ",$inner," in *"\"$k\":true"*) ;; *) inner="$inner,\"$k\":true" ;; esac ;;
				esac
			done
			fix="\"unenforced\":{$inner}"
			repl=' (replacing its "unenforced")'
		fi
		;;
	esac
	hint=
	case $fix in *'"workspace_sockets"'*) hint=' (workspace_sockets refuses every unix socket; "host_sockets":true instead leaves the host'"'"'s reachable)' ;; esac
	echo "__sandbox: this host cannot enforce $list; to run without $them, set in the profile$repl: $fix$hint"
}
# left PART REASON KEY — one part of the left-out notice (KEY ".unenforced.x"
# or ".best_effort": "allowed by KEY"; else KEY as it is)
left() {
	case $3 in
	.*) echo "$1 ($2; allowed by $3)" ;;
	*) echo "$1 ($2; $3)" ;;
	esac
}
# leftline — the notice lines naming what was left out (one at most)
leftline() { grep '^__sandbox: notice: left out: ' "$W/err"; }
# has_left TEXT — true if the left-out notice contains TEXT
has_left() {
	case $(leftline) in *"$1"*) return 0 ;; esac
	return 1
}
# check_notice NAME TEXT — exactly one left-out notice line, containing TEXT
check_notice() {
	if [ "$(leftline | wc -l)" -eq 1 ] && has_left "$2"; then
		ok "$1"
	else
		not_ok "$1"
		diag "expected one left-out notice line containing: $2" "stderr: $(cat "$W/err")"
	fi
}

# bg_start FD NAME WHO CMD... — start CMD as WHO in the background, its
# stdin on a fifo held open on descriptor FD, and read its first (ready)
# line into BG_LINE; its pid is BG_PID.  bg_stop FD closes the fifo,
# which ends try-syscall's listeners.
bg_start() {
	fd=$1 name=$2 who=$3
	shift 3
	mkfifo "$W/$name.in" "$W/$name.out"
	(as_exec "$who" "$@") <"$W/$name.in" >"$W/$name.out" 2>"$W/$name.err" &
	BG_PID=$!
	BGPIDS="$BGPIDS $BG_PID"
	eval "exec $fd>\"\$W/\$name.in\"; BGP_$fd=\$BG_PID"
	BG_LINE=
	read -r BG_LINE <"$W/$name.out"
}
# (later children inherit the fifo too, so the process is also killed)
bg_stop() { eval "exec $1>&-; kill \$BGP_$1 2>/dev/null"; }

# mkws WHO NAME — a fresh directory owned by WHO
mkws() {
	d=$W/$1-$2
	mkdir -p "$d"
	[ "$1" = nobody ] && chown $NOBODY:$NOBODY "$d"
	echo "$d"
}

# ---- the kernel ----------------------------------------------------------
PROBE=$("$SB" --probe)
ABI=$(echo "$PROBE" | sed -n 's/^ *"abi": \([0-9]*\),*$/\1/p' | head -n 1)
ABI=${ABI:-0}
STATUS=$(echo "$PROBE" | sed -n 's/^ *"status": "\(.*\)",*$/\1/p' | head -n 1)
# Landlock's own errno: the "errno" member right after its "status"
LLERR=$(echo "$PROBE" | awk '/"status":/ { s = 1; next } s { if ($1 == "\"errno\":" && $2 ~ /^"/) { gsub(/[",]/, "", $2); print $2 } exit }')
[ -n "$LLERR" ] && STATUS="$STATUS ($LLERR)"
# mount namespaces (carve-outs, socket views) for WHO: yes or no
mounts_for() {
	as "$1" "$SB" --probe | awk '/"mount": \{/ { m = 1 } m && /"available":/ { print ($2 ~ /true/) ? "yes" : "no"; exit }'
}
MNT_root=$(mounts_for root)
MNT_nobody=$(mounts_for nobody)
KREL=$(uname -r)
diag "kernel $KREL: Landlock ABI $ABI ($STATUS); mount namespaces: root $MNT_root, uid $NOBODY $MNT_nobody"
echo "# matrix-kernel: $KREL | $ABI | $STATUS"
HAVE="this kernel has $ABI"

# ---- shared fixtures ------------------------------------------------------
# A copy of /dev/null outside /dev, in a tree that is only readable: the
# one way a device node is reachable other than through `devices`.
mkdir -p "$W/devs"
if mknod "$W/devs/null" c 1 3 2>/dev/null && chmod 666 "$W/devs/null"; then HAVE_NODE=yes; else HAVE_NODE=no; fi
# A file only its owner (uid 1234) may read: root needs CAP_DAC_OVERRIDE.
echo private >"$W/private"
chown 1234:1234 "$W/private"
chmod 600 "$W/private"
# A pathname socket outside every writable tree, one under the host's /tmp
# (which the sandbox's mount namespace replaces by a private one) and one
# under /run (an empty view there below Landlock ABI 9).
mkdir -p "$W/sockdir"
TMPSOCKDIR=$(mktemp -d /tmp/sbg-sock.XXXXXX)
RUNSOCKDIR=$(mktemp -d /run/sbg-sock.XXXXXX)
chmod 755 "$TMPSOCKDIR" "$RUNSOCKDIR"
BGPIDS="$BGPIDS"
umask 000
bg_start 4 sock root "$TRY" listen-unix "$W/sockdir/s"
check "fixture: a pathname socket listener outside the writable trees" ok "$BG_LINE"
bg_start 5 tmpsock root "$TRY" listen-unix "$TMPSOCKDIR/s"
check "fixture: a pathname socket listener under /tmp" ok "$BG_LINE"
bg_start 3 runsock root "$TRY" listen-unix "$RUNSOCKDIR/s"
check "fixture: a pathname socket listener under /run" ok "$BG_LINE"
umask 022
# Two TCP listeners and two UDP sockets on 127.0.0.1.
bg_start 6 inet1 root "$TRY" listen-inet
set -- $BG_LINE
TCP1=${1:-0} UDP1=${2:-0}
bg_start 7 inet2 root "$TRY" listen-inet
set -- $BG_LINE
TCP2=${1:-0} UDP2=${2:-0}
if [ "$TCP1" -gt 0 ] && [ "$TCP2" -gt 0 ] 2>/dev/null; then
	ok "fixture: TCP listeners on 127.0.0.1 ports $TCP1 and $TCP2, UDP $UDP1 and $UDP2"
else
	not_ok "fixture: TCP listeners on 127.0.0.1"
	diag "got: $TCP1 $TCP2 ($(cat "$W/inet1.err" "$W/inet2.err"))"
fi
# An abstract unix socket created outside any sandbox.
ABSNAME=sbg-$$-abs
bg_start 8 abs root "$TRY" listen-abstract "$ABSNAME"
check "fixture: an abstract unix socket listener" ok "$BG_LINE"

# ---- no Landlock at all (booted without it in lsm=) -----------------------
no_landlock() {
	section
	why="built into this kernel but disabled at boot: add landlock to the lsm= boot parameter"
	[ "$STATUS" = "disabled (EOPNOTSUPP)" ] ||
		why="this kernel has no Landlock: needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK"
	for who in root nobody; do
		eval "m=\$MNT_$who"
		ws=$(mkws "$who" nl-ws)
		echo secret >"$W/nl-secret"
		chmod 644 "$W/nl-secret"
		prof="{\"writable\":[\"$ws\"]}"
		raw "$who" "$prof" open-read "$W/nl-secret"
		out=$OUT
		check "$who: without Landlock a profile is refused (exit 125)" 125 "$RC"
		check "$who: ... with one line naming why and best_effort" \
			"$(refusal '"best_effort":true' "Landlock ($why; refusing to run unconfined)")" "$(errline)"
		check "$who: ... and the command did not run" "" "$out"
		prof="{\"writable\":[\"$ws\"],\"best_effort\":true}"
		raw "$who" "$prof" open-read "$W/nl-secret"
		check "$who: with best_effort it runs; nothing restricts reading files (documented)" ok "$OUT"
		check_notice "$who: ... and a notice names Landlock as left out" \
			"left out: $(left Landlock "$why" .best_effort)"
		check "$who: ... and nothing else on stderr" "" "$(grep -v '^__sandbox: notice: left out: ' "$W/err")"
		raw "$who" "$prof" bpf-badcmd
		check "$who: ... seccomp still refuses bpf" EPERM "$OUT"
		raw "$who" "$prof" unshare-user
		check "$who: ... and user namespaces" EPERM "$OUT"
		check "$who: control: bpf with an invalid command answers EINVAL outside" EINVAL "$(outside "$who" bpf-badcmd)"
		if [ "$m" = yes ]; then
			raw "$who" "$prof" connect-unix "$TMPSOCKDIR/s"
			check "$who: ... the mount namespace still gives a private /tmp: the host's socket there is not there" ENOENT "$OUT"
		else
			skip "$who: no mount namespace for uid $who here: the private /tmp is not tested"
		fi
	done
	matrix "Landlock (every filesystem, network and scope rule)" "refused; left out with notice (best_effort)"
	matrix "seccomp default filter" enforced
}

# ---- filesystem (every ABI) ------------------------------------------------
filesystem() {
	section
	who=$1
	ws=$(mkws "$who" ws)
	out=$(mkws "$who" out)
	sec=$(mkws "$who" secret)
	echo secret >"$sec/secret.txt"
	chmod 644 "$sec/secret.txt"
	ln -s "$sec/secret.txt" "$ws/link-to-secret"
	echo old >"$out/existing"
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$out/existing"
	narrow="\"readable\":[\"$B\"],\"writable\":[\"$ws\"]"
	check "$who: control: a file is readable outside the sandbox" ok "$(outside "$who" open-read "$sec/secret.txt")"
	check "$who: reading it outside every granted tree is refused" EACCES \
		"$(inside "$who" "$narrow" open-read "$sec/secret.txt")"
	check "$who: ... also through .. from a granted tree" EACCES \
		"$(inside "$who" "$narrow" open-read "$ws/../$who-secret/secret.txt")"
	check "$who: ... also through a symlink in the workspace" EACCES \
		"$(inside "$who" "$narrow" open-read "$ws/link-to-secret")"
	check "$who: control: it is readable once its tree is" ok \
		"$(inside "$who" "\"readable\":[\"$B\",\"$sec\"],\"writable\":[\"$ws\"]" open-read "$sec/secret.txt")"
	ro="\"writable\":[\"$ws\"]"
	off="$ro,\"mounts\":\"off\""
	# With a mount namespace everything outside the writable trees is a
	# read-only mount, which the kernel checks before Landlock: EROFS.
	# Without one (mounts "off", or none to be had) Landlock refuses:
	# EACCES.  Both are checked where both exist.
	eval "m=\$MNT_$who"
	if [ "$m" = yes ]; then
		e=EROFS how="a read-only mount"
	else
		e=EACCES how="Landlock: no mount namespace here"
	fi
	check "$who: creating a file outside the writable trees is refused ($e: $how)" $e "$(inside "$who" "$ro" open-write "$out/new")"
	check "$who: ... and nothing was created" no "$([ -e "$out/new" ] && echo yes || echo no)"
	check "$who: writing an existing file there is refused ($e)" $e "$(inside "$who" "$ro" open-write "$out/existing")"
	check "$who: removing it is refused ($e)" $e "$(inside "$who" "$ro" unlink "$out/existing")"
	check "$who: creating a directory there is refused ($e)" $e "$(inside "$who" "$ro" mkdir "$out/d")"
	check "$who: mounts off: creating a file there is refused by Landlock (EACCES)" EACCES "$(inside "$who" "$off" open-write "$out/new")"
	check "$who: ... and nothing was created" no "$([ -e "$out/new" ] && echo yes || echo no)"
	check "$who: mounts off: writing the existing file is refused (EACCES)" EACCES "$(inside "$who" "$off" open-write "$out/existing")"
	check "$who: mounts off: removing it is refused (EACCES)" EACCES "$(inside "$who" "$off" unlink "$out/existing")"
	check "$who: mounts off: creating a directory there is refused (EACCES)" EACCES "$(inside "$who" "$off" mkdir "$out/d")"
	check "$who: ... and the file is intact" old "$(cat "$out/existing")"
	check "$who: control: the same write works outside" ok "$(outside "$who" open-write "$out/existing")"
	check "$who: control: creating a file in the workspace works" ok "$(inside "$who" "$ro" open-write "$ws/new")"
	check "$who: control: creating a directory in the workspace works" ok "$(inside "$who" "$ro" mkdir "$ws/d1")"
	check "$who: control: mounts off: creating a file in the workspace works" ok "$(inside "$who" "$off" open-write "$ws/new-off")"
	matrix "filesystem rules (read, write, create, remove)" enforced

	# refer (ABI 2): moving between directories inside the workspace works,
	# moving out of it does not.
	mkdir -p "$ws/d2"
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$ws/d2"
	check "$who: renaming a file into another directory of the workspace works (refer)" ok \
		"$(inside "$who" "$ro" rename "$ws/new" "$ws/d2/moved")"
	# (with a mount namespace the workspace is a mount of its own: a
	# rename out of it crosses mounts, EXDEV, before Landlock's refer)
	ex=EACCES
	[ "$m" = yes ] && ex=EXDEV
	check "$who: moving a file out of the workspace is refused ($ex)" $ex \
		"$(inside "$who" "$ro" rename "$ws/d2/moved" "$out/moved")"
	check "$who: mounts off: moving it out is refused by Landlock (EACCES)" EACCES \
		"$(inside "$who" "$off" rename "$ws/d2/moved" "$out/moved")"
	check "$who: ... and it stayed" yes "$([ -e "$ws/d2/moved" ] && echo yes || echo no)"
	# several writable trees: one mount per outermost tree, so a tree
	# inside another is no mount of its own (renaming between them
	# works); two sibling trees are two mounts (EXDEV between them)
	mkdir -p "$ws/inner"
	sib=$(mkws "$who" ws-sib)
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$ws/inner"
	for f in "$ws/inner/a" "$ws/b"; do
		echo x >"$f"
		[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$f"
	done
	three="\"writable\":[\"$ws\",\"$ws/inner\",\"$sib\"]"
	if [ "$m" = yes ]; then
		check "$who: writable trees: the outer one is a writable mount" "rw nosuid nodev" "$(mnt_opts "$who" "{$UNF,$three}" "$ws")"
		check "$who: ... one inside it is no mount of its own" "" "$(mnt_opts "$who" "{$UNF,$three}" "$ws/inner")"
		check "$who: ... a sibling is a writable mount of its own" "rw nosuid nodev" "$(mnt_opts "$who" "{$UNF,$three}" "$sib")"
	fi
	check "$who: renaming from a writable tree into the one around it works" ok \
		"$(inside "$who" "$three" rename "$ws/inner/a" "$ws/a")"
	check "$who: ... and back into the inner one" ok \
		"$(inside "$who" "$three" rename "$ws/a" "$ws/inner/a")"
	check "$who: mounts off: renaming between them works too" ok \
		"$(inside "$who" "$three,\"mounts\":\"off\"" rename "$ws/inner/a" "$ws/a")"
	if [ "$m" = yes ]; then
		check "$who: renaming into a sibling writable tree crosses mounts (EXDEV)" EXDEV \
			"$(inside "$who" "$three" rename "$ws/b" "$sib/b")"
		check "$who: ... and it stayed" yes "$([ -e "$ws/b" ] && echo yes || echo no)"
	fi
	check "$who: control: mounts off: renaming into the sibling tree works (refer)" ok \
		"$(inside "$who" "$three,\"mounts\":\"off\"" rename "$ws/b" "$sib/b")"
	matrix "cross-directory rename and link (refer)" enforced

	# executable trees: a program copied into the workspace, run with
	# `executable` narrowed to BINDIR, is refused by the shim (126).
	cp "$TRY" "$ws/try-copy"
	chmod 755 "$ws/try-copy"
	as "$who" "$SB" "{$UNF,$ro,\"executable\":[\"$B\"]}" -- "$ws/try-copy" getenv X >"$W/out" 2>"$W/err"
	check "$who: a program outside the executable trees is refused (exit 126)" 126 "$?"
	check_prefix "$who: ... naming .executable" \
		"__sandbox: profile .executable \"$ws/try-copy\": cannot execute: the file is not inside the profile's executable trees" \
		"$(errline)"
	check "$who: control: it runs when the workspace is executable (the default)" unset \
		"$(as "$who" "$SB" "{$UNF,$ro}" -- "$ws/try-copy" getenv X 2>"$W/err")"

	# devices: only the `devices` list reaches /dev
	check "$who: control: /dev/null is writable inside (a default device)" ok "$(inside "$who" "$ro" open-write /dev/null)"
	if [ "$who" = root ]; then
		# (writes one "x" line to the kernel log)
		check "root: control: /dev/kmsg is writable outside" ok "$(outside root open-write /dev/kmsg)"
		check "root: /dev/kmsg (not in devices) is refused through the readable /" EACCES \
			"$(inside root "$ro" open-write /dev/kmsg)"
	fi
}

# ---- process: capabilities, no_new_privs, stdout, exit codes ---------------
process() {
	section
	who=$1
	ws=$(mkws "$who" ws)
	ro="\"writable\":[\"$ws\"]"
	if [ "$who" = root ]; then
		check "root: control: root reads another user's 0600 file outside (CAP_DAC_OVERRIDE)" ok \
			"$(outside root open-read "$W/private")"
		check "root: inside, every capability is dropped: the same read is refused" EACCES \
			"$(inside root "$ro" open-read "$W/private")"
	fi
	st=$(as "$who" "$SB" "{$UNF,$ro}" -- "$BB" grep -E '^(CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status 2>"$W/err" | tr '\t' ' ')
	check "$who: effective, bounding and ambient sets are empty; no_new_privs is set" \
		"CapEff: 0000000000000000 CapBnd: 0000000000000000 CapAmb: 0000000000000000 NoNewPrivs: 1" \
		"$(echo $st)"
	matrix "capabilities dropped, no_new_privs" enforced
	check "$who: the shim writes nothing to stdout" hello \
		"$(as "$who" "$SB" "{$UNF,$ro}" -- "$BB" echo hello 2>"$W/err")"
	as "$who" "$SB" "{$UNF,$ro}" -- /nonexistent/cmd >/dev/null 2>"$W/err"
	check "$who: a missing command exits 127" 127 "$?"
	as "$who" "$SB" '{"foo":1}' -- "$BB" true >/dev/null 2>"$W/err"
	check "$who: a bad profile exits 125" 125 "$?"
	check "$who: ... naming the key" "__sandbox: profile .foo: unknown key" "$(errline)"
	check "$who: the command's exit status is passed through" 7 \
		"$(as "$who" "$SB" "{$UNF,$ro}" -- "$BB" sh -c 'exit 7' 2>"$W/err"; echo $?)"
	# The default profile where this kernel enforces all of it (pathname
	# sockets: ABI 9, or ABI 6 and the mount views): not a word on
	# stderr, also without a terminal (the default device /dev/tty is
	# left out silently: none of stdin, stdout and stderr is one, and
	# setsid: there is no controlling terminal).
	eval "m=\$MNT_$who"
	if [ "$ABI" -ge 9 ] || { [ "$ABI" -ge 6 ] && [ "$m" = yes ]; }; then
		as "$who" "$BB" setsid "$SB" '{}' -- "$BB" true </dev/null >"$W/out" 2>"$W/err"
		check "$who: the default profile, enforced in full, without a terminal: exit 0" 0 "$?"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
		as "$who" "$SB" "{\"writable\":[\"$ws\"]}" -- "$TRY" open-write "$ws/quiet" </dev/null >"$W/out" 2>"$W/err"
		check "$who: a workspace profile, enforced in full: it runs" ok "$(cat "$W/out")"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
	elif [ "$ABI" -ge 2 ] && [ "$m" = yes ]; then
		# ABI 2 to 5 with a mount namespace: the read-only root closes the
		# truncate gap (ABI 3), the empty network namespace the abstract
		# socket one (ABI 6), the views the pathname one (ABI 9): only
		# the signal scope is refused
		LAST_PROF='{}'
		as "$who" "$BB" setsid "$SB" '{}' -- "$BB" true </dev/null >"$W/out" 2>"$W/err"
		check "$who: the default profile on ABI $ABI with a mount namespace is refused (exit 125)" 125 "$?"
		check "$who: ... for the signal scope only (truncate and socket scopes closed by the namespaces)" \
			"$(refusal '"unenforced":{"signal_scope":true}' ".signals: signal scope (needs Landlock ABI 6; $HAVE)")" \
			"$(cat "$W/err")"
		as "$who" "$BB" setsid "$SB" '{"signals":"any"}' -- "$BB" true </dev/null >"$W/out" 2>"$W/err"
		check "$who: with signals \"any\" the default profile runs: exit 0" 0 "$?"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
		as "$who" "$SB" "{\"writable\":[\"$ws\"],\"signals\":\"any\"}" -- "$TRY" open-write "$ws/quiet" </dev/null >"$W/out" 2>"$W/err"
		check "$who: a workspace profile with signals \"any\": it runs" ok "$(cat "$W/out")"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
	else
		skip "$who: Landlock ABI $ABI$([ "$m" = yes ] || echo ' without mount namespaces') cannot enforce the default profile in full (checked below)"
	fi
	# /dev/tty only when one of the command's stdin, stdout and stderr is
	# a terminal: listed explicitly, the notice says why it was skipped
	dv="\"devices\":[\"/dev/null\",\"/dev/tty\"]"
	as "$who" "$SB" "{$UNF,$ro,$dv}" -- "$TRY" open-read /dev/tty </dev/null >"$W/out" 2>"$W/err"
	check "$who: no terminal on stdio: /dev/tty is not granted (EACCES)" EACCES "$(cat "$W/out")"
	check "$who: ... and the notice says why" \
		"__sandbox: notice: .devices[1] \"/dev/tty\": skipped: none of the command's stdin, stdout and stderr is a terminal" \
		"$(grep -F '"/dev/tty"' "$W/err")"
	# a terminal on stdio that is not the controlling one (the console,
	# here) does not open /dev/tty either: the user's terminal may be
	# elsewhere (the control with a controlling terminal is
	# tests/security/ipc_tty.t, under script(1))
	if { [ -t 0 ]; } </dev/console 2>/dev/null; then
		as "$who" "$SB" "{$UNF,$ro,$dv}" -- "$TRY" open-read /dev/tty </dev/console >"$W/out" 2>"$W/err"
		check "$who: a terminal on stdin that is not the controlling one: /dev/tty is not granted (EACCES)" EACCES "$(cat "$W/out")"
	else
		skip "$who: /dev/console is not a terminal here"
	fi
}

# ---- environment, tmp, inherited descriptors (every ABI) -------------------
behaviour() {
	section
	who=$1
	ws=$(mkws "$who" beh-ws)
	ro="\"writable\":[\"$ws\"]"
	export SBG_OUTSIDE=1
	check "$who: env.clear drops the environment, env.set adds" "unset set" \
		"$(as "$who" "$SB" "{$UNF,$ro,\"env\":{\"clear\":true,\"set\":{\"A\":\"1\"}}}" -- "$BB" sh -c \
			'echo "${SBG_OUTSIDE:+set}${SBG_OUTSIDE:-unset} ${A:+set}"' 2>"$W/err")"
	check "$who: control: without env rules the variable is inherited" set \
		"$(as "$who" "$SB" "{$UNF,$ro}" -- "$BB" sh -c 'echo "${SBG_OUTSIDE:+set}"' 2>"$W/err")"
	unset SBG_OUTSIDE
	td=$(mkws "$who" tmp-parent)/t
	check "$who: tmp: TMPDIR names the private directory" "$td" \
		"$(as "$who" "$SB" "{$UNF,$ro,\"tmp\":\"$td\"}" -- "$BB" sh -c 'echo "$TMPDIR"' 2>"$W/err")"
	check "$who: ... created mode 0700, owned by the user" "700 $(as "$who" "$BB" id -u)" \
		"$("$BB" stat -c '%a %u' "$td" 2>&1)"
	check "$who: ... and writable inside" ok "$(inside "$who" "$ro,\"tmp\":\"$td\"" open-write "$td/f")"
	chmod 777 "$td"
	as "$who" "$SB" "{$UNF,$ro,\"tmp\":\"$td\"}" -- "$BB" true 2>"$W/err"
	check "$who: ... a world-writable one is refused (exit 125)" 125 "$?"
	check "$who: inherited descriptors above 2 are closed" closed \
		"$(as "$who" "$SB" "{$UNF,$ro}" -- "$BB" sh -c '[ -e /proc/self/fd/7 ] && echo open || echo closed' 7</dev/null 2>"$W/err")"
	check "$who: ... unless listed in keep_fds" open \
		"$(as "$who" "$SB" "{$UNF,$ro,\"keep_fds\":[7]}" -- "$BB" sh -c '[ -e /proc/self/fd/7 ] && echo open || echo closed' 7</dev/null 2>"$W/err")"
	matrix "environment, tmp, inherited descriptors" enforced
}

# ---- seccomp (every ABI) ----------------------------------------------------
syscalls() {
	section
	who=$1
	if [ "$who" = root ]; then
		mkdir -p "$W/mnt"
		check "root: control: mount works outside" ok "$(outside root mount "$W/mnt")"
		check "root: mount is refused" EPERM "$(inside root "" mount "$W/mnt")"
		check "root: fsopen (new mount API) is refused" EPERM "$(inside root "" fsopen)"
		o=$(outside root tiocsti /dev/ptmx)
		if [ "$o" = ok ]; then
			ok "root: control: TIOCSTI works outside (CAP_SYS_ADMIN)"
			check "root: TIOCSTI is refused" EPERM "$(inside root "" tiocsti /dev/ptmx)"
			check "root: ... also with the request's high bits set" EPERM "$(inside root "" tiocsti-high /dev/ptmx)"
		else
			skip "root: TIOCSTI answers $o outside already (dev.tty.legacy_tiocsti): nothing to compare"
		fi
	fi
	for op in unshare-user clone-newuser io_uring_setup clone3; do
		o=$(outside "$who" $op)
		exp=EPERM
		case $op in io_uring_setup | clone3) exp=ENOSYS ;; esac
		if [ "$o" = ok ]; then ok "$who: control: $op works outside"; else skip "$who: $op answers $o outside already (kernel setting): the check below is not paired"; fi
		check "$who: $op is refused ($exp)" $exp "$(inside "$who" "" $op)"
	done
	check "$who: control: bpf with an invalid command answers EINVAL outside" EINVAL "$(outside "$who" bpf-badcmd)"
	check "$who: bpf is refused before the kernel looks" EPERM "$(inside "$who" "" bpf-badcmd)"
	cur=$(cat /proc/self/personality)
	other=$(printf '0x%x' $((0x$cur ^ 0x0040000)))
	check "$who: control: personality($other) works outside" ok "$(outside "$who" personality "$other")"
	check "$who: personality($other) is refused" EPERM "$(inside "$who" "" personality "$other")"
	o=$(under_sh "$who" "$TRY" ptrace-attach ppid 2>&1)
	if [ "$o" = ok ]; then ok "$who: control: PTRACE_ATTACH to the parent works outside"; else skip "$who: PTRACE_ATTACH to the parent answers $o outside already (Yama)"; fi
	check "$who: PTRACE_ATTACH to the parent is refused" EPERM \
		"$(under_sh "$who" "$SB" "{$UNF}" -- "$TRY" ptrace-attach ppid 2>&1 | tail -n 1)"
	# set-uid and set-gid mode bits (RestrictSUIDSGID): refused by
	# seccomp, with a mount namespace or without
	sw=$(mkws "$who" suid-ws)
	for f in f c; do
		echo x >"$sw/$f"
		chmod 644 "$sw/$f"
		[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$sw/$f"
	done
	check "$who: control: chmod 4755 of its own file works outside" ok "$(chmod_try "$who" 4755 "$sw/c")"
	check "$who: control: chmod 2755 too" ok "$(chmod_try "$who" 2755 "$sw/c")"
	p="{$UNF,\"writable\":[\"$sw\"]}"
	check "$who: chmod 4755 (set-uid) in the workspace is refused (EPERM)" EPERM "$(chmod_try "$who" 4755 "$sw/f" "$p")"
	check "$who: chmod 2755 (set-gid) is refused (EPERM)" EPERM "$(chmod_try "$who" 2755 "$sw/f" "$p")"
	check "$who: ... and the mode is unchanged" 644 "$(mode_of "$sw/f")"
	check "$who: control: chmod 755 in the workspace works" ok "$(chmod_try "$who" 755 "$sw/f" "$p")"
	check "$who: ... and the mode is 755" 755 "$(mode_of "$sw/f")"
	p="{$UNF,\"writable\":[\"$sw\"],\"mounts\":\"off\"}"
	check "$who: mounts off: chmod 4755 is refused too (EPERM)" EPERM "$(chmod_try "$who" 4755 "$sw/f" "$p")"
	check "$who: ... and the mode is still 755" 755 "$(mode_of "$sw/f")"
	check "$who: control: mounts off: chmod 700 works" ok "$(chmod_try "$who" 700 "$sw/f" "$p")"
	# network "off" (the default): no IP socket, unix and socketpair fine
	check "$who: control: an IPv4 socket can be created outside" ok "$(outside "$who" socket AF_INET SOCK_STREAM 0)"
	check "$who: network off: socket(AF_INET) is refused" EAFNOSUPPORT "$(inside "$who" "" socket AF_INET SOCK_STREAM 0)"
	check "$who: network off: socket(AF_INET6, UDP) is refused" EAFNOSUPPORT "$(inside "$who" "" socket AF_INET6 SOCK_DGRAM 0)"
	check "$who: network on: socket(AF_PACKET) is still refused" EAFNOSUPPORT \
		"$(inside "$who" '"network":"on"' socket AF_PACKET SOCK_RAW 0)"
	check "$who: socketpair works" ok "$(inside "$who" "" socketpair)"
	check "$who: unix_sockets none refuses socket(AF_UNIX)" EAFNOSUPPORT \
		"$(inside "$who" '"unix_sockets":"none"' socket AF_UNIX SOCK_STREAM 0)"
	bad_arch "$who"
	matrix "seccomp default filter" enforced
}

# bad_arch WHO — on aarch64, a 32-bit ARM (AArch32) program's syscalls
# arrive with another audit architecture and numbers of their own: the
# filter kills the process at its first one (SIGSYS, exit status 159).
# The guest of make check-aarch64 carries Debian's busybox-static:armhf as
# $B/busybox-arm32; elsewhere (x86_64 runs) nothing is tested here.
bad_arch() {
	[ "$(uname -m)" = aarch64 ] || return 0
	if [ ! -x "$B/busybox-arm32" ]; then
		skip "$1: no AArch32 program in $B (busybox-arm32): the bad-architecture action is not tested"
		return 0
	fi
	as "$1" "$B/busybox-arm32" true
	rc=$?
	if [ $rc != 0 ]; then
		skip "$1: an AArch32 program does not run on this CPU or kernel (exit status $rc outside): nothing to refuse"
		return 0
	fi
	ok "$1: control: an AArch32 program (busybox-arm32 true) runs outside"
	as "$1" "$SB" "{$UNF}" -- "$B/busybox-arm32" true 2>"$W/err"
	check "$1: ... inside, its first syscall kills it (SIGSYS: exit status 159)" 159 $?
	as "$1" "$SB" "{$UNF,\"mounts\":\"off\"}" -- "$B/busybox-arm32" true 2>"$W/err"
	check "$1: ... and with mounts off" 159 $?
}

# ---- truncate (ABI 3) --------------------------------------------------------
# With a mount namespace a file outside the writable trees sits on a
# read-only mount: truncating it answers EROFS before Landlock on every
# ABI.  So below ABI 3 the truncate restriction is not refused there, nor
# named as left out (unenforced.truncate changes nothing).  Without a
# read-only root (mounts "off", no namespace, a writable "/") seccomp
# refuses truncate(2) and open(O_RDONLY|O_TRUNC) everywhere (EACCES) — the
# two ways to truncate a file not opened for writing — and --check
# remarks it; unenforced.truncate leaves that out, with the gap open.
truncate_rule() {
	section
	who=$1
	eval "m=\$MNT_$who"
	ws=$(mkws "$who" tr-ws)
	out=$(mkws "$who" tr-out)
	echo data >"$out/f"
	echo data >"$out/g"
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$out/f" "$out/g"
	# signals "any": the only other part ABI 2 cannot enforce with a
	# namespace, so a run that leaves nothing out is silent
	base="\"writable\":[\"$ws\"],\"signals\":\"any\",\"unenforced\":{\"host_sockets\":true"
	off=',"mounts":"off"'
	trwhat="truncate restriction (files outside writable trees can be truncated)"
	trwhy="needs Landlock ABI 3; $HAVE"
	if [ "$ABI" -ge 3 ]; then
		if [ "$m" = yes ]; then
			raw "$who" "{$base}}" truncate "$out/f"
			check "$who: truncating a file outside the writable trees is refused (EROFS: a read-only mount)" EROFS "$OUT"
			raw "$who" "{$base,\"truncate\":true}}" truncate "$out/f"
			check "$who: ... with unenforced.truncate too (nothing left out on ABI $ABI)" EROFS "$OUT"
		fi
		raw "$who" "{$base}$off}" truncate "$out/f"
		check "$who: mounts off: truncating it is refused by Landlock (EACCES)" EACCES "$OUT"
		raw "$who" "{$base}$off}" open-trunc-ro "$out/f"
		check "$who: mounts off: ... and through open(O_RDONLY|O_TRUNC) (EACCES)" EACCES "$OUT"
		raw "$who" "{$base,\"truncate\":true}$off}" truncate "$out/f"
		check "$who: ... with unenforced.truncate too (nothing left out on ABI $ABI)" EACCES "$OUT"
		check "$who: ... and the file is intact" data "$(cat "$out/f")"
		echo x >"$ws/f"
		chmod 666 "$ws/f"
		raw "$who" "{$base}}" truncate "$ws/f"
		check "$who: control: truncating in the workspace works" ok "$OUT"
		echo x >"$ws/f"
		raw "$who" "{$base}$off}" truncate "$ws/f"
		check "$who: control: mounts off: truncating in the workspace works" ok "$OUT"
		check "$who: control: the same truncate works outside" ok "$(outside "$who" truncate "$out/f")"
		matrix "truncate" enforced
		return
	fi
	# below ABI 3 without a read-only root, seccomp refuses the two calls
	# that truncate a file not opened for writing (a speccoder profile
	# cannot name truncate, so this is not refused)
	trremark="Landlock below ABI 3 cannot refuse truncate"
	if [ "$m" = yes ]; then
		raw "$who" "{$base}}" truncate "$out/f"
		check "$who: below ABI 3 with a mount namespace the truncate restriction is not refused: it runs (exit 0)" 0 "$RC"
		check "$who: ... truncating a file outside the writable trees is refused by its read-only mount (EROFS)" EROFS "$OUT"
		check "$who: ... and nothing on stderr (nothing left out)" "" "$(cat "$W/err")"
		raw "$who" "{$base,\"truncate\":true}}" truncate "$out/f"
		check "$who: ... with unenforced.truncate too (EROFS)" EROFS "$OUT"
		check "$who: ... still nothing on stderr (the restriction is not named as left out)" "" "$(cat "$W/err")"
		raw "$who" "{$base}}" open-write "$out/f"
		check "$who: ... writing it is refused too (EROFS)" EROFS "$OUT"
		check "$who: ... and the file is intact" data "$(cat "$out/f")"
		echo x >"$ws/f"
		chmod 666 "$ws/f"
		raw "$who" "{$base}}" truncate "$ws/f"
		check "$who: control: truncating in the workspace works" ok "$OUT"
		# a writable "/": no read-only root, the gap is Landlock's again
		slash="\"writable\":[\"/\"],\"signals\":\"any\",\"unenforced\":{\"host_sockets\":true"
		raw "$who" "{$slash}}" truncate "$out/g"
		check "$who: with a writable \"/\" (no read-only root) it runs, truncate(2) refused by seccomp (EACCES)" EACCES "$OUT"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
		check "$who: ... --check remarks it" yes "$(as "$who" "$SB" --check "{$slash}}" 2>/dev/null | grep -q "$trremark" && echo yes)"
		raw "$who" "{$slash}}" open-trunc-ro "$out/g"
		check "$who: ... and open(O_RDONLY|O_TRUNC) (EACCES)" EACCES "$OUT"
		check "$who: ... the file is intact" data "$(cat "$out/g")"
		raw "$who" "{$slash}}" ftruncate "$out/g"
		check "$who: ... control: ftruncate on a file opened for writing works (a writable \"/\")" ok "$OUT"
		echo data >"$out/g"
		raw "$who" "{$slash,\"truncate\":true}}" truncate "$out/g"
		check "$who: ... with unenforced.truncate it runs, and the file CAN be truncated (documented)" ok "$OUT"
		check_notice "$who: ... with a notice naming it" \
			"$(left "$trwhat" "$trwhy" .unenforced.truncate)"
		check "$who: ... it was" "" "$(cat "$out/g")"
		cell="not refused with a mount namespace (outside the writable trees is read-only: EROFS); with mounts \"off\" or a writable \"/\" truncate(2) and O_RDONLY|O_TRUNC refused everywhere by seccomp (EACCES); left out with notice (unenforced.truncate)"
	else
		skip "$who: no mount namespace for uid $who here: the read-only mounts are not tested"
		cell="truncate(2) and O_RDONLY|O_TRUNC refused everywhere by seccomp (EACCES); left out with notice (unenforced.truncate)"
	fi
	echo data >"$out/f"
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$out/f"
	raw "$who" "{$base}$off}" truncate "$out/f"
	check "$who: mounts off: below ABI 3 it runs, truncate(2) outside refused by seccomp (EACCES)" EACCES "$OUT"
	check "$who: ... --check remarks it" yes "$(as "$who" "$SB" --check "{$base}$off}" 2>/dev/null | grep -q "$trremark" && echo yes)"
	raw "$who" "{$base}$off}" open-trunc-ro "$out/f"
	check "$who: ... open(O_RDONLY|O_TRUNC) outside too (EACCES)" EACCES "$OUT"
	check "$who: ... and the file is intact" data "$(cat "$out/f")"
	echo x >"$ws/f"
	chmod 666 "$ws/f"
	raw "$who" "{$base}$off}" ftruncate "$ws/f"
	check "$who: ... control: ftruncate in the workspace works" ok "$OUT"
	echo x >"$ws/f"
	raw "$who" "{$base}$off}" truncate "$ws/f"
	check "$who: ... truncate(2) by path in the workspace is refused too (the documented cost)" EACCES "$OUT"
	check "$who: control: truncate(2) and O_RDONLY|O_TRUNC work outside" "ok ok" \
		"$(outside "$who" truncate "$ws/f") $(outside "$who" open-trunc-ro "$ws/f")"
	raw "$who" "{$base,\"truncate\":true}$off}" truncate "$out/f"
	check "$who: mounts off, with unenforced.truncate: it runs, and a file outside the writable trees CAN be truncated (documented)" ok "$OUT"
	check_notice "$who: ... with a notice naming it" \
		"$(left "$trwhat" "$trwhy" .unenforced.truncate)"
	check "$who: ... it was" "" "$(cat "$out/f")"
	raw "$who" "{$base,\"truncate\":true}$off}" open-write "$out/f"
	check "$who: ... while writing it is still refused (EACCES)" EACCES "$OUT"
	matrix "truncate" "$cell"
}

# ---- TCP ports (ABI 4) ---------------------------------------------------------
tcp_ports() {
	section
	who=$1
	net="\"network\":\"on\",\"tcp_connect\":[$TCP1]"
	check "$who: control: connecting to port $TCP2 works outside" ok "$(outside "$who" tcp-connect "$TCP2")"
	if [ "$ABI" -ge 4 ]; then
		check "$who: tcp_connect [$TCP1]: connecting to $TCP1 works" ok "$(inside "$who" "$net" tcp-connect "$TCP1")"
		check "$who: tcp_connect [$TCP1]: connecting to $TCP2 is refused" EACCES "$(inside "$who" "$net" tcp-connect "$TCP2")"
		check "$who: tcp_bind []: binding any port is refused" EACCES \
			"$(inside "$who" '"network":"on","tcp_bind":[]' tcp-bind 0)"
		check "$who: control: tcp_bind [0]: an ephemeral port works" ok \
			"$(inside "$who" '"network":"on","tcp_bind":[0]' tcp-bind 0)"
		check "$who: with TCP rules, TCP Fast Open (around connect) is refused" EPERM \
			"$(inside "$who" "$net" sendto-fastopen "$TCP2")"
		o=$(outside "$who" socket AF_INET SOCK_STREAM IPPROTO_MPTCP)
		if [ "$o" = ok ]; then ok "$who: control: an MPTCP socket can be created outside"; else skip "$who: MPTCP answers $o outside already"; fi
		check "$who: with TCP rules, MPTCP sockets are refused" EPROTONOSUPPORT \
			"$(inside "$who" "$net" socket AF_INET SOCK_STREAM IPPROTO_MPTCP)"
		matrix "TCP port rules (tcp_bind, tcp_connect)" enforced
	else
		raw "$who" "{$UNF,$net}" tcp-connect "$TCP2"
		out1=$OUT
		check "$who: below ABI 4 a profile with tcp_connect is refused (exit 125)" 125 "$RC"
		check "$who: ... naming TCP port rules, the ABI and unenforced.tcp_ports" \
			"$(refusal '"unenforced":{"tcp_ports":true}' ".tcp_connect: TCP port rules (needs Landlock ABI 4; $HAVE)")" \
			"$(errline)"
		check "$who: ... and nothing ran" "" "$out1"
		p="{\"unenforced\":{\"host_sockets\":true,\"signal_scope\":true,\"truncate\":true,\"tcp_ports\":true},$net}"
		raw "$who" "$p" tcp-connect "$TCP2"
		check "$who: with unenforced.tcp_ports it runs, and port $TCP2 CAN be reached (documented)" ok "$OUT"
		check_notice "$who: ... with a notice naming it" \
			"$(left "TCP port rules" "needs Landlock ABI 4; $HAVE" .unenforced.tcp_ports)"
		matrix "TCP port rules (tcp_bind, tcp_connect)" "refused; left out with notice (unenforced.tcp_ports)"
	fi
}

# ---- ioctl on device nodes (ABI 5) -----------------------------------------------
ioctl_dev() {
	section
	who=$1
	check "$who: control: a terminal ioctl on /dev/ptmx (a default device) works inside" ok \
		"$(inside "$who" "" ioctl-ro /dev/ptmx 0x5401)"
	if [ "$HAVE_NODE" != yes ]; then
		skip "$who: no device node could be made outside /dev ($W is on a nodev filesystem?)"
		return
	fi
	# TCGETS on a null device: the driver answers ENOTTY; Landlock's
	# IOCTL_DEV check comes before the driver and answers EACCES.
	check "$who: control: TCGETS on a copy of /dev/null in a readable tree reaches the driver outside" ENOTTY \
		"$(outside "$who" ioctl-ro "$W/devs/null" 0x5401)"
	if [ "$ABI" -ge 5 ]; then
		check "$who: ... inside (readable, not a device), it is refused before the driver" EACCES \
			"$(inside "$who" "" ioctl-ro "$W/devs/null" 0x5401)"
		matrix "ioctl on device nodes outside devices" enforced
	else
		# Below ABI 5 Landlock cannot tell ioctls apart; only device nodes
		# outside /dev are concerned (/dev itself is granted around).
		check "$who: ... inside, below ABI 5, it still reaches the driver (ioctl is not restricted; documented)" ENOTTY \
			"$(inside "$who" "" ioctl-ro "$W/devs/null" 0x5401)"
		matrix "ioctl on device nodes outside devices" "not restricted (below ABI 5; /dev is still granted around)"
	fi
}

# ---- signal scope (ABI 6) ------------------------------------------------------
signal_scope() {
	section
	who=$1
	ws=$(mkws "$who" sig-ws)
	bg_start 9 "block-$who" "$who" "$TRY" block
	victim=$BG_PID
	check "$who: fixture: a process of the same user outside the sandbox" ok "$BG_LINE"
	check "$who: control: kill(it, 0) works outside" ok "$(outside "$who" kill "$victim" 0)"
	base="\"writable\":[\"$ws\"],\"unenforced\":{\"host_sockets\":true,\"truncate\":true"
	raw "$who" "{$base,\"signal_scope\":true}}" raise
	check "$who: raise() (a signal to itself) works" ok "$OUT"
	if [ "$ABI" -ge 6 ]; then
		raw "$who" "{$base}}" kill "$victim" 0
		check "$who: kill(outside process, 0) is refused" EPERM "$OUT"
		raw "$who" "{$base}}" kill "$victim" USR1
		check "$who: kill(outside process, USR1) is refused" EPERM "$OUT"
		raw "$who" "{$base}}" pidfd-kill "$victim" USR1
		check "$who: ... also through pidfd_send_signal" EPERM "$OUT"
		check "$who: kill(the parent, 0) is refused" EPERM \
			"$(under_sh "$who" "$SB" "{$base}}" -- "$TRY" kill ppid 0 2>&1 | tail -n 1)"
		raw "$who" "{$base},\"signals\":\"any\"}" kill "$victim" 0
		check "$who: control: with signals \"any\" the kill works" ok "$OUT"
		matrix "signal scope" enforced
	else
		raw "$who" "{$base}}" kill "$victim" 0
		out1=$OUT
		check "$who: below ABI 6 the default signals \"scoped\" is refused (exit 125)" 125 "$RC"
		check "$who: ... naming the signal scope, the ABI and unenforced.signal_scope" \
			"$(refusal '"unenforced":{"signal_scope":true}' ".signals: signal scope (needs Landlock ABI 6; $HAVE)")" \
			"$(errline)"
		check "$who: ... and nothing ran" "" "$out1"
		raw "$who" "{$base,\"signal_scope\":true}}" kill "$victim" 0
		check "$who: with unenforced.signal_scope it runs, and kill(outside process) SUCCEEDS (documented)" ok "$OUT"
		check_notice "$who: ... with a notice naming it" \
			"$(left "signal scope" "needs Landlock ABI 6; $HAVE" .unenforced.signal_scope)"
		matrix "signal scope" "refused; left out with notice (unenforced.signal_scope)"
	fi
	bg_stop 9
}

# ---- abstract unix socket scope (ABI 6) -------------------------------------------
# Abstract names live in the network namespace.  With a mount namespace,
# network "off" or "loopback" and unix_sockets "scoped" (the defaults) the
# sandbox also gets a network namespace of its own: a name bound outside is
# simply not there (ECONNREFUSED), on every ABI, so below ABI 6 the scope
# is neither refused nor named as left out there.  With unix_sockets "any"
# there is no extra network namespace (host names reachable); with network
# "on" or mounts "off" it is the Landlock scope (EPERM from ABI 6; below,
# refused, or left out with the gap open).
abstract_scope() {
	section
	who=$1
	eval "m=\$MNT_$who"
	check "$who: control: connecting to the outside abstract socket works outside" ok \
		"$(outside "$who" connect-abstract "$ABSNAME")"
	base="\"signals\":\"any\",\"unenforced\":{\"truncate\":true"
	off=',"mounts":"off"'
	# below ABI 9 without mounts the pathname socket scope is left out
	# with the same key (tested below): set there so the profile runs
	wsk=
	[ "$ABI" -lt 9 ] && wsk=',"host_sockets":true'
	if [ "$m" = yes ]; then
		check "$who: with mounts, network off and unix_sockets scoped: private IPC and network namespaces" \
			"ipc:private net:private" "$(ns_of "$who" "{$UNF}")"
		check "$who: ... with unix_sockets \"any\": a private IPC namespace, the host's network one" \
			"ipc:private net:host" "$(ns_of "$who" "{$UNF,\"unix_sockets\":\"any\"}")"
		check "$who: ... with network \"on\": the host's network namespace" \
			"ipc:private net:host" "$(ns_of "$who" "{$UNF,\"network\":\"on\"}")"
		check "$who: ... with network \"loopback\": a network namespace of its own" \
			"ipc:private net:private" "$(ns_of "$who" "{$UNF,\"network\":\"loopback\"}")"
	else
		skip "$who: no mount namespace for uid $who here: no private IPC or network namespace"
	fi
	check "$who: mounts off: the host's IPC and network namespaces" \
		"ipc:host net:host" "$(ns_of "$who" "{$UNF,\"mounts\":\"off\"}")"
	on=',"network":"on"'
	absw="abstract unix socket scope"
	if [ "$ABI" -ge 6 ]; then
		if [ "$m" = yes ]; then
			raw "$who" "{$base}}" connect-abstract "$ABSNAME"
			check "$who: connect to an abstract socket created outside: not there in the empty network namespace (ECONNREFUSED)" ECONNREFUSED "$OUT"
			raw "$who" "{$base}}" sendto-abstract "$ABSNAME"
			check "$who: sendto to it: not there either (ECONNREFUSED)" ECONNREFUSED "$OUT"
			raw "$who" "{$base}$on}" connect-abstract "$ABSNAME"
			check "$who: network on (the host's network namespace): connect to it is refused by the Landlock scope (EPERM)" EPERM "$OUT"
		fi
		raw "$who" "{$base$wsk}$off}" connect-abstract "$ABSNAME"
		check "$who: mounts off: connect to it is refused by the Landlock scope (EPERM)" EPERM "$OUT"
		raw "$who" "{$base$wsk}$off}" sendto-abstract "$ABSNAME"
		check "$who: mounts off: sendto to it is refused (EPERM)" EPERM "$OUT"
		if [ "$m" = yes ]; then
			raw "$who" "{$base},\"unix_sockets\":\"any\"}" connect-abstract "$ABSNAME"
			check "$who: control: with unix_sockets \"any\" it works" ok "$OUT"
		fi
		raw "$who" "{$base}$off,\"unix_sockets\":\"any\"}" connect-abstract "$ABSNAME"
		check "$who: control: mounts off, with unix_sockets \"any\" it works" ok "$OUT"
		matrix "abstract unix socket scope" enforced
		return
	fi
	absr() { refusal '"unenforced":{"workspace_sockets":true}' ".unix_sockets: $absw (needs Landlock ABI 6; $HAVE)"; }
	absl=$(left "$absw" "needs Landlock ABI 6; $HAVE" .unenforced.host_sockets)
	if [ "$m" = yes ]; then
		raw "$who" "{$base}}" connect-abstract "$ABSNAME"
		check "$who: below ABI 6 with a mount namespace and network off the scope is not refused: it runs (exit 0)" 0 "$RC"
		check "$who: ... the outside socket is not there in the empty network namespace (ECONNREFUSED)" ECONNREFUSED "$OUT"
		check "$who: ... and nothing on stderr (nothing left out)" "" "$(cat "$W/err")"
		raw "$who" "{$base}}" sendto-abstract "$ABSNAME"
		check "$who: ... sendto to it: not there either (ECONNREFUSED)" ECONNREFUSED "$OUT"
		raw "$who" "{$base,\"host_sockets\":true}}" connect-abstract "$ABSNAME"
		check "$who: ... with unenforced.host_sockets too (ECONNREFUSED)" ECONNREFUSED "$OUT"
		check "$who: ... still nothing on stderr (the scope is not named as left out)" "" "$(cat "$W/err")"
		raw "$who" "{$base},\"network\":\"loopback\"}" connect-abstract "$ABSNAME"
		check "$who: network loopback (a network namespace of its own): not refused, not there (ECONNREFUSED)" ECONNREFUSED "$OUT"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
		raw "$who" "{$base}$on}" connect-abstract "$ABSNAME"
		out1=$OUT
		check "$who: network on (the host's network namespace): the scope is refused (exit 125)" 125 "$RC"
		check "$who: ... naming it, the ABI and unenforced.workspace_sockets" "$(absr)" "$(errline)"
		check "$who: ... and nothing ran" "" "$out1"
		raw "$who" "{$base,\"host_sockets\":true}$on}" connect-abstract "$ABSNAME"
		check "$who: network on, with unenforced.host_sockets: it runs, and the outside socket CAN be reached (documented)" ok "$OUT"
		check "$who: ... with one notice line naming only it" "__sandbox: notice: left out: $absl" "$(leftline)"
		raw "$who" "{$base},\"unix_sockets\":\"any\"}" connect-abstract "$ABSNAME"
		check "$who: control: with unix_sockets \"any\" (the host's network namespace) it works" ok "$OUT"
		cell="not refused with a mount namespace and network \"off\" or \"loopback\" (a network namespace of its own: host sockets not there); refused with network \"on\" or mounts \"off\"; left out with notice (unenforced.host_sockets); every unix socket refused instead (unenforced.workspace_sockets)"
	else
		cell="refused; left out with notice (unenforced.host_sockets); every unix socket refused instead (unenforced.workspace_sockets)"
	fi
	# (without mounts the pathname socket scope, ABI 9, is refused on the
	# same line, with the same key)
	raw "$who" "{$base}$off}" connect-abstract "$ABSNAME"
	out1=$OUT
	check "$who: mounts off: below ABI 6 the abstract socket scope is refused (exit 125)" 125 "$RC"
	check "$who: ... naming it, the ABI and unenforced.workspace_sockets" \
		"$(refusal '"unenforced":{"workspace_sockets":true}' ".unix_sockets: $absw (needs Landlock ABI 6; $HAVE)" \
			".unix_sockets: pathname unix socket scope (sockets outside writable trees stay reachable) (needs Landlock ABI 9; $HAVE, or a mount namespace for a view of /run and a private /tmp (mounts \"off\"))")" \
		"$(errline)"
	check "$who: ... and nothing ran" "" "$out1"
	raw "$who" "{$base,\"host_sockets\":true}$off}" connect-abstract "$ABSNAME"
	check "$who: mounts off, with unenforced.host_sockets: it runs, and the outside socket CAN be reached (documented)" ok "$OUT"
	check_notice "$who: ... with a notice naming it" "$absl"
	raw "$who" "{$base,\"host_sockets\":true}$off}" sendto-abstract "$ABSNAME"
	check "$who: ... and so CAN sendto (documented)" ok "$OUT"
	# speccoder's workspace_sockets closes more: no unix socket at all
	raw "$who" "{$base,\"workspace_sockets\":true}$off}" connect-abstract "$ABSNAME"
	check "$who: mounts off, with unenforced.workspace_sockets: it runs, no AF_UNIX socket can be made (EAFNOSUPPORT)" EAFNOSUPPORT "$OUT"
	check_notice "$who: ... with a notice naming it" \
		"$(left 'unix sockets (every AF_UNIX socket refused, as unix_sockets "none", instead of a scope this host lacks)' "needs Landlock ABI 6; $HAVE" .unenforced.workspace_sockets)"
	raw "$who" "{$base,\"workspace_sockets\":true,\"host_sockets\":true}$off}" sendto-abstract "$ABSNAME"
	check "$who: ... with host_sockets too, workspace_sockets wins (EAFNOSUPPORT)" EAFNOSUPPORT "$OUT"
	matrix "abstract unix socket scope" "$cell"
}

# ---- pathname unix sockets (ABI 9, or mount views below) ---------------------------
pathname_sockets() {
	section
	who=$1
	ws=$(mkws "$who" un-ws)
	eval "m=\$MNT_$who"
	check "$who: control: the outside pathname socket can be reached outside" ok \
		"$(outside "$who" connect-unix "$W/sockdir/s")"
	base="\"writable\":[\"$ws\"],\"unenforced\":{\"signal_scope\":true,\"truncate\":true"
	# Below ABI 6 the abstract socket scope needs the same key
	# (workspace_sockets), so it is always set there.
	[ "$ABI" -lt 6 ] && base="$base,\"host_sockets\":true"
	# a listener of $who's own inside its workspace (in scope); below ABI 9
	# without mounts the scope must be left out for the profile to run
	ctl=$base
	[ "$ABI" -ge 6 ] && [ "$ABI" -lt 9 ] && [ "$m" != yes ] && ctl="$base,\"host_sockets\":true"
	bg_start 9 "wsl-$who" "$who" "$TRY" listen-unix "$ws/s"
	raw "$who" "{$ctl}}" connect-unix "$ws/s"
	check "$who: control: a socket inside the workspace can be reached inside" ok "$OUT"
	bg_stop 9
	if [ "$ABI" -ge 9 ]; then
		raw "$who" "{$base}}" connect-unix "$W/sockdir/s"
		check "$who: connect to a pathname socket outside the writable trees is refused" EACCES "$OUT"
		raw "$who" "{$base}}" connect-unix "$RUNSOCKDIR/s"
		check "$who: ... also one under /run" EACCES "$OUT"
		raw "$who" "{$base},\"mounts\":\"off\"}" connect-unix "$TMPSOCKDIR/s"
		check "$who: ... also one under the host's /tmp without a mount namespace" EACCES "$OUT"
		if [ "$m" = yes ]; then
			raw "$who" "{$base}}" connect-unix "$TMPSOCKDIR/s"
			check "$who: ... with one, /tmp is private: the host's socket there is not there" ENOENT "$OUT"
		else
			skip "$who: no mount namespace for uid $who here: the private /tmp is not tested"
		fi
		raw "$who" "{$base},\"unix_sockets\":\"any\"}" connect-unix "$W/sockdir/s"
		check "$who: control: with unix_sockets \"any\" it works" ok "$OUT"
		check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
		matrix "pathname unix sockets outside writable trees" enforced
		return
	fi
	why="needs Landlock ABI 9; $HAVE, or a mount namespace for a view of /run and a private /tmp (mounts \"off\")"
	what="pathname unix socket scope (sockets outside writable trees stay reachable)"
	if [ "$ABI" -ge 6 ]; then
		raw "$who" "{$base},\"mounts\":\"off\"}" connect-unix "$W/sockdir/s"
		out1=$OUT
		check "$who: below ABI 9 without mounts the pathname socket scope is refused (exit 125)" 125 "$RC"
		check "$who: ... naming it, the ABI, the missing views and unenforced.workspace_sockets" \
			"$(refusal '"unenforced":{"workspace_sockets":true}' ".unix_sockets: $what ($why)")" \
			"$(errline)"
		check "$who: ... and nothing ran" "" "$out1"
	fi
	wsf=
	[ "$ABI" -ge 6 ] && wsf=',"host_sockets":true'
	raw "$who" "{$base$wsf},\"mounts\":\"off\"}" connect-unix "$W/sockdir/s"
	check "$who: with unenforced.host_sockets and no mounts it runs, and the outside socket CAN be reached (documented)" ok "$OUT"
	check_notice "$who: ... with a notice naming it" \
		"$(left "$what" "$why" .unenforced.host_sockets)"
	raw "$who" "{$base$wsf},\"mounts\":\"off\"}" connect-unix "$TMPSOCKDIR/s"
	check "$who: ... and so CAN the one under the host's /tmp (documented)" ok "$OUT"
	# speccoder's workspace_sockets closes more: no unix socket at all,
	# the workspace's included
	wss="\"writable\":[\"$ws\"],\"mounts\":\"off\",\"unenforced\":{\"signal_scope\":true,\"truncate\":true,\"workspace_sockets\":true}"
	raw "$who" "{$wss}" connect-unix "$W/sockdir/s"
	check "$who: no mounts, with unenforced.workspace_sockets: the outside socket cannot be reached (EAFNOSUPPORT)" EAFNOSUPPORT "$OUT"
	check_notice "$who: ... with a notice naming it" "every AF_UNIX socket refused"
	bg_start 9 "wsl2-$who" "$who" "$TRY" listen-unix "$ws/s"
	raw "$who" "{$wss}" connect-unix "$ws/s"
	check "$who: ... nor one inside the workspace (\"not reachable either\")" EAFNOSUPPORT "$OUT"
	bg_stop 9
	if [ "$m" = yes ]; then
		raw "$who" "{$base}}" connect-unix "$TMPSOCKDIR/s"
		check "$who: with mounts, /tmp is private: the host's socket under /tmp is not there" ENOENT "$OUT"
		check "$who: ... the profile ran (exit 0)" 0 "$RC"
		if has_left "$what"; then
			not_ok "$who: ... and the pathname scope is not named as left out"
			diag "stderr: $(cat "$W/err")"
		else
			ok "$who: ... and the pathname scope is not named as left out"
		fi
		raw "$who" "{$base}}" connect-unix "$RUNSOCKDIR/s"
		check "$who: ... /run is an empty view: a socket under /run is not there" ENOENT "$OUT"
		raw "$who" "{$base}}" connect-unix "$W/sockdir/s"
		check "$who: ... a socket outside /run, /tmp, /var/tmp and the writable trees stays reachable (documented)" ok "$OUT"
		matrix "pathname unix sockets outside writable trees" "empty views of /run, private /tmp and /var/tmp (mount namespace); else refused; left out with notice (unenforced.host_sockets); every unix socket refused instead (unenforced.workspace_sockets)"
	else
		skip "$who: no mount namespace for uid $who here: the /run view and the private /tmp are not tested"
		matrix "pathname unix sockets outside writable trees" "refused; left out with notice (unenforced.host_sockets); every unix socket refused instead (unenforced.workspace_sockets)"
	fi
}

# ---- the mount namespace: private /tmp, $HOME, protect (every ABI) ----------------
# With a mount namespace: a private, writable /tmp and /var/tmp (granted
# trees inside brought back), an ungranted $HOME as an empty view, the
# protect names that exist read-only, everything outside the writable trees
# read-only and nosuid (the writable trees, one mount per outermost tree,
# and tmp brought back writable, nosuid, nodev: Landlock does not govern
# chmod, chown, xattrs or times),
# and nothing created in the user's tree for the names that do not.
# Without one (mounts "off"): the built-in protect list is left out (named
# on the notice line), an ungranted $HOME is replaced by tmp or
# /nonexistent, and chmod outside the writable trees is not restricted.
mount_namespace() {
	section
	who=$1
	eval "m=\$MNT_$who"
	feat="private /tmp and /var/tmp, \$HOME as absent, protect names and everything outside the writable trees read-only (mount namespace)"
	ws=$(mkws "$who" mnt-ws)
	ro="\"writable\":[\"$ws\"]"
	# a file of $who's own outside the writable trees, for chmod
	mo=$(mkws "$who" mnt-out)
	echo m >"$mo/f"
	chmod 644 "$mo/f"
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$mo/f"
	# a repository-like workspace: .git/config and .envrc exist, the
	# other built-in protect names do not
	mkdir -p "$ws/.git"
	echo cfg >"$ws/.git/config"
	echo env >"$ws/.envrc"
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$ws"
	home=$(mkws "$who" home)
	echo dot >"$home/.dotfile"
	chmod 644 "$home/.dotfile"
	narrow="\"readable\":[\"$B\"],$ro"
	tmpname=sbg-$$-$who
	if [ "$m" = yes ]; then
		check "$who: / is mounted read-only and nosuid inside" "ro nosuid" "$(mnt_opts "$who" "{$UNF,$ro}" /)"
		check "$who: ... the workspace writable, nosuid and nodev" "rw nosuid nodev" "$(mnt_opts "$who" "{$UNF,$ro}" "$ws")"
		check "$who: control: chmod of a file of its own outside the writable trees works outside" ok "$(chmod_try "$who" 600 "$mo/f")"
		chmod 644 "$mo/f"
		check "$who: chmod of it inside is refused (EROFS: a read-only mount)" EROFS "$(chmod_try "$who" 600 "$mo/f" "{$UNF,$ro}")"
		check "$who: ... and its mode is unchanged" 644 "$(mode_of "$mo/f")"
		echo w >"$ws/chm"
		chmod 644 "$ws/chm"
		[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$ws/chm"
		check "$who: control: chmod in the workspace works" ok "$(chmod_try "$who" 600 "$ws/chm" "{$UNF,$ro}")"
		check "$who: ... and its mode is 600" 600 "$(mode_of "$ws/chm")"
		rm -f "$ws/chm"
		raw "$who" "{$UNF,$ro}" open-write "/tmp/$tmpname"
		check "$who: /tmp is private and writable inside" ok "$OUT"
		check "$who: ... and the file is not in the host's /tmp" no "$([ -e "/tmp/$tmpname" ] && echo yes || echo no)"
		raw "$who" "{$UNF,$ro}" open-write "/var/tmp/$tmpname"
		check "$who: so is /var/tmp" ok "$OUT"
		check "$who: ... and the file is not in the host's /var/tmp" no "$([ -e "/var/tmp/$tmpname" ] && echo yes || echo no)"
		tw=$(mktemp -d "/tmp/sbg-wt.XXXXXX")
		[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$tw"
		raw "$who" "{$UNF,\"writable\":[\"$ws\",\"$tw\"]}" open-write "$tw/f"
		check "$who: a writable tree under /tmp is brought back into the private /tmp" ok "$OUT"
		check "$who: ... the file landed in the host's tree" yes "$([ -e "$tw/f" ] && echo yes || echo no)"
		rm -rf "$tw"
		tr=$(mktemp -d "/var/tmp/sbg-rt.XXXXXX")
		echo r >"$tr/f"
		chmod 755 "$tr"
		chmod 644 "$tr/f"
		raw "$who" "{$UNF,$narrow}" open-read "$tr/f"
		check "$who: a file under the host's /var/tmp is not there inside" ENOENT "$OUT"
		raw "$who" "{$UNF,\"readable\":[\"$B\",\"$tr\"],$ro}" open-read "$tr/f"
		check "$who: ... an explicit readable entry there is brought back" ok "$OUT"
		rm -rf "$tr"
		td=$(mkws "$who" mnt-tmp)/t
		as "$who" "$SB" "{$UNF,$ro,\"tmp\":\"$td\"}" -- "$BB" sh -c 'echo x >/tmp/from-inside' 2>"$W/err"
		check "$who: tmp elsewhere is the private /tmp: a file made in /tmp lands in it" yes \
			"$([ -e "$td/from-inside" ] && echo yes || echo no)"

		as "$who" "$BB" env "HOME=$home" "$SB" "{$UNF,$narrow}" -- "$TRY" open-read "$home/.dotfile" >"$W/out" 2>"$W/err"
		check "$who: an ungranted \$HOME is an empty view: its dotfiles are absent (ENOENT, not EACCES)" ENOENT "$(cat "$W/out")"
		as "$who" "$BB" env "HOME=$home" "$SB" "{$UNF,\"readable\":[\"$B\",\"$home\"],$ro}" -- "$TRY" open-read "$home/.dotfile" >"$W/out" 2>"$W/err"
		check "$who: control: a granted \$HOME is read as it is" ok "$(cat "$W/out")"
		mkdir "$home/proj"
		[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$home/proj"
		as "$who" "$BB" env "HOME=$home" "$SB" "{$UNF,\"readable\":[\"$B\"],\"writable\":[\"$home/proj\"]}" -- "$TRY" open-write "$home/proj/f" >"$W/out" 2>"$W/err"
		check "$who: a writable tree inside the ungranted \$HOME is brought back into its view" ok "$(cat "$W/out")"
		check "$who: ... the file landed in the host's tree" yes "$([ -e "$home/proj/f" ] && echo yes || echo no)"
		rm -rf "$home/proj"

		raw "$who" "{$UNF,$ro}" open-write "$ws/.git/config"
		check "$who: an existing built-in protect name (.git/config) is read-only" EROFS "$OUT"
		raw "$who" "{$UNF,$ro}" open-write "$ws/.envrc"
		check "$who: ... so is .envrc" EROFS "$OUT"
		raw "$who" "{$UNF,$ro}" open-write "$ws/new"
		check "$who: control: creating a file in the workspace root works" ok "$OUT"
		rm -f "$ws/new"
		check "$who: nothing was created in the workspace or \$HOME (no placeholders)" \
			"$(printf '%s\n' "$ws" "$ws/.envrc" "$ws/.git" "$ws/.git/config" "$home" "$home/.dotfile" | sort)" \
			"$(find "$ws" "$home" | sort)"
		matrix "$feat" enforced
	else
		skip "$who: no mount namespace for uid $who here: private /tmp, \$HOME view and protect mounts are not tested"
	fi

	# without a namespace: the built-in protect list is left out, named
	off="\"mounts\":\"off\""
	raw "$who" "{$UNF,$ro,$off}" open-write "$ws/.git/config"
	check "$who: mounts off: .git/config keeps every right (the built-in protect list is left out)" ok "$OUT"
	check_notice "$who: ... and the notice line names the existing names" \
		"$(left "built-in protect of $ws/.git/config, $ws/.envrc" "mounts \"off\", and Landlock alone would take creating, renaming and deleting away from the workspace root and .git" "built-in default")"
	raw "$who" "{$UNF,$ro,$off}" rename "$ws/.envrc" "$ws/.envrc2"
	check "$who: ... renaming in the workspace root works" ok "$OUT"
	mv "$ws/.envrc2" "$ws/.envrc" 2>/dev/null
	if [ -e /nonexistent ]; then
		skip "$who: /nonexistent exists here: HOME cannot be pointed there"
	else
		as "$who" "$BB" env "HOME=$home" "$SB" "{$UNF,$narrow,$off}" -- "$BB" sh -c 'echo "$HOME"' >"$W/out" 2>"$W/err"
		check "$who: mounts off: an ungranted \$HOME becomes /nonexistent" /nonexistent "$(cat "$W/out")"
	fi
	td=$(mkws "$who" mnt-tmp2)/t
	as "$who" "$BB" env "HOME=$home" "$SB" "{$UNF,$narrow,$off,\"tmp\":\"$td\"}" -- "$BB" sh -c 'echo "$HOME"' >"$W/out" 2>"$W/err"
	check "$who: ... or tmp when the profile has one" "$td" "$(cat "$W/out")"
	raw "$who" "{$UNF,$ro,$off}" open-write "/tmp/$tmpname"
	check "$who: mounts off: the host's /tmp is not writable" EACCES "$OUT"
	check "$who: mounts off: chmod of a file of its own outside the writable trees works (not governed by Landlock; documented)" ok \
		"$(chmod_try "$who" 600 "$mo/f" "{$UNF,$ro,$off}")"
	check "$who: ... its mode is 600" 600 "$(mode_of "$mo/f")"
	if [ "$m" != yes ]; then
		matrix "$feat" \
			"no mount namespace: built-in protect left out with notice, \$HOME as /nonexistent or tmp, chmod outside the writable trees not restricted"
	fi
}

# ---- one refusal, one left-out line (every ABI) ----------------------------------
# A profile with every ABI-dependent part (no mount namespace, TCP and UDP
# port lists): every part this kernel cannot enforce is named on one line,
# with the JSON that allows them all; with that JSON added it runs, and
# one notice line names every part left out, in the same order.  The same
# profile with a mount namespace (network still "on"): the parts the
# namespace closes (pathname sockets: the views) are neither refused nor
# named, the others are, as above.  Truncate below ABI 3 is never refused
# (seccomp closes it without a read-only root).
one_line() {
	section
	who=$1
	eval "m=\$MNT_$who"
	ws=$(mkws "$who" one-ws)
	all="\"writable\":[\"$ws\"],\"network\":\"on\",\"tcp_connect\":[$TCP1],\"udp_connect\":[$UDP1]"
	keys= notice= mkeys= mnotice=
	# speccoder's workspace_sockets: one entry for every socket scope
	# missing — no unix socket at all — with the first one's reason
	sockw='unix sockets (every AF_UNIX socket refused, as unix_sockets "none", instead of a scope this host lacks)'
	sock_n= sock_m=
	# part WHERE WHAT WHY KEY [mounts] — "mounts": closed by the namespace
	part() {
		parts_n=$((parts_n + 1))
		eval "part_$parts_n=\"\$1: \$2 (\$3)\"; mclosed_$parts_n=\${5:-no}"
		case ,$keys, in *",\"$4\":true,"*) ;; *) keys="${keys:+$keys,}\"$4\":true" ;; esac
		if [ "$4" != workspace_sockets ]; then
			notice="${notice:+$notice; }$(left "$2" "$3" ".unenforced.$4")"
		elif [ -z "$sock_n" ]; then
			sock_n=1
			notice="${notice:+$notice; }$(left "$sockw" "$3" ".unenforced.$4")"
		fi
		[ "${5:-}" = mounts ] && return
		case ,$mkeys, in *",\"$4\":true,"*) ;; *) mkeys="${mkeys:+$mkeys,}\"$4\":true" ;; esac
		if [ "$4" != workspace_sockets ]; then
			mnotice="${mnotice:+$mnotice; }$(left "$2" "$3" ".unenforced.$4")"
		elif [ -z "$sock_m" ]; then
			sock_m=1
			mnotice="${mnotice:+$mnotice; }$(left "$sockw" "$3" ".unenforced.$4")"
		fi
	}
	parts_n=0
	# (below ABI 3 truncate is closed by seccomp, or by the read-only root)
	[ "$ABI" -lt 4 ] && part .tcp_connect "TCP port rules" "needs Landlock ABI 4; $HAVE" tcp_ports
	[ "$ABI" -lt 10 ] && part .udp_connect "UDP port rules" "needs Landlock ABI 10; $HAVE" udp_ports
	[ "$ABI" -lt 6 ] && part .signals "signal scope" "needs Landlock ABI 6; $HAVE" signal_scope
	[ "$ABI" -lt 6 ] && part .unix_sockets "abstract unix socket scope" "needs Landlock ABI 6; $HAVE" workspace_sockets
	[ "$ABI" -lt 9 ] && part .unix_sockets "pathname unix socket scope (sockets outside writable trees stay reachable)" \
		"needs Landlock ABI 9; $HAVE, or a mount namespace for a view of /run and a private /tmp (mounts \"off\")" workspace_sockets mounts
	# one_check NAME PROFILE KEYS NOTICE PART... — PROFILE refused naming
	# every PART, KEYS the JSON allowing them, NOTICE the left-out line
	one_check() {
		oc_name=$1 oc_prof=$2 oc_keys=$3 oc_notice=$4
		shift 4
		raw "$who" "{$oc_prof}" tcp-connect "$TCP1"
		if [ $# -eq 0 ]; then
			check "$who: $oc_name: everything enforced (ABI $ABI): it runs" ok "$OUT"
			check "$who: ... and nothing on stderr" "" "$(cat "$W/err")"
			return
		fi
		out1=$OUT
		check "$who: $oc_name: every part ABI $ABI cannot enforce is refused at once (exit 125)" 125 "$RC"
		check "$who: ... on one line naming each, and the JSON allowing them all" \
			"$(refusal "\"unenforced\":{$oc_keys}" "$@")" "$(cat "$W/err")"
		check "$who: ... and nothing ran" "" "$out1"
		raw "$who" "{$oc_prof,\"unenforced\":{$oc_keys}}" tcp-connect "$TCP1"
		check "$who: $oc_name: with that JSON added it runs" ok "$OUT"
		check "$who: ... with one notice line naming every part left out" \
			"__sandbox: notice: left out: $oc_notice" "$(cat "$W/err")"
	}
	set --
	i=1
	while [ "$i" -le "$parts_n" ]; do
		eval "set -- \"\$@\" \"\$part_$i\""
		i=$((i + 1))
	done
	one_check "mounts off" "$all,\"mounts\":\"off\"" "$keys" "$notice" "$@"
	if [ "$m" != yes ]; then
		skip "$who: no mount namespace for uid $who here: the parts it closes are not tested"
		return
	fi
	set --
	i=1
	while [ "$i" -le "$parts_n" ]; do
		eval "[ \"\$mclosed_$i\" = mounts ] || set -- \"\$@\" \"\$part_$i\""
		i=$((i + 1))
	done
	one_check "with mounts (network on), leaving out what the namespace closes" "$all" "$mkeys" "$mnotice" "$@"
	if [ -n "$keys" ] && [ "$keys" != "$mkeys" ]; then
		raw "$who" "{$all,\"unenforced\":{$keys}}" tcp-connect "$TCP1"
		check "$who: with mounts and the JSON of mounts off: it runs" ok "$OUT"
		check "$who: ... the notice names only the parts the namespace leaves open" \
			"$([ -n "$mnotice" ] && echo "__sandbox: notice: left out: $mnotice")" "$(cat "$W/err")"
	fi
}

# ---- UDP ports (ABI 10) ---------------------------------------------------------------
udp_ports() {
	section
	who=$1
	net="\"network\":\"on\",\"udp_connect\":[$UDP1]"
	check "$who: control: sending to UDP port $UDP2 works outside" ok "$(outside "$who" udp-send "$UDP2")"
	if [ "$ABI" -ge 10 ]; then
		check "$who: udp_connect [$UDP1]: sending to $UDP1 works" ok "$(inside "$who" "$net" udp-send "$UDP1")"
		check "$who: udp_connect [$UDP1]: sending to $UDP2 is refused" EACCES "$(inside "$who" "$net" udp-send "$UDP2")"
		check "$who: udp_bind []: binding is refused" EACCES "$(inside "$who" '"network":"on","udp_bind":[]' udp-bind 0)"
		check "$who: control: udp_bind [0]: an ephemeral port works" ok \
			"$(inside "$who" '"network":"on","udp_bind":[0]' udp-bind 0)"
		matrix "UDP port rules (udp_bind, udp_connect)" enforced
	else
		raw "$who" "{$UNF,$net}" udp-send "$UDP2"
		out1=$OUT
		check "$who: below ABI 10 a profile with udp_connect is refused (exit 125)" 125 "$RC"
		check "$who: ... naming UDP port rules, the ABI and unenforced.udp_ports" \
			"$(refusal '"unenforced":{"udp_ports":true}' ".udp_connect: UDP port rules (needs Landlock ABI 10; $HAVE)")" \
			"$(errline)"
		check "$who: ... and nothing ran" "" "$out1"
		p="{\"unenforced\":{\"host_sockets\":true,\"signal_scope\":true,\"truncate\":true,\"udp_ports\":true},$net}"
		raw "$who" "$p" udp-send "$UDP2"
		check "$who: with unenforced.udp_ports it runs, and port $UDP2 CAN be reached (documented)" ok "$OUT"
		check_notice "$who: ... with a notice naming it" \
			"$(left "UDP port rules" "needs Landlock ABI 10; $HAVE" .unenforced.udp_ports)"
		matrix "UDP port rules (udp_bind, udp_connect)" "refused; left out with notice (unenforced.udp_ports)"
	fi
}

# Issue 10, classes 3 and 4: while the command waits on a fifo, the same
# user outside rotates a hidden secret by rename, replaces a hidden
# directory, creates a hidden file that did not exist, and rotates a
# hidden file inside the workspace.  Outside the writable trees every one
# stays unreadable in both modes (Landlock goes around them even with
# mounts); inside the workspace expansion holds, and with mounts (held by
# a mount on a name) --check must name the path in its remarks.
host_replace() {
	section
	who=$1
	eval "m=\$MNT_$who"
	for mode in mounts off; do
		[ "$mode" = mounts ] && [ "$m" != yes ] && continue
		mk=""
		[ "$mode" = off ] && mk='"mounts":"off",'
		ws=$(mkws "$who" "rep-ws-$mode")
		s=$(mkws "$who" "rep-s-$mode")
		a=$(mkws "$who" "rep-a-$mode")
		as "$who" "$BB" sh -c "echo sec1 > '$s/secret' && mkdir '$s/keys' && echo key1 > '$s/keys/id' &&
			echo tok1 > '$ws/tok' && '$BB' mkfifo '$ws/ready' '$ws/go'"
		p="{$mk$UNF,\"writable\":[\"$ws\"],\"hidden\":[\"$s/secret\",\"$s/keys\",\"$a/aws/credentials\",\"$ws/tok\"]}"
		plan=$(as "$who" "$SB" --check "$p" 2>"$W/err")
		as "$who" "$SB" "$p" -- "$BB" sh -c '
			try() { if v=$("'"$BB"'" cat "$2" 2>/dev/null); then echo "$1=$v"; else echo "$1=denied"; fi; }
			echo > "'"$ws"'/ready"; read l < "'"$ws"'/go"
			try secret "'"$s"'/secret"; try key "'"$s"'/keys/id"; try aws "'"$a"'/aws/credentials"; try tok "'"$ws"'/tok"
		' >"$W/rep.out" 2>"$W/err" &
		rp=$!
		read -r _ <"$ws/ready"
		as "$who" "$BB" sh -c "echo sec2 > '$s/n' && mv '$s/n' '$s/secret' && mv '$s/keys' '$s/keys.old' &&
			mkdir '$s/keys' && echo key2 > '$s/keys/id' && mkdir '$a/aws' && echo aws2 > '$a/aws/credentials' &&
			echo tok2 > '$ws/n' && mv '$ws/n' '$ws/tok'"
		echo go >"$ws/go"
		wait $rp
		out=$(tr '\n' ' ' <"$W/rep.out")
		check "$who/$mode: hidden paths outside the workspace stay unreadable when the host rotates, replaces or creates them" \
			"secret=denied key=denied aws=denied" "$(echo "$out" | cut -d' ' -f1-3)"
		tok=$(echo "$out" | cut -d' ' -f4)
		if [ "$tok" = tok=denied ]; then
			ok "$who/$mode: a hidden file inside the workspace rotated by rename stays unreadable"
		elif [ "$mode" = mounts ] && echo "$plan" | grep -F "held by mounts on their names" | grep -qF "$ws/tok"; then
			ok "$who/$mode: a hidden file inside the workspace rotated by rename: readable (a mount sits on a name), and --check remarks it"
		else
			not_ok "$who/$mode: a hidden file inside the workspace rotated by rename stays unreadable or is remarked"
			diag "got: $out"
		fi
	done
}

# ---- no_survivors: a PID namespace (mount mode) or a subreaper -----------
# alive_sleep SECS — pids of a running "busybox sleep SECS" (zombies have
# an empty command line)
alive_sleep() {
	for d in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" = "$BB sleep $1 " ] && echo "${d#/proc/}"
	done
}
survivors() {
	section
	who=$1
	ws=$(mkws "$who" surv)
	eval "m=\$MNT_$who"
	for mounts in auto off; do
		p="{$UNF,\"writable\":[\"$ws\"],\"no_survivors\":true,\"mounts\":\"$mounts\"}"
		LAST_PROF=$p
		out=$(as "$who" "$SB" "$p" -- "$BB" sh -c 'echo $$; exit 3' 2>"$W/err")
		check "$who/mounts $mounts: no_survivors: the command's exit status 3 comes back" 3 "$?"
		if [ "$m" = yes ] && [ $mounts = auto ]; then
			check "$who/mounts $mounts: no_survivors: the command is pid 2 of a PID namespace" 2 "$out"
			# the init, the shell, ls, and grep unless ls was done first
			n=$(as "$who" "$SB" "$p" -- "$BB" sh -c 'ls /proc | grep -c "^[0-9]*$"' 2>"$W/err")
			case $n in 3 | 4) ok "$who/mounts $mounts: ... and /proc lists only the sandbox ($n processes)" ;;
			*) not_ok "$who/mounts $mounts: ... and /proc lists only the sandbox"; diag "got: $n" ;; esac
			cell="PID namespace (command pid 2, fresh /proc)"
		else
			case $out in 2 | "") not_ok "$who/mounts $mounts: no_survivors without a PID namespace: the host's pid"; diag "got: $out" ;;
			*) ok "$who/mounts $mounts: no_survivors without a PID namespace: the host's pid ($out)" ;; esac
			check_prefix "$who/mounts $mounts: ... one notice names the subreaper" \
				"__sandbox: notice: .no_survivors: no PID namespace (" "$(grep no_survivors "$W/err")"
		fi
		secs=$((2900 + N))
		as "$who" "$SB" "$p" -- "$BB" sh -c "$BB sleep $secs & exit 0" </dev/null >/dev/null 2>"$W/err"
		check "$who/mounts $mounts: no_survivors: a background child does not outlive the command" "" "$(alive_sleep $secs)"
		for pid in $(alive_sleep $secs); do kill -9 "$pid"; done
	done
	# the control: without the option it does
	secs=$((2900 + N))
	as "$who" "$SB" "{$UNF,\"writable\":[\"$ws\"]}" -- "$BB" sh -c "$BB sleep $secs & exit 0" </dev/null >/dev/null 2>"$W/err"
	left=$(alive_sleep $secs)
	if [ -n "$left" ]; then ok "$who: control: without no_survivors the background child lives on"; else not_ok "$who: control: without no_survivors the background child lives on"; fi
	for pid in $left; do kill -9 "$pid"; done
	if [ "$m" = yes ]; then matrix "no_survivors ($who)" "$cell; mounts off: subreaper"; else matrix "no_survivors ($who)" "subreaper (no namespaces)"; fi
}

if [ "$ABI" -eq 0 ]; then
	no_landlock
else
	matrix "Landlock (every filesystem, network and scope rule)" "enabled, ABI $ABI"
	for who in root nobody; do
		filesystem "$who"
		process "$who"
		behaviour "$who"
		syscalls "$who"
		truncate_rule "$who"
		tcp_ports "$who"
		ioctl_dev "$who"
		signal_scope "$who"
		abstract_scope "$who"
		pathname_sockets "$who"
		udp_ports "$who"
		mount_namespace "$who"
		host_replace "$who"
		one_line "$who"
	done
	# last: the fixtures' listeners end after 120 s (try-syscall's alarm)
	# and none is needed here
	for who in root nobody; do
		survivors "$who"
	done
fi

for fd in 3 4 5 6 7 8; do bg_stop $fd; done
rm -rf "$TMPSOCKDIR" "$RUNSOCKDIR"
echo "1..$N"
[ "$FAILED" = 0 ]

# tests/carve/common.sh — shared by the carve-out tests (issues 3 and 9),
# on top of tests/lib.sh (which puts $T under /srv: the command's /tmp and
# /var/tmp are private).  Each test runs in both carve modes:
#   mounts     "mounts" absent ("auto"): a mount namespace (as root
#              directly, otherwise through a user namespace);
#   expansion  "mounts":"off": no namespace.  Explicit carve-outs
#              (protect given in the profile, protect_extra, read_only,
#              hidden) are made by Landlock sibling expansion; the built-in
#              protect list is left out (named on the one "left out:"
#              notice line) so it never costs function.  Below Landlock
#              ABI 9 this mode needs unenforced.host_sockets ($UNF).
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PY=/usr/bin/python3
if [ ! -x $PY ]; then
	echo "Bail out! $PY is missing (scripts/setup installs it)"
	exit 1
fi
MODES="mounts expansion"

# Cleanup beyond lib.sh's: commands registered with at_exit run first
# (background servers, a sysctl to restore, directories outside $T).
_carve_exit=()
_bg_fds=
at_exit() { _carve_exit+=("$1"); }
_carve_cleanup() {
	local i
	for ((i = ${#_carve_exit[@]} - 1; i >= 0; i--)); do eval "${_carve_exit[i]}" 2>/dev/null; done
	_sb_watchdog_stop
	rm -rf "$T"
}
trap _carve_cleanup EXIT

# bg NAME WHO CMD... — start CMD as WHO in the background, its stdin and
# stdout on FIFOs; wait (blocking read, bounded by the helpers' own alarm)
# for its first line into BG_LINE.  The server ends when its stdin closes:
# bg_stop NAME (also done at exit).
bg() {
	local name=$1 who=$2
	shift 2
	mkfifo "$T/$name.in" "$T/$name.out"
	# (the other servers' stdin pipes are closed in it, or they would
	# only see EOF once this one ends too)
	(
		for f in $_bg_fds; do eval "exec $f>&-"; done
		as "$who" "$@"
	) <"$T/$name.in" >"$T/$name.out" 2>"$T/$name.err" &
	eval "BG_PID_$name=$!"
	local w
	exec {w}>"$T/$name.in"
	eval "BG_FD_$name=$w"
	_bg_fds="$_bg_fds $w"
	at_exit "bg_stop $name"
	BG_LINE=
	read -r BG_LINE <"$T/$name.out"
}
bg_stop() {
	local fd pid
	eval "fd=\${BG_FD_$1:-}; pid=\${BG_PID_$1:-}"
	[ -n "$fd" ] && eval "exec $fd>&-"
	[ -n "$pid" ] && wait "$pid" 2>/dev/null
	eval "BG_FD_$1=; BG_PID_$1="
}

# mode_keys MODE — the profile keys (with a trailing comma) of a mode.
mode_keys() {
	case $1 in
	mounts) echo "" ;;
	expansion) echo "\"mounts\":\"off\",$UNF," ;;
	esac
}

# mounts_ok WHO — true when WHO can get a mount namespace (--probe).
mounts_ok() {
	[ "$(as "$1" "$SB" --probe | $PY -c 'import json,sys; print(json.load(sys.stdin)["namespaces"]["mount"]["available"])')" = True ]
}

# carve_of WHO PROFILE — the carve mode --check plans for WHO: "mounts"
# with a mount namespace, "expansion" when an explicit carve-out is
# expanded, "none" otherwise (the built-in protect list alone without a
# namespace).
carve_of() {
	as "$1" "$SB" --check "$2" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["namespaces"]["carve"])' 2>&1
}

# plan_q WHO PROFILE EXPR — a Python expression over the --check plan `d`
# (printed even for a refused profile), e.g. '" ".join(d["unprotected"])'.
plan_q() {
	as "$1" "$SB" --check "$2" 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$3" 2>&1
}
# unprotected WHO PROFILE — the plan's "unprotected" paths, one a line.
unprotected() { plan_q "$1" "$2" '"\n".join(d.get("unprotected", []))'; }
# mount_ops WHO PROFILE — the plan's mount rules, "OP PATH" one a line.
mount_ops() { plan_q "$1" "$2" '"\n".join(m["op"] + " " + m["path"] for m in d["namespaces"]["mounts"])'; }
# listed NAME LINES — "listed" when NAME is one of the lines, else "missing".
listed() { printf '%s\n' "$2" | grep -qxF -- "$1" && echo listed || echo missing; }
# left_lines — the number of "left out:" notice lines in the last stderr.
left_lines() { grep -c '^__sandbox: notice: left out: ' "$T/err"; }
# left_builtin_re NAMES — an ERE for the one left-out line whose first part
# is the built-in protect of NAMES (", "-separated absolute paths, as
# regular expressions), optionally followed by the pathname unix socket
# scope part (below Landlock ABI 9 with $UNF).
left_builtin_re() {
	echo "^__sandbox: notice: left out: built-in protect of $1 \\(mounts \"off\", [^;]*; built-in default\\)(; pathname unix socket scope \\(sockets outside writable trees stay reachable\\) \\(needs Landlock ABI 9; [^;]*; allowed by \\.unenforced\\.host_sockets\\))?\$"
}
# re STRING — STRING with the ERE metacharacters escaped.
re() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }

# The operation helper: one operation, one line on stdout — "ok" (or the
# listing / data asked for) or the errno name of the failure.
OP=$T/op.py
cat >"$OP" <<'EOF'
import errno, os, re, select, signal, socket, subprocess, sys
signal.alarm(120)  # a broken test never hangs forever
op, args = sys.argv[1], sys.argv[2:]
def serve(s):
    print("ok", flush=True)
    while True:
        r, _, _ = select.select([s, sys.stdin], [], [])
        if sys.stdin in r and not os.read(0, 4096):
            return
        if s in r:
            c, _ = s.accept()
            c.sendall(b"hi")
            c.close()
try:
    if op == "read":          # open O_RDONLY, print the first line
        with open(args[0]) as f:
            print("ok:" + f.readline().strip())
    elif op == "append":      # open O_WRONLY|O_APPEND (never creates)
        fd = os.open(args[0], os.O_WRONLY | os.O_APPEND)
        os.write(fd, args[1].encode() + b"\n"); os.close(fd); print("ok")
    elif op == "write":       # open O_WRONLY|O_CREAT (follows symlinks)
        fd = os.open(args[0], os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"x\n"); os.close(fd); print("ok")
    elif op == "create":      # open O_WRONLY|O_CREAT|O_EXCL
        os.close(os.open(args[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)); print("ok")
    elif op == "mkdir":
        os.mkdir(args[0]); print("ok")
    elif op == "unlink":
        os.unlink(args[0]); print("ok")
    elif op == "rename":
        os.rename(args[0], args[1]); print("ok")
    elif op == "symlink":     # symlink TARGET LINKPATH
        os.symlink(args[0], args[1]); print("ok")
    elif op == "list":        # the names in a directory, or (empty)
        print(" ".join(sorted(os.listdir(args[0]))) or "(empty)")
    elif op == "unix-serve":  # listen on a pathname socket until stdin EOF
        s = socket.socket(socket.AF_UNIX)
        s.bind(args[0]); os.chmod(args[0], 0o777); s.listen(8)
        serve(s)
    elif op == "unix-connect":
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(30); s.connect(args[0])
        print("ok" if s.recv(2) == b"hi" else "bad reply")
    elif op == "tcp-connect": # HOST PORT
        fam = socket.AF_INET6 if ":" in args[0] else socket.AF_INET
        s = socket.socket(fam)
        s.settimeout(30); s.connect((args[0], int(args[1]))); print("ok")
    elif op == "tcp-serve":   # listen on HOST, print the port, until stdin EOF
        fam = socket.AF_INET6 if ":" in args[0] else socket.AF_INET
        s = socket.socket(fam); s.bind((args[0], 0)); s.listen(8)
        sys.stdout.write(str(s.getsockname()[1]) + " "); serve(s)
    elif op == "http-pair":   # an HTTP server and a client, both here
        srv = subprocess.Popen([sys.executable, "-u", "-m", "http.server",
                                "--bind", args[0], "0"], cwd=args[1],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = srv.stdout.readline()   # "Serving HTTP on HOST port N ..."
        m = re.search(r" port (\d+) ", line)
        if not m:
            print("server did not start: %r" % line)
        else:
            host = "[%s]" % args[0] if ":" in args[0] else args[0]
            cli = subprocess.run([sys.executable, "-c",
                "import sys, urllib.request as u; r = u.urlopen(sys.argv[1], timeout=30); "
                "print(r.status, r.read().decode().strip())",
                "http://%s:%s/hello.txt" % (host, m.group(1))],
                capture_output=True, text=True, timeout=60)
            print(cli.stdout.strip() or cli.stderr.strip().splitlines()[-1])
        srv.kill(); srv.wait()
    else:
        print("usage: unknown op " + op); sys.exit(2)
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
EOF
chmod 644 "$OP"

# op WHO PROFILE OPERATION [ARG...] — the operation inside the sandbox;
# stderr kept in $T/err (see expect).
op() {
	local who=$1 p=$2
	shift 2
	as "$who" "$SB" "$p" -- $PY "$OP" "$@" </dev/null 2>"$T/err"
}
# outside WHO OPERATION [ARG...] — the same without the sandbox (control).
outside() {
	local who=$1
	shift
	as "$who" $PY "$OP" "$@" </dev/null 2>"$T/err"
}
# sbsh WHO PROFILE SCRIPT [ARG...] — sh -c SCRIPT inside; stdout in $out,
# exit status in $rc, stderr in $T/err.
sbsh() {
	local who=$1 p=$2
	shift 2
	out=$(as "$who" "$SB" "$p" -- /bin/sh -c "$@" </dev/null 2>"$T/err")
	rc=$?
}
# expect NAME EXPECTED ACTUAL — check, plus the last stderr on a mismatch.
expect() {
	check "$1" "$2" "$3"
	[ "$2" = "$3" ] || diag "stderr: $(cat "$T/err" 2>/dev/null)"
}
# errs — the shim's stderr of the last run.
errs() { cat "$T/err" 2>/dev/null; }

# own WHO PATH... — give paths made by root to WHO (recursively).
own() {
	local who=$1
	shift
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$@"
	return 0
}

# gitas WHO DIR ARGS... — git outside the sandbox as WHO, isolated from the
# machine's configuration.
gitas() {
	local who=$1 dir=$2
	shift 2
	as "$who" env HOME="$T" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=O GIT_AUTHOR_EMAIL=o@o.invalid \
		GIT_COMMITTER_NAME=O GIT_COMMITTER_EMAIL=o@o.invalid git -C "$dir" "$@"
}
# gitenv DIR — profile "env" keys for git inside (HOME in a writable tree).
gitenv() {
	echo "\"env\":{\"set\":{\"HOME\":\"$1\",\"GIT_CONFIG_NOSYSTEM\":\"1\",\"GIT_AUTHOR_NAME\":\"Sand Box\",\"GIT_AUTHOR_EMAIL\":\"sb@example.invalid\",\"GIT_COMMITTER_NAME\":\"Sand Box\",\"GIT_COMMITTER_EMAIL\":\"sb@example.invalid\"}}"
}

# mkrepo WHO DIR — a git repository with one commit, owned by WHO.
mkrepo() {
	mkdir -p "$2"
	own "$1" "$2"
	gitas "$1" "$2" -c init.defaultBranch=main init -q . &&
		echo one | as "$1" tee "$2/f.txt" >/dev/null &&
		gitas "$1" "$2" add f.txt && gitas "$1" "$2" commit -q -m one
}

# mode_guard WHO MODE — false (after a skip line) when MODE cannot run.
mode_guard() {
	if [ "$2" = mounts ] && ! mounts_ok "$1"; then
		skip "$1/$2: no mount namespace for $1 on this machine"
		return 1
	fi
	return 0
}

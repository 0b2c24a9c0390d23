#!/usr/bin/env bash
# examples/{python,node,go}: each launcher (a thin user of its package in
# packages/, run from a copy of the checkout) builds a profile, hands it to
# __sandbox on a pipe (fd:N, never argv), starts a small stdio server under
# it, and turns the shim's own failures into errors its caller sees: 125
# (refused: SandboxRefused), 126 (not executable: CommandNotExecutable),
# 127 (not found: CommandNotFound), each carrying the shim's one line.
# Run as root and as uid 65534; Go is skipped (with the reason) when no Go
# toolchain is installed (scripts/setup installs golang-go).
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# each example uses its package from the checkout (../../packages/...)
mkdir -p "$T/repo"
cp -r "$REPO/examples" "$REPO/packages" "$T/repo/"
EX=$T/repo/examples
chmod -R a+rX "$T/repo"

# The server: one request line in, one reply out; it writes the request
# into the workspace, tries a secret outside it, and exits 3 (passed on).
SERVER='import sys
ws, secret = sys.argv[1], sys.argv[2]
req = sys.stdin.readline().strip()
open(ws + "/log", "a").write(req + "\n")
try:
    open(secret).read()
    leak = "secret READ"
except OSError as e:
    leak = "secret refused (%s)" % e.__class__.__name__
print("reply to %s; %s" % (req, leak), flush=True)
sys.exit(3)'

launchers=("python:/usr/bin/python3 $EX/python/sandboxed.py" "node:/usr/bin/node $EX/node/sandboxed.js")
GO=$(command -v go || true)
if [ -n "$GO" ]; then
	mkdir -p "$T/go"
	if (cd "$EX/go" && HOME=$T/go GOCACHE=$T/go/cache GOPATH=$T/go/path GOPROXY=off GOFLAGS=-mod=mod \
	    "$GO" build -o "$T/bin/sandboxed-go" . 2>"$T/go/err"); then
		ok "go: the launcher builds"
		launchers+=("go:$T/bin/sandboxed-go")
		# the library form, the package the example uses: *SandboxError
		# and errors.Is (packages/go/sandbox_test.go)
		gows=$(mkws root go-test)
		if (cd "$EX/go" && HOME=$T/go GOCACHE=$T/go/cache GOPATH=$T/go/path GOPROXY=off GOFLAGS=-mod=mod \
		    SANDBOX="$SB" SB_WORKSPACE="$gows" "$GO" test -v -count=1 sandbox-shim.invalid/sandbox >"$T/go/test" 2>&1) &&
		    ! grep -q -e '--- SKIP' -e 'no test files' "$T/go/test"; then
			ok "go library: refusal, not executable, not found as *SandboxError matching ErrRefused, ErrNotExecutable, ErrNotFound"
		else
			not_ok "go library: refusal, not executable, not found as *SandboxError matching ErrRefused, ErrNotExecutable, ErrNotFound"
			diag "$(cat "$T/go/test")"
		fi
	else
		not_ok "go: the launcher builds"
		diag "$(cat "$T/go/err")"
	fi
else
	skip "go: no Go toolchain installed (apt-get install golang-go; scripts/setup does)"
fi

# A stand-in for __sandbox that records the argv and the descriptors it
# got, then execs the real one (descriptors stay open across exec).
cat >"$T/bin/record-sandbox" <<EOF
#!/bin/sh
printf '%s\n' "\$@" > "\$RECORD.argv"
ls /proc/\$\$/fd > "\$RECORD.fds"
exec "$SB" "\$@"
EOF
chmod 755 "$T/bin/record-sandbox"

secret=$T/secret-file
echo "token-42" >"$secret"
chmod 644 "$secret"

for l in "${launchers[@]}"; do
	name=${l%%:*}
	cmd=${l#*:}
	for who in $USERS; do
		t="$name/$who"
		ws=$(mkws "$who" "launch-$name")
		out=$(echo "ping" | as "$who" env SANDBOX="$SB" $cmd "$ws" -- /usr/bin/python3 -c "$SERVER" "$ws" "$secret" 2>"$T/err"); rc=$?
		check "$t: the server answers, its exit status comes back" "3 reply to ping; secret refused (PermissionError)" "$rc $out"
		check "$t: the server wrote in the workspace" "ping" "$(cat "$ws/log" 2>&1)"
		check "$t: nothing but notices on stderr" "" "$(grep -v '^__sandbox: notice: ' "$T/err")"

		# the profile arrives on a descriptor, never in argv
		rec=$T/rec-$name-$who
		touch "$rec.argv" "$rec.fds" && chmod 666 "$rec.argv" "$rec.fds"
		out=$(echo "x" | as "$who" env SANDBOX="$T/bin/record-sandbox" RECORD="$rec" $cmd "$ws" -- /usr/bin/python3 -c "$SERVER" "$ws" "$secret" 2>/dev/null); rc=$?
		check "$t: through the recording stand-in it still runs" "3" "$rc"
		argv=$(cat "$rec.argv")
		fdn=$(head -n1 "$rec.argv" | sed -n 's/^fd:\([0-9]*\)$/\1/p')
		check "$t: argv is fd:N -- COMMAND..., no JSON in it" "yes no" \
			"$([ -n "$fdn" ] && [ "$(sed -n 2p "$rec.argv")" = "--" ] && echo yes) $(printf '%s' "$argv" | grep -q '[{}]' && echo yes || echo no)"
		check "$t: descriptor $fdn was open in the shim" "yes" "$(grep -qx "$fdn" "$rec.fds" && echo yes)"

		# refusal: surfaced as the shim's own line, status 125
		out=$(as "$who" env SANDBOX="$SB" $cmd "$T/no-such-workspace" -- /usr/bin/true 2>&1 </dev/null); rc=$?
		check "$t: a refusal comes back as 125" 125 "$rc"
		check_match "$t: ... with the shim's message" \
			"the sandbox refused to start /usr/bin/true: __sandbox: profile \.writable\[0\] \"$T/no-such-workspace\": No such file or directory" "$out"
		# not executable (126): the file mode, then the profile, is why
		: >"$ws/not-exec"
		chmod 644 "$ws/not-exec"
		out=$(as "$who" env SANDBOX="$SB" $cmd "$ws" -- "$ws/not-exec" 2>&1 </dev/null); rc=$?
		check "$t: a command that cannot be executed comes back as 126" 126 "$rc"
		check_match "$t: ... with the shim's message" \
			"the sandbox could not execute $ws/not-exec: __sandbox: \"$ws/not-exec\": cannot execute: the file mode \(0644\) does not allow it" "$out"
		# not found (127), on the PATH the profile keeps
		out=$(as "$who" env SANDBOX="$SB" $cmd "$ws" -- no-such-command-sb 2>&1 </dev/null); rc=$?
		check "$t: a command that is not found comes back as 127" 127 "$rc"
		check_match "$t: ... with the shim's message" \
			'the sandbox could not find no-such-command-sb: __sandbox: "no-such-command-sb": command not found on PATH' "$out"
		out=$(as "$who" env SANDBOX="$SB" $cmd "$ws" -- "$ws/no-such-file" 2>&1 </dev/null); rc=$?
		check "$t: a missing path comes back as 127" 127 "$rc"
		check_match "$t: ... with the shim's message" \
			"the sandbox could not find $ws/no-such-file: __sandbox: \"$ws/no-such-file\": command not found" "$out"
		# a command exiting 125, 126 or 127 by itself is not the shim's failure
		for c in 125 126 127; do
			out=$(as "$who" env SANDBOX="$SB" $cmd "$ws" -- /bin/sh -c "exit $c" 2>&1 </dev/null); rc=$?
			check "$t: the command's own $c is passed on, not reported as the sandbox's" "$c " \
				"$rc $(printf '%s' "$out" | grep -v '^__sandbox: notice: ' | grep 'the sandbox')"
		done
	done
done

# the Python launcher asks for the denial report and prints it under a
# failed run (and says nothing of it when the run succeeds)
for who in $USERS; do
	ws=$(mkws "$who" denials)
	cp "$HELPERS/try-syscall" "$ws/try"
	chmod 755 "$ws/try"
	out=$(as "$who" env SANDBOX="$SB" /usr/bin/python3 "$EX/python/sandboxed.py" "$ws" -- /bin/sh -c \
		'"$0/try" unshare-user; "$0/try" mount "$0"; "$0/try" ptrace-attach ppid; "$0/try" io_uring_setup; exit 1' "$ws" \
		2>"$T/err" </dev/null); rc=$?
	rep=$(grep -v '^__sandbox: notice: ' "$T/err" | sed 's/ (pid [0-9]*)$//')
	check "python/$who: a failed run: its exit status and the errnos the command saw" "1 EPERM EPERM EPERM ENOSYS" "$rc $(echo $out)"
	check "python/$who: ... and under it what the sandbox refused" "sandboxed.py: /bin/sh exited 1; the sandbox refused it:
  unshare: EPERM
  mount: EPERM
  ptrace: EPERM
  io_uring_setup: ENOSYS" "$rep"
	out=$(as "$who" env SANDBOX="$SB" /usr/bin/python3 "$EX/python/sandboxed.py" "$ws" -- /bin/sh -c '"$0/try" io_uring_setup' "$ws" 2>"$T/err" </dev/null); rc=$?
	check "python/$who: a run that succeeds prints no report" "0 ENOSYS " "$rc $out $(grep -v '^__sandbox: notice: ' "$T/err")"
done

# the library form, as the README shows it: a Python and a Node parent
# speaking to a line server on its stdin/stdout
for who in $USERS; do
	ws=$(mkws "$who" lib)
	# an executable file outside the profile's executable trees (126)
	cp "$HELPERS/nop" "$ws/prog"
	chmod 755 "$ws/prog"
	out=$(cd "$EX/python" && as "$who" env SANDBOX="$SB" /usr/bin/python3 -c '
import subprocess, sys
from sandboxed import spawn, wait, SandboxError, SandboxRefused, CommandNotExecutable, CommandNotFound
ws = sys.argv[1]
p = spawn({"writable": [ws]}, ["/bin/sh", "-c", "read l; echo got $l; echo $l > \"$0\"/f", ws],
          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out, _ = p.communicate(b"hi\n")
print(out.decode().strip(), wait(p))
try:
    wait(spawn({"writable": ["/nonexistent"]}, ["true"]))
except SandboxRefused as e:
    print("refused:", e)
for profile, argv, cls in (({"writable": [ws], "executable": ["/usr"]}, [ws + "/prog"], CommandNotExecutable),
                           ({"writable": [ws], "env": {"set": {"PATH": "/usr/bin"}}}, ["no-such-command-sb"], CommandNotFound)):
    try:
        print("| ran", wait(spawn(profile, argv)))
    except SandboxError as e:
        print("|", type(e).__name__, isinstance(e, cls), e.exit_code, e)
' "$ws" 2>/dev/null)
	check "$who: python library: request, reply, exit status, refusal" \
		"got hi 0 refused: __sandbox: profile .writable[0] \"/nonexistent\": No such file or directory" "$(echo "$out" | sed '/^|/d' | tr '\n' ' ' | sed 's/ $//')"
	check_match "$who: python library: CommandNotExecutable (126) when the profile does not allow executing" \
		'^\| CommandNotExecutable True 126 __sandbox: profile \.executable "'"$ws"'/prog": cannot execute: the file is not inside the profile.s executable trees' "$(echo "$out" | sed -n 3p)"
	check "$who: python library: CommandNotFound (127) on the profile's PATH" \
		'| CommandNotFound True 127 __sandbox: "no-such-command-sb": command not found on PATH (/usr/bin)' "$(echo "$out" | sed -n 4p)"
	out=$(cd "$EX/node" && as "$who" env SANDBOX="$SB" /usr/bin/node -e '
const s = require("./sandboxed");
const { spawnSandboxed, SandboxRefused } = s;
const ws = process.argv[1];
(async () => {
  const c = spawnSandboxed({ writable: [ws] }, ["/bin/sh", "-c", "read l; echo got $l", ws]);
  let out = ""; c.stdout.on("data", (d) => out += d);
  c.stdin.end("hi\n");
  const { code } = await c.done;
  console.log(out.trim(), code);
  try { await spawnSandboxed({ writable: ["/nonexistent"] }, ["true"]).done; }
  catch (e) { console.log(e instanceof SandboxRefused ? "refused:" : "other:", e.message); }
  for (const [profile, argv, cls] of [[{ writable: [ws], executable: ["/usr"] }, [ws + "/prog"], s.CommandNotExecutable],
                                      [{ writable: [ws], env: { set: { PATH: "/usr/bin" } } }, ["no-such-command-sb"], s.CommandNotFound]]) {
    try { await spawnSandboxed(profile, argv).done; console.log("| ran"); }
    catch (e) { console.log("|", e.name, e instanceof cls && e instanceof s.SandboxError, e.exitCode, e.message); }
  }
})();' "$ws" 2>/dev/null)
	check "$who: node library: request, reply, exit status, refusal" \
		"got hi 0 refused: __sandbox: profile .writable[0] \"/nonexistent\": No such file or directory" "$(echo "$out" | sed '/^|/d' | tr '\n' ' ' | sed 's/ $//')"
	check_match "$who: node library: CommandNotExecutable (126) when the profile does not allow executing" \
		'^\| CommandNotExecutable true 126 __sandbox: profile \.executable "'"$ws"'/prog": cannot execute: the file is not inside the profile.s executable trees' "$(echo "$out" | sed -n 3p)"
	check "$who: node library: CommandNotFound (127) on the profile's PATH" \
		'| CommandNotFound true 127 __sandbox: "no-such-command-sb": command not found on PATH (/usr/bin)' "$(echo "$out" | sed -n 4p)"
done
done_testing

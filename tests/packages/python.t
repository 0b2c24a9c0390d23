#!/usr/bin/env bash
# The Python wheels (make packages: one per architecture, tagged
# manylinux_2_17/manylinux2014/musllinux_1_1) installed with
# `pip install --no-index` into a fresh venv of Debian's python3, then used
# as a Python parent would: spawn()/wait() and spawn_async()/wait_async()
# drive the real MCP filesystem server over stdio (initialize,
# list_directory, a refused read of a hidden key, stdout only frames),
# stdio_server_parameters() gives what the MCP SDK's StdioServerParameters
# takes and starts the same server; refusals raise SandboxRefused /
# CommandNotExecutable / CommandNotFound with the shim's line; check() and
# probe() return parsed JSON.  The aarch64 wheel holds the aarch64 binary
# and pip refuses it on this machine.  spawn/spawn_async(..., denials=True)
# give the denial report (common.sh's check_denials and check_recorded).
# As root and as uid 65534.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
build_packages
PY=/usr/bin/python3
if ! $PY -c 'import ensurepip' 2>/dev/null; then
	skip "python3-venv is not installed (scripts/setup installs it)"; done_testing; exit
fi

check "the wheel's RECORD lists every file with its sha256 and size" "ok" "$($PY - "$WHEEL" <<'PY'
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
rec = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")][0]
rows = {l.split(",")[0]: l.split(",")[1:] for l in z.read(rec).decode().splitlines()}
bad = [n for n in z.namelist() if n != rec and (n not in rows or rows[n] != [
    "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(z.read(n)).digest()).rstrip(b"=").decode(), str(len(z.read(n)))])]
print("ok" if not bad and set(rows) == set(z.namelist()) else "bad %s" % bad)
PY
)"
check "each wheel holds only its own architecture's binary" "sandbox_shim/bin/linux-x86_64/__sandbox $(sum "$SB") sandbox_shim/bin/linux-aarch64/__sandbox $(sum "$FAKE_ARM")" \
	"$($PY -c '
import hashlib, sys, zipfile
for w in sys.argv[1:]:
    z = zipfile.ZipFile(w)
    b = [n for n in z.namelist() if n.endswith("/__sandbox")]
    print(*b, *[hashlib.sha256(z.read(n)).hexdigest() for n in b], end=" ")' "$WHEEL" "$WHEEL_ARM" | sed 's/ $//')"

V=$T/venv
$PY -m venv "$V" >/dev/null
out=$("$V/bin/pip" install --no-index --disable-pip-version-check "$WHEEL_ARM" 2>&1); rc=$?
check_match "pip refuses the aarch64 wheel on this machine (its tags)" "is not a supported wheel on this platform" "$rc $out"
if "$V/bin/pip" install -q --no-index --disable-pip-version-check "$WHEEL" >"$T/pip.out" 2>&1; then
	ok "pip install --no-index of the x86_64 wheel into a fresh venv"
else
	not_ok "pip install --no-index of the x86_64 wheel into a fresh venv"; diag "$(cat "$T/pip.out")"; done_testing; exit
fi
chmod -R a+rX "$V"
SITE=$("$V/bin/python" -c 'import sandbox_shim, os; print(os.path.dirname(sandbox_shim.__file__))')
check "installed: the binary, executable, the same bytes" "755 $(sum "$SB")" \
	"$(stat -c %a "$SITE/bin/linux-x86_64/__sandbox") $(sum "$SITE/bin/linux-x86_64/__sandbox")"
check "binary_for(aarch64) in the x86_64 wheel: an error naming what is held" \
	"sandbox_shim: no __sandbox binary for linux-aarch64 in this package (it holds: linux-x86_64); set SANDBOX to the path of one" \
	"$("$V/bin/python" -c 'import sandbox_shim
try: sandbox_shim.binary_for("aarch64")
except FileNotFoundError as e: print(e)')"

cat >"$T/client.py" <<'PY'
"""MCP over stdio through sandbox_shim: MODE sync, async or params."""
import asyncio, json, subprocess, sys
import sandbox_shim as s
mode, profile, server, ws, key = sys.argv[1:]
profile = json.loads(profile)
argv = ["/usr/bin/node", server, ws]
calls = [("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
         ("tools/call", {"name": "list_directory", "arguments": {"path": ws}}),
         ("tools/call", {"name": "read_text_file", "arguments": {"path": key}})]
frames, dirty, out = 0, None, []

def take(line):
    global frames, dirty
    try:
        m = json.loads(line)
        assert m.get("jsonrpc") == "2.0"
    except (ValueError, AssertionError, AttributeError):
        dirty = dirty or line[:200]
        return None
    frames += 1
    return m

def show(i, m):
    if i == 1:
        out.append("init " + m["result"]["serverInfo"]["name"])
    else:
        r = m["result"]
        out.append(("list " if i == 2 else "hidden ") + ("error " if r.get("isError") else "ok ")
                   + " ".join(c.get("text", "") for c in r["content"]).replace("\n", " "))

def request(i):
    method, params = calls[i - 1]
    return (json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()

INITIALIZED = (json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n").encode()

def converse(p):
    for i in range(1, 4):
        p.stdin.write(request(i) + (INITIALIZED if i == 2 else b""))
        p.stdin.flush()
        while True:
            m = take(p.stdout.readline().decode())
            if m and m.get("id") == i:
                show(i, m)
                break
    p.stdin.close()
    for line in p.stdout:
        take(line.decode())

if mode == "sync":
    p = s.spawn(profile, argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    converse(p)
    code = s.wait(p, 30)
elif mode == "params":
    # what StdioServerParameters(**params) would start: command, args, env, cwd
    params = s.stdio_server_parameters(profile, argv[0], argv[1:])
    assert set(params) == {"command", "args", "env", "cwd"}
    p = subprocess.Popen([params["command"], *params["args"]], env=params["env"], cwd=params["cwd"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    converse(p)
    code = p.wait(30)
else:
    async def main():
        p = await s.spawn_async(profile, argv)
        for i in range(1, 4):
            p.stdin.write(request(i) + (INITIALIZED if i == 2 else b""))
            await p.stdin.drain()
            while True:
                m = take((await asyncio.wait_for(p.stdout.readline(), 30)).decode())
                if m and m.get("id") == i:
                    show(i, m)
                    break
        p.stdin.close()
        async for line in p.stdout:
            take(line.decode())
        return await s.wait_async(p)
    code = asyncio.run(main())
print("\n".join(out))
print("frames", frames, "clean" if dirty is None else "dirty " + dirty)
print("exit", code)
PY

for who in $USERS; do
	mcp_fixture "$who"
	for mode in sync async params; do
		res=$(as "$who" timeout 60 "$V/bin/python" "$T/client.py" $mode "$PROFILE" "$FS_SERVER" "$WS" "$HOMEDIR/.ssh/id_ed25519" 2>"$T/err")
		check_mcp "$who" "$mode" "$res"
	done
	# the server allows /: only the kernel refuses the key
	res=$(as "$who" timeout 60 "$V/bin/python" "$T/client.py" sync "$PROFILE" "$FS_SERVER" / "$HOMEDIR/.ssh/id_ed25519" 2>/dev/null)
	check_match "$who: with / allowed by the server, the hidden key is still refused by the kernel" '^hidden error ' "$res"
	check "$who: stderr has the server's own lines and notices only" "" \
		"$(grep -v -e '^__sandbox: notice: ' -e 'Secure MCP Filesystem Server' -e 'MCP Roots' -e 'llowed directories' "$T/err")"

	: >"$WS/not-exec"; chmod 644 "$WS/not-exec"
	out=$(as "$who" "$V/bin/python" - "$WS" 2>/dev/null <<'PY'
import asyncio, sys
import sandbox_shim as s
ws = sys.argv[1]
cases = [({"writable": [ws + "/missing"]}, ["true"], s.SandboxRefused),
         ({"writable": [ws]}, [ws + "/not-exec"], s.CommandNotExecutable),
         ({"writable": [ws], "env": {"set": {"PATH": "/usr/bin"}}}, ["no-such-command-sb"], s.CommandNotFound)]
for profile, argv, cls in cases:
    try:
        print("ran", s.wait(s.spawn(profile, argv)))
    except s.SandboxError as e:
        print(type(e).__name__, isinstance(e, cls), e.exit_code, e)
async def a():
    for profile, argv, cls in cases:
        try:
            print("ran", await s.wait_async(await s.spawn_async(profile, argv)))
        except s.SandboxError as e:
            print("async", type(e).__name__, isinstance(e, cls), e.exit_code, e)
asyncio.run(a())
print("own", s.wait(s.spawn({"writable": [ws]}, ["/bin/sh", "-c", "exit 127"])))
plan = s.check({"writable": [ws]})
print("check", plan["refused"], type(plan["landlock"]).__name__)
try:
    s.check({"writable": ["relative"]})
except s.SandboxRefused as e:
    print("check-invalid", e)
print("probe", type(s.probe()["landlock"]["abi"]).__name__)
PY
)
	check "$who: 125 → SandboxRefused" "SandboxRefused True 125 __sandbox: profile .writable[0] \"$WS/missing\": No such file or directory" "$(echo "$out" | sed -n 1p)"
	check_match "$who: 126 → CommandNotExecutable" "^CommandNotExecutable True 126 __sandbox: \"$WS/not-exec\": cannot execute" "$(echo "$out" | sed -n 2p)"
	check "$who: 127 → CommandNotFound" 'CommandNotFound True 127 __sandbox: "no-such-command-sb": command not found on PATH (/usr/bin)' "$(echo "$out" | sed -n 3p)"
	check "$who: asyncio: the same three" "async SandboxRefused True 125|async CommandNotExecutable True 126|async CommandNotFound True 127" \
		"$(echo "$out" | sed -n 4,6p | cut -d' ' -f1-4 | paste -sd'|')"
	check "$who: the command's own 127 is its status" "own 127" "$(echo "$out" | sed -n 7p)"
	check "$who: check(): the plan" "check [] dict" "$(echo "$out" | sed -n 8p)"
	check "$who: check(): an invalid profile raises with the shim's line" \
		'check-invalid __sandbox: profile .writable[0] "relative": must be an absolute path' "$(echo "$out" | sed -n 9p)"
	check "$who: probe(): parsed" "probe int" "$(echo "$out" | sed -n 10p)"
	out=$(as "$who" "$V/bin/python" -m sandbox_shim "{\"writable\":[\"$WS\"]}" -- /bin/sh -c 'echo $$ > "$0/pid"; exit 6' "$WS" 2>&1); rc=$?
	check "$who: python -m sandbox_shim PROFILE -- CMD: runs it, status passed on" "6" "$rc"
	check "$who: sandbox-shim (console script) path" "$SITE/bin/linux-x86_64/__sandbox" "$(as "$who" "$V/bin/sandbox-shim" path)"
done
# the denial report through the API: spawn(..., denials=True) and
# spawn_async(..., denials=True), follow_denials(_async) and proc.denials
cat >"$T/denials.py" <<'PY'
"""MODE WS FOUR MANY [RECORDER WITH]: the report through sandbox_shim."""
import asyncio, json, subprocess, sys
import sandbox_shim as s
mode, ws, four, many = sys.argv[1:5]
P = {"writable": [ws]}
before = json.dumps(P, sort_keys=True)
if mode == "record":
    rec, with_ = sys.argv[5:7]
    print(s.wait(s.spawn(P, ["true"], sandbox=rec, denials=with_ == "1")))
    sys.exit()
calls = lambda ds: " ".join(str(d.get("syscall")) for d in ds)
if mode == "sync":
    p = s.spawn(P, ["/bin/sh", "-c", four, ws], denials=True, stdout=subprocess.PIPE)
    followed = list(s.follow_denials(p))
    seen = p.stdout.read().decode().split()
    code = s.wait(p, 60)
    denials = p.denials
    m = s.spawn(P, ["/usr/bin/python3", "-c", many], denials=True)
    mcode = s.wait(m, 60)
    mdenials = m.denials
    n = s.spawn(P, ["/bin/true"])
    without = n.denials
    s.wait(n)
else:
    async def main():
        p = await s.spawn_async(P, ["/bin/sh", "-c", four, ws], denials=True, stdin=subprocess.DEVNULL)
        followed = [d async for d in s.follow_denials_async(p)]
        seen = (await p.stdout.read()).decode().split()
        code = await asyncio.wait_for(s.wait_async(p), 60)
        m = await s.spawn_async(P, ["/usr/bin/python3", "-c", many], denials=True, stdin=subprocess.DEVNULL)
        mcode = await asyncio.wait_for(s.wait_async(m), 60)
        n = await s.spawn_async(P, ["/bin/true"], stdin=subprocess.DEVNULL)
        await s.wait_async(n)
        return followed, seen, code, p.denials, mcode, m.denials, n.denials
    followed, seen, code, denials, mcode, mdenials, without = asyncio.run(main())
print("follow", calls(followed))
print("list", *[d.get("error") for d in denials])
print("seen", *seen)
print("same", json.dumps(P, sort_keys=True) == before and followed == denials and code == 0)
print("many", sum(d.get("syscall") == "io_uring_setup" for d in mdenials),
      sum(d.get("dropped", 0) for d in mdenials),
      sum(d.get("syscall") != "io_uring_setup" and "dropped" not in d for d in mdenials), "exit", mcode)
print("without", "none" if without is None else without)
try:
    s.spawn({"writable": [ws], "denials": {"fd": 9}}, ["/bin/true"], denials=True)
    print("twice ran")
except ValueError as e:
    print("twice", e)
PY
for who in $USERS; do
	denial_fixture "$who"
	for mode in sync async; do
		res=$(as "$who" timeout 120 "$V/bin/python" "$T/denials.py" $mode "$DWS" "$FOUR" "$MANY" 2>"$T/err")
		check_denials "$who" "python $mode" "$res"
		check "$who: python $mode: nothing but notices on stderr" "" "$(grep -v -e '^__sandbox: notice: ' -e '^E[A-Z]*$' "$T/err")"
	done
	for with in 1 0; do
		as "$who" "$V/bin/python" "$T/denials.py" record "$DWS" "" "" "$REC_SB" $with >/dev/null 2>&1
		check_recorded "$who" python "$with"
	done
done
done_testing

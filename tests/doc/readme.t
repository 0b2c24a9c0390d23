#!/usr/bin/env bash
# The README's Python and Node snippets (wrapping an MCP server) are run as
# written, against the real @modelcontextprotocol/server-filesystem: the
# parent speaks MCP through them (initialize, tools/call write_file), and a
# refusal (125) or a server not found (127) surfaces as the error the README
# names; the Install section's denial-report snippets (Node, Python) give
# the refused calls.  As root and uid 65534.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
need_mcp_server
# Inside the sandbox the server is found on PATH ($V/bin); the snippets'
# profile reads only the system and server_dir ($V), so the test also
# proves the server needs nothing else.
V=$T/readme
mkdir -p "$V"
cp -r "$NM" "$V/node_modules"
mkdir -p "$V/bin" "$V/r"
ln -s "$V/node_modules/$PKG/dist/index.js" "$V/bin/mcp-server-filesystem"
cp -r "$REPO/examples" "$REPO/packages" "$V/r/"  # the examples use ../../packages

# block LANG — the first ```LANG block after the MCP paragraph of README.md
block() { awk -v lang="$1" '/^To wrap an MCP server/ {on=1} on && $0 == "```" lang {b=1; next} b && /^```/ {exit} b {print}' "$REPO/README.md"; }
py=$(block python)
js=$(block js)
check_match "README: a Python snippet" 'spawn\(' "$py"
check_match "README: a Node snippet" 'spawnSandboxed\(' "$js"

{
	echo 'import json, signal, sys'
	echo 'signal.alarm(60)  # a broken server must not hang the suite'
	echo "sys.path.insert(0, \"$V/r/examples/python\")"
	echo 'workspace = sys.argv[1]'
	echo "server_dir = \"$V\""
	echo '# ---- README snippet ----'
	printf '%s\n' "$py"
	echo '# ---- end ----'
	cat <<'PY'
def rpc(msg):
    server.stdin.write((json.dumps(msg) + "\n").encode())
    server.stdin.flush()
    while "id" in msg:
        r = json.loads(server.stdout.readline())
        if r.get("id") == msg["id"]:
            return r
try:
    rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "readme", "version": "1"}}})
    rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})
    r = rpc({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write_file", "arguments": {"path": workspace + "/from-python.txt", "content": "python"}}})
    print("isError" if r["result"].get("isError") else "ok", end=" ")
    server.stdin.close()
except (BrokenPipeError, ValueError):
    pass  # the server is gone: wait() says why
print(wait(server))
PY
} >"$V/r/run.py"
{
	echo "setTimeout(() => { console.log('timeout'); process.exit(1); }, 60000).unref();"
	echo 'const workspace = process.argv[2];'
	echo "const serverDir = '$V';"
	echo '// ---- README snippet ----'
	printf '%s\n' "$js"
	echo '// ---- end ----'
	cat <<'JS'
const lines = require('readline').createInterface({ input: server.stdout });
const waiting = new Map();
lines.on('line', (l) => { const m = JSON.parse(l); if (waiting.has(m.id)) waiting.get(m.id)(m); });
const rpc = (msg) => new Promise((res) => {
	if ('id' in msg) waiting.set(msg.id, res);
	server.stdin.write(JSON.stringify(msg) + '\n');
	if (!('id' in msg)) res();
});
// a server that never started answers nothing: its exit ends the wait
const exited = server.done.then(() => { throw new Error('the server exited'); });
const call = (msg) => Promise.race([rpc(msg), exited]);
(async () => {
	await call({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme', version: '1' } } });
	await call({ jsonrpc: '2.0', method: 'notifications/initialized' });
	const r = await call({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { path: workspace + '/from-node.txt', content: 'node' } } });
	server.stdin.end();
	const { code } = await server.done;
	console.log(r.result.isError ? 'isError' : 'ok', code);
})().catch((e) => console.log(e.constructor.name + ': ' + e.message));
JS
} >"$V/r/run.js"
chmod -R a+rX "$V"

for who in $USERS; do
	ws=$(mkws "$who" readme)
	out=$(cd "$V/r" && as "$who" env PATH="$T:$V/bin:$PATH" /usr/bin/python3 run.py "$ws" 2>"$T/err"); rc=$?
	check "$who: README Python snippet: MCP write_file through the sandbox, exit 0" "0 ok 0 python" "$rc $out $(cat "$ws/from-python.txt" 2>&1)"
	[ "$rc" = 0 ] || diag "$(cat "$T/err")"
	out=$(cd "$V/r" && as "$who" env PATH="$T:$V/bin:$PATH" /usr/bin/python3 run.py "$T/missing-ws" 2>&1)
	check_match "$who: README Python snippet: a refusal raises SandboxRefused with the shim's line" \
		"SandboxRefused: __sandbox: profile \.writable\[0\] \"$T/missing-ws\": No such file or directory" "$out"
	out=$(cd "$V/r" && as "$who" env PATH="$T:$V/bin:$PATH" /usr/bin/node run.js "$ws" 2>"$T/err"); rc=$?
	check "$who: README Node snippet: MCP write_file through the sandbox, exit 0" "0 ok 0 node" "$rc $out $(cat "$ws/from-node.txt" 2>&1)"
	[ "$rc" = 0 ] || diag "$(cat "$T/err")"
	out=$(cd "$V/r" && as "$who" env PATH="$T:$V/bin:$PATH" /usr/bin/node run.js "$T/missing-ws" 2>/dev/null)
	check_match "$who: README Node snippet: a refusal rejects with SandboxRefused" \
		"^SandboxRefused: __sandbox: profile \.writable\[0\] \"$T/missing-ws\": No such file or directory" "$out"
	# the server is not on PATH (no $V/bin): 127, CommandNotFound
	out=$(cd "$V/r" && as "$who" env PATH="$T:$PATH" /usr/bin/python3 run.py "$ws" 2>&1)
	check_match "$who: README Python snippet: a server not on PATH raises CommandNotFound with the shim's line" \
		'CommandNotFound: __sandbox: "mcp-server-filesystem": command not found on PATH' "$out"
	out=$(cd "$V/r" && as "$who" env PATH="$T:$PATH" /usr/bin/node run.js "$ws" 2>/dev/null)
	check_match "$who: README Node snippet: a server not on PATH rejects with CommandNotFound" \
		'^CommandNotFound: __sandbox: "mcp-server-filesystem": command not found on PATH' "$out"
done
# The Install section's denial-report snippets (Node, Python), run as
# written through the packages of this checkout: the four refused calls of
# tests/integration/report.t, as they come and once the run ended.
dblock() { awk -v lang="$1" '/^The denial report \(/ {on=1} on && $0 == "```" lang {b=1; next} b && /^```/ {exit} b {print}' "$REPO/README.md"; }
djs=$(dblock js)
dpy=$(dblock python)
check_match "README: a Node denial snippet" 'denials: true' "$djs"
check_match "README: a Python denial snippet" 'denials=True' "$dpy"
cp "$HELPERS/try-syscall" "$V/try"
D4='"$0/try" unshare-user; "$0/try" mount "$0"; "$0/try" ptrace-attach ppid; "$0/try" io_uring_setup'
{
	echo "const { spawn } = require('$V/r/packages/npm');"
	echo 'const ws = process.argv[2];'
	echo 'const profile = { writable: [ws] };'
	echo "const argv = ['/bin/sh', '-c', '{ ' + process.argv[3] + '; } >/dev/null', ws];"
	echo '(async () => {'
	echo '// ---- README snippet ----'
	printf '%s\n' "$djs"
	echo '// ---- end ----'
	echo "console.log('code', code, denials.map((d) => d.syscall).join(' '));"
	echo '})();'
} >"$V/r/denials.js"
{
	echo 'import sys'
	echo "sys.path.insert(0, \"$V/r/packages/python\")"
	echo 'import sandbox_shim'
	echo 'ws = sys.argv[1]'
	echo 'profile = {"writable": [ws]}'
	echo 'argv = ["/bin/sh", "-c", "{ " + sys.argv[2] + "; } >/dev/null", ws]'
	echo '# ---- README snippet ----'
	printf '%s\n' "$dpy"
	echo '# ---- end ----'
	echo 'print("code", code, *[d["syscall"] for d in proc.denials])'
} >"$V/r/denials.py"
chmod -R a+rX "$V"
for who in $USERS; do
	ws=$(mkws "$who" readme-denials)
	cp "$V/try" "$ws/try"
	out=$(as "$who" env SANDBOX="$SB" timeout 60 /usr/bin/node "$V/r/denials.js" "$ws" "$D4" 2>"$T/err")
	check "$who: README Node denial snippet: each line as it came, then all of them" \
		"unshare EPERM|mount EPERM|ptrace EPERM|io_uring_setup ENOSYS|code 0 unshare mount ptrace io_uring_setup" \
		"$(grep -v '^__sandbox: notice: ' "$T/err" | paste -sd'|')|$out"
	out=$(as "$who" env SANDBOX="$SB" timeout 60 /usr/bin/python3 "$V/r/denials.py" "$ws" "$D4" 2>"$T/err")
	check "$who: README Python denial snippet: each line as it came, then all of them" \
		"unshare EPERM|mount EPERM|ptrace EPERM|io_uring_setup ENOSYS|code 0 unshare mount ptrace io_uring_setup" \
		"$(echo "$out" | paste -sd'|')"
done
done_testing

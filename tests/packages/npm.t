#!/usr/bin/env bash
# The npm package (make packages → sandbox-shim-VERSION.tgz) installed
# offline into a fresh project, then used as a Node parent would: spawn()
# drives the real MCP filesystem server over stdio (initialize,
# list_directory, a refused read of a hidden key, stdout only frames);
# refusals come back as SandboxRefused / CommandNotExecutable /
# CommandNotFound carrying the shim's line; check() and probe() return
# parsed JSON; the binary is chosen by process.arch (a fake arm64 one
# proves the choice); the sandbox-shim command runs and passes the status
# on; spawn(..., { denials: true }) gives the denial report (common.sh's
# check_denials and check_recorded).  As root and as uid 65534.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
build_packages

P=$T/npm-project
mkdir -p "$P"
echo '{"name":"consumer","version":"1.0.0","private":true}' >"$P/package.json"
if (cd "$P" && HOME=$T/npm-home npm install --offline --no-audit --no-fund --ignore-scripts "$TGZ" >"$T/npm.out" 2>&1); then
	ok "npm install --offline of the tarball into a fresh project"
else
	not_ok "npm install --offline of the tarball into a fresh project"; diag "$(cat "$T/npm.out")"; done_testing; exit
fi
chmod -R a+rX "$P"
M=$P/node_modules/sandbox-shim
check "the package holds a binary per architecture, each the one built for it" \
	"$(sum "$SB") $(sum "$FAKE_ARM") 755" \
	"$(sum "$M/bin/linux-x64/__sandbox") $(sum "$M/bin/linux-arm64/__sandbox") $(stat -c %a "$M/bin/linux-x64/__sandbox")"
check "package.json: os linux, cpu x64 and arm64, types" '["linux"] ["x64","arm64"] index.d.ts' \
	"$(node -p "const p=require('$M/package.json'); JSON.stringify(p.os)+' '+JSON.stringify(p.cpu)+' '+p.types")"
out=$(cd "$P" && node -e '
const s = require("sandbox-shim");
const real = s.binaryFor("x64"), arm = s.binaryFor("arm64");
Object.defineProperty(process, "arch", { value: "arm64" });
const chosen = s.binaryPath();
let other;
try { s.binaryFor("riscv64"); } catch (e) { other = e.message; }
console.log([real.endsWith("/bin/linux-x64/__sandbox"), arm.endsWith("/bin/linux-arm64/__sandbox"), chosen === arm].join(" "));
console.log(other);')
check "binaryFor(x64|arm64), and process.arch arm64 picks the arm64 binary" "true true true" "$(echo "$out" | sed -n 1p)"
check "an architecture not packaged: an error naming what is held" \
	"sandbox-shim: no __sandbox binary for linux-riscv64 in this package (it holds: linux-arm64, linux-x64); set SANDBOX to the path of one" \
	"$(echo "$out" | sed -n 2p)"

# the MCP client: the package's spawn() around the server
cat >"$T/client.js" <<'JS'
const s = require(process.env.P + '/node_modules/sandbox-shim');
const [profile, server, ws, key] = process.argv.slice(2);
const child = s.spawn(JSON.parse(profile), ['/usr/bin/node', server, ws]);
let buf = '', frames = 0, dirty = null;
const waiting = new Map();
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d) => {
	buf += d;
	let nl;
	while ((nl = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
		let m; try { m = JSON.parse(line); } catch (e) { m = null; }
		if (!m || m.jsonrpc !== '2.0') { dirty = dirty || line.slice(0, 200); continue; }
		frames++;
		if (waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
	}
});
let id = 0;
const rpc = (method, params) => new Promise((resolve) => {
	const n = ++id; waiting.set(n, resolve);
	child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }) + '\n');
});
const text = (r) => (r.result ? (r.result.isError ? 'error ' : 'ok ') + r.result.content.map((c) => c.text).join(' ').replace(/\n/g, ' ') : 'rpc-error');
setTimeout(() => { console.log('timeout'); process.exit(1); }, 30000).unref();
(async () => {
	const init = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
	console.log('init', init.result.serverInfo.name);
	child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
	console.log('list', text(await rpc('tools/call', { name: 'list_directory', arguments: { path: ws } })));
	console.log('hidden', text(await rpc('tools/call', { name: 'read_text_file', arguments: { path: key } })));
	child.stdin.end();
	const { code } = await child.done;
	console.log('frames', frames, dirty === null ? 'clean' : 'dirty ' + dirty);
	console.log('exit', code);
})();
JS

for who in $USERS; do
	mcp_fixture "$who"
	res=$(as "$who" env P="$P" /usr/bin/node "$T/client.js" "$PROFILE" "$FS_SERVER" "$WS" "$HOMEDIR/.ssh/id_ed25519" 2>"$T/err")
	check_mcp "$who" "spawn()" "$res"
	check "$who: spawn(): stderr has the server's own lines and notices only" "" \
		"$(grep -v -e '^__sandbox: notice: ' -e 'Secure MCP Filesystem Server' -e 'MCP Roots' -e 'allowed directories' -e 'Allowed directories' "$T/err")"
	# wide: the server allows /, the kernel alone refuses the key
	res=$(as "$who" env P="$P" /usr/bin/node "$T/client.js" "$PROFILE" "$FS_SERVER" / "$HOMEDIR/.ssh/id_ed25519" 2>/dev/null)
	check_match "$who: spawn(): with / allowed by the server, the hidden key is still refused by the kernel" '^hidden error ' "$res"

	: >"$WS/not-exec"; chmod 644 "$WS/not-exec"; [ "$who" = nobody ] && chown $NOBODY "$WS/not-exec"
	out=$(cd "$P" && as "$who" /usr/bin/node -e '
const s = require("sandbox-shim");
const ws = process.argv[1];
(async () => {
  for (const [profile, argv, cls] of [[{ writable: [ws + "/missing"] }, ["true"], s.SandboxRefused],
      [{ writable: [ws] }, [ws + "/not-exec"], s.CommandNotExecutable],
      [{ writable: [ws], env: { set: { PATH: "/usr/bin" } } }, ["no-such-command-sb"], s.CommandNotFound]]) {
    try { await s.spawn(profile, argv).done; console.log("ran"); }
    catch (e) { console.log(e.name, e instanceof cls && e instanceof s.SandboxError, e.exitCode, e.message); }
  }
  console.log("own", JSON.stringify(await s.spawn({ writable: [ws] }, ["/bin/sh", "-c", "exit 127"]).done));
  const plan = await s.check({ writable: [ws] });
  console.log("check", Array.isArray(plan.refused) && plan.refused.length, typeof plan.landlock);
  const refused = await s.check({ writable: [ws], network: "on", udp_bind: [53], tcp_bind: [1] });
  console.log("check-refused", refused.refused.length > 0 || (await s.probe()).landlock.abi >= 10);
  try { await s.check({ writable: ["relative"] }); } catch (e) { console.log("check-invalid", e.name, e.message); }
  const p = await s.probe();
  console.log("probe", typeof p.landlock.abi, p.version);
})();' "$WS" 2>/dev/null)
	check "$who: 125 → SandboxRefused with the shim's line" \
		"SandboxRefused true 125 __sandbox: profile .writable[0] \"$WS/missing\": No such file or directory" "$(echo "$out" | sed -n 1p)"
	check_match "$who: 126 → CommandNotExecutable with the shim's line" \
		"^CommandNotExecutable true 126 __sandbox: \"$WS/not-exec\": cannot execute: the file mode \\(0644\\)" "$(echo "$out" | sed -n 2p)"
	check "$who: 127 → CommandNotFound with the shim's line" \
		'CommandNotFound true 127 __sandbox: "no-such-command-sb": command not found on PATH (/usr/bin)' "$(echo "$out" | sed -n 3p)"
	check "$who: the command's own 127 resolves" 'own {"code":127,"signal":null}' "$(echo "$out" | sed -n 4p)"
	check "$who: check(): the plan, nothing refused" "check 0 object" "$(echo "$out" | sed -n 5p)"
	check "$who: check(): a plan this kernel would refuse names its parts" "check-refused true" "$(echo "$out" | sed -n 6p)"
	check "$who: check(): an invalid profile rejects with the shim's line" \
		'check-invalid SandboxRefused __sandbox: profile .writable[0] "relative": must be an absolute path' "$(echo "$out" | sed -n 7p)"
	check "$who: probe(): parsed" "probe number $("$SB" --version | sed -n '1s/^__sandbox //p')" "$(echo "$out" | sed -n 8p)"

	# the sandbox-shim command
	out=$(cd "$P" && as "$who" ./node_modules/.bin/sandbox-shim "{\"writable\":[\"$WS\"]}" -- /bin/sh -c 'echo in > "$0/cli"; exit 5' "$WS" 2>&1); rc=$?
	check "$who: sandbox-shim PROFILE -- CMD: runs it and passes its status on" "5 in" "$rc $(cat "$WS/cli" 2>&1)"
	out=$(cd "$P" && as "$who" ./node_modules/.bin/sandbox-shim "{\"writable\":[\"$WS/missing\"]}" -- true 2>&1); rc=$?
	check "$who: sandbox-shim: a refusal is 125 with the shim's line" \
		"125 __sandbox: profile .writable[0] \"$WS/missing\": No such file or directory" "$rc $out"
	check "$who: sandbox-shim path: the packaged binary" "$M/bin/linux-x64/__sandbox" "$(cd "$P" && as "$who" ./node_modules/.bin/sandbox-shim path)"
done
# the denial report through the API: spawn(..., { denials: true }), the
# 'denial' events, child.denials and done's result
cat >"$T/denials.js" <<'JS'
// MODE WS FOUR MANY [RECORDER WITH]: the report through sandbox-shim.
const s = require(process.env.P + '/node_modules/sandbox-shim');
const [mode, ws, four, many, rec, withIt] = process.argv.slice(2);
const P = { writable: [ws] };
const before = JSON.stringify(P);
setTimeout(() => { console.log('timeout'); process.exit(1); }, 120000).unref();
(async () => {
	if (mode === 'record') {
		console.log((await s.spawn(P, ['true'], { sandbox: rec, denials: withIt === '1' }).done).code);
		return;
	}
	const p = s.spawn(P, ['/bin/sh', '-c', four, ws], { denials: true, stdio: ['ignore', 'pipe'] });
	const followed = [];
	p.on('denial', (d) => followed.push(d));
	let seen = '';
	p.stdout.on('data', (d) => { seen += d; });
	const r = await p.done;
	console.log('follow', followed.map((d) => d.syscall).join(' '));
	console.log('list', r.denials.map((d) => d.error).join(' '));
	console.log('seen', seen.split(/\s+/).filter(Boolean).join(' '));
	console.log('same', JSON.stringify(P) === before && r.denials === p.denials && JSON.stringify(followed) === JSON.stringify(r.denials) && r.code === 0);
	const m = await s.spawn(P, ['/usr/bin/python3', '-c', many], { denials: true, stdio: ['ignore', 'ignore'] }).done;
	console.log('many', m.denials.filter((d) => d.syscall === 'io_uring_setup').length,
		m.denials.reduce((n, d) => n + (d.dropped || 0), 0),
		m.denials.filter((d) => d.syscall !== 'io_uring_setup' && d.dropped === undefined).length, 'exit', m.code);
	const n = s.spawn(P, ['/bin/true'], { stdio: ['ignore', 'ignore'] });
	const nr = await n.done;
	console.log('without', n.denials === null && !('denials' in nr) ? 'none' : JSON.stringify(n.denials));
	try { s.spawn({ writable: [ws], denials: { fd: 9 } }, ['/bin/true'], { denials: true }); console.log('twice ran'); }
	catch (e) { console.log('twice', e.message); }
})();
JS
for who in $USERS; do
	denial_fixture "$who"
	res=$(as "$who" env P="$P" /usr/bin/node "$T/denials.js" run "$DWS" "$FOUR" "$MANY" 2>"$T/err")
	check_denials "$who" "node" "$res"
	check "$who: node: nothing but notices on stderr" "" "$(grep -v -e '^__sandbox: notice: ' "$T/err")"
	for with in 1 0; do
		as "$who" env P="$P" /usr/bin/node "$T/denials.js" record "$DWS" "" "" "$REC_SB" "$with" >/dev/null 2>&1
		check_recorded "$who" node "$with"
	done
done
done_testing

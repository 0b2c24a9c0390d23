#!/usr/bin/env bash
# The MCP configuration wrapper: sandbox-shim-mcp (npm) and
# python -m sandbox_shim.mcp (wheel), both installed offline, on one
# configuration of three servers and a remote one:
#   files      node + the MCP filesystem server + a workspace
#   npx-files  npx -y sbtest-mcp-fs WORKSPACE (a package served once by a
#              registry on 127.0.0.1, as a user's first npx run would)
#   fetch      uvx mcp-server-fetch (known to need the network)
#   remote     a url, nothing to wrap
# Both implementations print byte-identical results; the profiles follow
# the rules (workspace writable, network off but for fetch, the npm cache
# writable and npm_config_offline for npx, the server's env keys kept);
# the original is untouched, --dry-run prints a diff and writes nothing,
# --in-place keeps a backup (mode kept), -o onto the original is refused,
# overrides and --network apply.  Then the wrapped servers are started
# exactly as the written configuration says and spoken to over stdio
# (tests/mcp/client.py): they serve their workspace, refuse what lies
# outside it, and npx starts from its cache with no network (an uncached
# package fails at once with ENOTCACHED instead of a minute of retries).
# As root and as uid 65534.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
build_packages
need_mcp_server
PY=/usr/bin/python3
CLIENT=$REPO/tests/mcp/client.py

# both wrappers, installed as users install them
P=$T/npm-project
mkdir -p "$P"
echo '{"name":"consumer","version":"1.0.0","private":true}' >"$P/package.json"
(cd "$P" && HOME=$T/npm-home npm install --offline --no-audit --no-fund --ignore-scripts "$TGZ" >/dev/null 2>&1)
V=$T/venv
$PY -m venv "$V" >/dev/null && "$V/bin/pip" install -q --no-index --disable-pip-version-check "$WHEEL" >/dev/null 2>&1
chmod -R a+rX "$P" "$V"
JSW=$P/node_modules/.bin/sandbox-shim-mcp
check "both wrappers are installed" "yes yes" "$([ -x "$JSW" ] && echo yes) $([ -x "$V/bin/sandbox-shim-mcp" ] && echo yes)"

# the server an npx user would run: a package whose bin starts the MCP
# filesystem server of the tests (installed outside every workspace)
I=$T/srv-install
mkdir -p "$I" "$T/sbtest-pkg"
cp -r "$NM" "$I/node_modules"
FS_SERVER=$I/node_modules/$PKG/dist/index.js
cat >"$T/sbtest-pkg/package.json" <<'JSON'
{"name":"sbtest-mcp-fs","version":"1.0.0","bin":{"sbtest-mcp-fs":"server.js"},"license":"MIT"}
JSON
printf '#!/usr/bin/env node\nimport(process.env.SBTEST_FS_SERVER);\n' >"$T/sbtest-pkg/server.js"
chmod 755 "$T/sbtest-pkg/server.js"
(cd "$T/sbtest-pkg" && npm pack --silent --pack-destination "$T" >/dev/null 2>&1)
chmod -R a+rX "$I" "$T"/sbtest-mcp-fs-1.0.0.tgz
coproc REG { /usr/bin/node "$REPO/tests/packages/registry.js" "$T/sbtest-mcp-fs-1.0.0.tgz"; }
read -r -t 20 REGURL <&"${REG[0]}" || REGURL=
check_match "the test registry listens on 127.0.0.1" '^http://127\.0\.0\.1:[0-9]+/$' "$REGURL"

for who in $USERS; do
	H=$(mkws "$who" home)
	WS1=$(mkws "$who" ws1)
	WS2=$(mkws "$who" ws2)
	mkdir -p "$H/.ssh"; echo "key-$who" >"$H/.ssh/id_ed25519"
	echo "one" >"$WS1/a.txt"; echo "two" >"$WS2/b.txt"
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$H"
	[ "$who" = nobody ] && chown $NOBODY:$NOBODY "$WS1/a.txt" "$WS2/b.txt"
	# a user's first npx run, with the network: fills ~/.npm
	as "$who" env -i PATH=/usr/bin:/bin HOME="$H" npm_config_registry="$REGURL" SBTEST_FS_SERVER="$FS_SERVER" \
		timeout 60 npx -y sbtest-mcp-fs "$WS2" </dev/null >/dev/null 2>&1
	check "$who: the npx server ran once outside the sandbox (npm cache filled)" "yes" "$([ -d "$H/.npm/_npx" ] && echo yes)"

	C=$H/mcp.json
	cat >"$C" <<JSON
{
  "mcpServers": {
    "files": {
      "command": "/usr/bin/node",
      "args": ["$FS_SERVER", "$WS1"],
      "env": {"FILES_TOKEN": "t-1"}
    },
    "npx-files": {
      "command": "npx",
      "args": ["-y", "sbtest-mcp-fs", "$WS2"],
      "env": {"SBTEST_FS_SERVER": "$FS_SERVER", "npm_config_registry": "$REGURL"}
    },
    "fetch": {
      "command": "uvx",
      "args": ["mcp-server-fetch"]
    },
    "remote": {"url": "https://mcp.example.invalid/sse"}
  },
  "otherSetting": true
}
JSON
	echo '{"npx-files": {"readable": ["'"$I"'"]}, "files": {"hidden": ["'"$WS1"'/secret"]}}' >"$H/over.json"
	mkdir -p "$WS1/secret"; echo "s3" >"$WS1/secret/s.txt"
	chmod 600 "$C"
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$C" "$H/over.json" "$WS1/secret"
	before=$(sum "$C")
	wenv=(env -i PATH=/usr/bin:/bin HOME="$H")
	js=$(as "$who" "${wenv[@]}" "$JSW" "$C" --sandbox "$SB" --overrides "$H/over.json" 2>"$T/js.err"); rc1=$?
	py=$(as "$who" "${wenv[@]}" "$V/bin/python" -m sandbox_shim.mcp "$C" --sandbox "$SB" --overrides "$H/over.json" 2>"$T/py.err"); rc2=$?
	check "$who: both wrappers succeed" "0 0" "$rc1 $rc2"
	if [ "$js" = "$py" ] && [ -n "$js" ]; then ok "$who: npm and Python wrappers print byte-identical configurations"
	else not_ok "$who: npm and Python wrappers print byte-identical configurations"; diag "$(diff <(echo "$js") <(echo "$py") | head -20)"; fi
	check "$who: ... and the same notes on stderr" "$(cat "$T/js.err")" "$(cat "$T/py.err")"
	check "$who: the original is untouched" "$before" "$(sum "$C")"
	echo "$js" >"$T/out-$who.json"
	summary=$($PY - "$T/out-$who.json" "$SB" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
s = c["mcpServers"]
print("other", c["otherSetting"], "remote", json.dumps(s["remote"]))
for name in ("files", "npx-files", "fetch"):
    e = s[name]
    p = json.loads(e["args"][0])
    print(name, e["command"] == sys.argv[2], e["args"][1], " ".join(e["args"][2:4]), "|", "net", p["network"],
          "| w", ",".join(p["writable"]), "| set", json.dumps(p["env"].get("set", {}), sort_keys=True),
          "| keep", ",".join(k for k in p["env"]["keep"] if k not in ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_*", "TERM", "TZ")),
          "| env", json.dumps(e.get("env", {}), sort_keys=True)[:20], "| hidden", ",".join(p.get("hidden", [])))
PY
)
	check "$who: other settings and the remote server are kept as they were" 'other True remote {"url": "https://mcp.example.invalid/sse"}' "$(echo "$summary" | sed -n 1p)"
	check "$who: files: under __sandbox, workspace writable, network off, its env key kept, overrides' hidden added" \
		"files True -- /usr/bin/node $FS_SERVER | net off | w $WS1 | set {} | keep FILES_TOKEN | env {\"FILES_TOKEN\": \"t-1 | hidden $WS1/secret" \
		"$(echo "$summary" | sed -n 2p)"
	check "$who: npx-files: npm cache writable, npm_config_offline and the cache set, network off" \
		"npx-files True -- npx -y | net off | w $WS2,$H/.npm | set {\"npm_config_cache\": \"$H/.npm\", \"npm_config_offline\": \"true\", \"npm_config_update_notifier\": \"false\"} | keep SBTEST_FS_SERVER,npm_config_registry | env {\"SBTEST_FS_SERVER\": | hidden " \
		"$(echo "$summary" | sed -n 3p)"
	check "$who: fetch: known to need the network" "fetch True -- uvx mcp-server-fetch | net on | w  | set {} | keep  | env {} | hidden " "$(echo "$summary" | sed -n 4p)"
	check_match "$who: a note per server (fetch's command not found here, remote left as it is)" \
		'fetch: network on; writable none; command "uvx" not found on PATH here; network on: mcp-server-fetch needs it' "$(cat "$T/js.err")"
	check_match "$who: ... remote" 'remote: no command \(a remote server\): left as it is' "$(cat "$T/js.err")"

	# each generated profile is one the shim accepts here
	for name in files npx-files; do
		prof=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["mcpServers"][sys.argv[2]]["args"][0])' "$T/out-$who.json" "$name")
		check "$who: $name: __sandbox --check accepts the profile (exit 0)" "0" "$(as "$who" "$SB" --check "$prof" >/dev/null 2>&1; echo $?)"
	done

	# run the wrapped servers as the configuration says: command, args, env over the host's
	run_server() { # NAME STEPS
		$PY - "$T/out-$who.json" "$1" <<'PY' >"$T/argv-$who"
import json, sys
e = json.load(open(sys.argv[1]))["mcpServers"][sys.argv[2]]
print("\0".join(["%s=%s" % kv for kv in e.get("env", {}).items()] + ["--", e["command"], *e["args"]]), end="")
PY
		local -a a; readarray -d '' a <"$T/argv-$who"
		local envs=() i=0
		while [ "${a[$i]}" != "--" ]; do envs+=("${a[$i]}"); i=$((i + 1)); done
		as "$who" env -i PATH=/usr/bin:/bin HOME="$H" "${envs[@]}" timeout 90 /usr/bin/python3 "$CLIENT" "$2" -- "${a[@]:$((i + 1))}"
	}
	steps='[["list_directory", {"path": "'"$WS1"'"}], ["write_file", {"path": "'"$WS1"'/new.txt", "content": "w"}],
		["read_text_file", {"path": "'"$WS1"'/secret/s.txt"}]]'
	res=$(run_server files "$steps" 2>"$T/err")
	check_match "$who: files (wrapped): lists its workspace" '^ok list_directory .*\[FILE\] a\.txt' "$res"
	check_match "$who: files (wrapped): writes there" '^ok write_file ' "$res"
	check_match "$who: files (wrapped): the overrides' hidden directory is refused" '^error read_text_file ' "$res"
	check_match "$who: files (wrapped): stdout only frames, exit 0" 'frames [0-9]+ clean.exit 0' "$(echo "$res" | tail -n 2 | paste -sd.)"
	steps='[["list_directory", {"path": "'"$WS2"'"}], ["read_text_file", {"path": "'"$H"'/.ssh/id_ed25519"}]]'
	s0=$SECONDS
	res=$(run_server npx-files "$steps" 2>"$T/err")
	check_match "$who: npx-files (wrapped, network off): starts from the npm cache and lists its workspace" '^ok list_directory .*\[FILE\] b\.txt' "$res"
	check_match "$who: npx-files (wrapped): the home's key is refused" '^error read_text_file ' "$res"
	check_match "$who: npx-files (wrapped): stdout only frames, exit 0" 'frames [0-9]+ clean.exit 0' "$(echo "$res" | tail -n 2 | paste -sd.)"
	[ -n "$(grep -v -e '^__sandbox: notice: ' -e 'Secure MCP' -e 'MCP Roots' -e 'llowed directories' "$T/err")" ] && diag "$(cat "$T/err")"
	# an uncached package under the same profile: ENOTCACHED at once, not a minute of retries
	prof=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["mcpServers"]["npx-files"]["args"][0])' "$T/out-$who.json")
	s0=$SECONDS
	out=$(as "$who" env -i PATH=/usr/bin:/bin HOME="$H" npm_config_registry="$REGURL" timeout 60 "$SB" "$prof" -- npx -y sbtest-not-cached </dev/null 2>&1); rc=$?
	check_match "$who: an uncached npx package fails with ENOTCACHED" "ENOTCACHED" "$out"
	check "$who: ... within 20 s (no retries against a network it cannot reach)" "yes" "$([ $((SECONDS - s0)) -lt 20 ] && [ "$rc" != 124 ] && echo yes)"

	# --dry-run: a unified diff, nothing written
	d=$(as "$who" "${wenv[@]}" "$JSW" "$C" --sandbox "$SB" --dry-run 2>/dev/null)
	dp=$(as "$who" "${wenv[@]}" "$V/bin/python" -m sandbox_shim.mcp "$C" --sandbox "$SB" --dry-run 2>/dev/null)
	check_match "$who: --dry-run prints a unified diff" "^--- $C.+\+\+\+ \(wrapped\).+@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@" "$(echo "$d" | head -n 3 | paste -sd' ')"
	check "$who: --dry-run: the Python diff is the same" "$d" "$dp"
	check "$who: --dry-run: the diff applies to the original and gives the output" "$(cd "$H" && as "$who" "${wenv[@]}" "$JSW" "$C" --sandbox "$SB" 2>/dev/null | sum /dev/stdin)" \
		"$(cp "$C" "$T/patched" && echo "$d" | patch -s "$T/patched" -o - 2>&1 | sum /dev/stdin)"
	check "$who: --dry-run wrote nothing" "$before no" "$(sum "$C") $(ls "$H" | grep -q bak && echo yes || echo no)"
	# -o onto the original is refused; -o elsewhere writes there with the original's mode
	as "$who" "${wenv[@]}" "$JSW" "$C" --sandbox "$SB" -o "$C" >/dev/null 2>&1; rc=$?
	check "$who: -o CONFIG itself is refused (2), nothing changed" "2 $before" "$rc $(sum "$C")"
	as "$who" "${wenv[@]}" "$V/bin/python" -m sandbox_shim.mcp "$C" --sandbox "$SB" --overrides "$H/over.json" -o "$H/out.json" 2>/dev/null
	check "$who: -o FILE: the result, mode 600 like the original" "$(sum "$T/out-$who.json") 600" "$(sum "$H/out.json") $(stat -c %a "$H/out.json")"
	# --in-place: backup with the original's bytes and mode; again: a second backup, nothing re-wrapped
	as "$who" "${wenv[@]}" "$JSW" "$C" --sandbox "$SB" --overrides "$H/over.json" --in-place 2>/dev/null
	check "$who: --in-place: CONFIG.bak is the original (mode 600), CONFIG the result (mode 600)" \
		"$before 600 $(sum "$T/out-$who.json") 600" "$(sum "$C.bak") $(stat -c %a "$C.bak") $(sum "$C") $(stat -c %a "$C")"
	as "$who" "${wenv[@]}" "$V/bin/python" -m sandbox_shim.mcp "$C" --sandbox "$SB" --in-place 2>"$T/err"
	check "$who: --in-place again: servers already wrapped are left as they are, the first backup kept" \
		"$(sum "$T/out-$who.json") $before yes" "$(sum "$C") $(sum "$C.bak") $([ -f "$C.bak.1" ] && echo yes)"
	check_match "$who: ... and says so" 'files: already runs under __sandbox' "$(cat "$T/err")"
	# --network NAME=MODE
	n=$(as "$who" "${wenv[@]}" "$JSW" "$C.bak" --sandbox "$SB" --network files=loopback 2>/dev/null | $PY -c 'import json,sys; print(json.loads(json.load(sys.stdin)["mcpServers"]["files"]["args"][0])["network"])')
	check "$who: --network files=loopback" "loopback" "$n"
done
exec {REG[1]}>&-
wait
done_testing

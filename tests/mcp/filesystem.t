#!/usr/bin/env bash
# A real MCP server confined end to end: @modelcontextprotocol/server-filesystem
# (pinned in tests/package.json and package-lock.json) under __sandbox with
# a writable workspace, spoken to over stdio by tests/mcp/client.py
# (initialize, tools/list, tools/call read_text_file / write_file / ...).
#  - in the workspace, reading and writing work;
#  - started with / as its allowed directory (it then permits everything
#    itself), reading a credential outside the readable trees, one hidden
#    inside them, and writing outside the workspace still fail: the kernel
#    refuses them, the server answers with an error and keeps serving;
#  - its stdout carries only JSON-RPC frames: the shim printed nothing there.
# A control run without the sandbox shows the same calls succeed.
# As root and as uid 65534.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
need_mcp_server
# world-readable copy: the checkout may be private to root
cp -r "$NM" "$T/node_modules"
chmod -R a+rX "$T/node_modules"
SERVER=$T/node_modules/$PKG/dist/index.js
CLIENT=$REPO/tests/mcp/client.py
check "the server is the pinned version" \
	"$(sed -n 's/.*"@modelcontextprotocol\/server-filesystem": "\(.*\)".*/\1/p' "$REPO/tests/package.json")" \
	"$(/usr/bin/node -p "require('$T/node_modules/$PKG/package.json').version")"

for who in $USERS; do
	ws=$(mkws "$who" mcp-ws)
	out_dir=$(mkws "$who" mcp-outside)    # WHO may write here without the sandbox
	home=$(mkws "$who" mcp-home)          # a readable tree holding a hidden one
	mkdir -p "$home/.ssh" "$T/$who-creds"
	echo "ssh-private-key-$who" >"$home/.ssh/id_ed25519"
	echo "cloud-token-$who" >"$T/$who-creds/token"
	echo "notes of $who" >"$ws/notes.txt"
	echo "untouched" >"$out_dir/existing.txt"
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$home" "$T/$who-creds" "$ws" "$out_dir"
	chmod 755 "$T/$who-creds"

	PROFILE="{\"readable\":[\"/usr\",\"/etc\",\"/lib\",\"/lib64\",\"/bin\",\"$T/node_modules\",\"$home\"],
\"writable\":[\"$ws\"],\"hidden\":[\"$home/.ssh\"],\"network\":\"off\",
\"env\":{\"clear\":true,\"keep\":[\"PATH\",\"LANG\"]}}"

	# --- the workspace as the allowed directory ----------------------
	steps='[["write_file", {"path": "'"$ws"'/hello.txt", "content": "written through MCP"}],
		["read_text_file", {"path": "'"$ws"'/hello.txt"}],
		["read_text_file", {"path": "'"$ws"'/notes.txt"}],
		["list_directory", {"path": "'"$ws"'"}]]'
	res=$(as "$who" /usr/bin/python3 "$CLIENT" "$steps" -- "$SB" "$PROFILE" -- /usr/bin/node "$SERVER" "$ws" 2>"$T/err")
	check_match "$who: tools/list names read_text_file and write_file" '^tools .*read_text_file.*write_file' "$res"
	check_match "$who: write_file in the workspace" '^ok write_file Successfully wrote' "$res"
	check_match "$who: read_text_file reads it back" '^ok read_text_file written through MCP$' "$res"
	check_match "$who: read_text_file of an existing file" '^ok read_text_file notes of '"$who"'$' "$res"
	check_match "$who: list_directory" '^ok list_directory .*\[FILE\] hello.txt' "$res"
	check "$who: on disk" "written through MCP" "$(cat "$ws/hello.txt" 2>&1)"
	check_match "$who: stdout carried only protocol frames" '^frames [0-9]+ clean$' "$res"
	check_match "$who: the server exits 0 when stdin closes" '^exit 0$' "$res"
	check "$who: stderr: the server's own lines and shim notices only" "" \
		"$(grep -v -e '^__sandbox: notice: ' -e 'Secure MCP Filesystem Server' -e 'MCP Roots' -e 'allowed directories' "$T/err")"

	# --- / as the allowed directory: only the kernel stands in the way --
	steps='[["read_text_file", {"path": "'"$T/$who-creds/token"'"}],
		["read_text_file", {"path": "'"$home/.ssh/id_ed25519"'"}],
		["list_directory", {"path": "'"$home/.ssh"'"}],
		["write_file", {"path": "'"$out_dir"'/existing.txt", "content": "overwritten"}],
		["write_file", {"path": "'"$home"'/planted.txt", "content": "out"}],
		["read_text_file", {"path": "'"$ws"'/notes.txt"}],
		["write_file", {"path": "'"$ws"'/hello.txt", "content": "still serving"}]]'
	res=$(as "$who" /usr/bin/python3 "$CLIENT" "$steps" -- "$SB" "$PROFILE" -- /usr/bin/node "$SERVER" / 2>"$T/err")
	readarray -t lines < <(printf '%s\n' "$res" | grep -E '^(ok|error|rpc-error|no-answer) ')
	check_match "$who: wide: a credential outside the readable trees: error (EACCES)" '^error read_text_file .*(EACCES|permission denied)' "${lines[0]:-}"
	check_match "$who: wide: the hidden private key: error" '^error read_text_file ' "${lines[1]:-}"
	if printf '%s' "${lines[2]:-}" | grep -q id_ed25519; then not_ok "$who: wide: the hidden directory lists nothing"; diag "${lines[2]}"; else ok "$who: wide: the hidden directory lists nothing"; fi
	# an existing file: the server's own checks pass, the open is refused
	check_match "$who: wide: overwrite a file outside the workspace: error (EROFS: read-only mounts; EACCES without)" '^error write_file .*(EROFS|EACCES|permission denied)' "${lines[3]:-}"
	check_match "$who: wide: write into a readable tree: error" '^error write_file ' "${lines[4]:-}"
	check_match "$who: wide: the server still serves the workspace (read)" "^ok read_text_file notes of $who\$" "${lines[5]:-}"
	check_match "$who: wide: ... and write" '^ok write_file ' "${lines[6]:-}"
	check "$who: wide: nothing escaped to disk" "untouched no still serving" \
		"$(cat "$out_dir/existing.txt") $([ -e "$home/planted.txt" ] && echo yes || echo no) $(cat "$ws/hello.txt")"
	check_match "$who: wide: stdout carried only protocol frames" '^frames [0-9]+ clean$' "$res"
	check_match "$who: wide: the server did not crash (exit 0 at the end)" '^exit 0$' "$res"

	# --- control: the same wide server without the sandbox reads them ---
	steps='[["read_text_file", {"path": "'"$T/$who-creds/token"'"}],
		["read_text_file", {"path": "'"$home/.ssh/id_ed25519"'"}]]'
	res=$(as "$who" /usr/bin/python3 "$CLIENT" "$steps" -- /usr/bin/node "$SERVER" / 2>/dev/null)
	check "$who: control without the sandbox: both secrets are read" \
		"ok read_text_file cloud-token-$who|ok read_text_file ssh-private-key-$who" \
		"$(printf '%s\n' "$res" | grep -E '^(ok|error) ' | paste -sd'|')"
done
done_testing

#!/usr/bin/env bash
# examples/*.json run real commands: a build reading a package cache and
# writing only its workspace and tmp, a read-only inspection, an MCP-style
# server's profile (the real MCP server runs in tests/mcp).  Their /srv
# paths are moved under $T; the container entrypoint runs in its own
# image in tests/user/user.t.  As root and as uid 65534.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# prof NAME WHO — the example with /srv/... under $T/WHO/srv/...
prof() { sed "s#\"/srv/#\"$T/$2/srv/#g" "$REPO/examples/$1.json"; }
sbrun() { local who=$1 p=$2; shift 2; out=$(as "$who" "$SB" "$p" -- "$@" </dev/null 2>"$T/err"); rc=$?; err=$(grep -v '^__sandbox: notice: ' "$T/err"); }

for who in $USERS; do
	S=$T/$who/srv
	mkdir -p "$S/workspace" "$S/cache/include"
	echo '#define GREETING "built with the cache"' >"$S/cache/include/greeting.h"
	printf '#include <stdio.h>\n#include "greeting.h"\nint main(void) { puts(GREETING); return 0; }\n' >"$S/workspace/hello.c"
	echo "SECRET=hunter2" >"$S/workspace/.env"
	chmod 755 "$T/$who" "$S"
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$S/workspace"

	# build-with-cache: cc reads the cache, writes the workspace, uses tmp
	p=$(prof build-with-cache "$who")
	sbrun "$who" "$p" sh -c 'cd "$1" && cc -I "$2/include" -o hello hello.c && ./hello && echo "tmp=$TMPDIR"' sh "$S/workspace" "$S/cache"
	check "$who: build-with-cache: cc builds with the cached header, the program runs" \
		"0 built with the cache tmp=$S/workspace/.build-tmp" "$rc $(echo $out)"
	[ -n "$err" ] && diag "$err"
	check "$who: ... tmp made private (0700)" 700 "$(stat -c %a "$S/workspace/.build-tmp" 2>&1)"
	sbrun "$who" "$p" sh -c 'echo poison > "$1/include/greeting.h"' sh "$S/cache"
	check "$who: build-with-cache: the cache is read-only" "fail built with the cache" \
		"$([ "$rc" != 0 ] && echo fail) $(sed -n 's/.*"\(.*\)"/\1/p' "$S/cache/include/greeting.h")"
	sbrun "$who" "$p" /usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 9), 1)'
	check_match "$who: build-with-cache: no network" "(Address family not supported|Permission denied)" "$err"

	# read-only-inspection: reads and greps, writes nothing, .env hidden
	p=$(prof read-only-inspection "$who")
	sbrun "$who" "$p" sh -c 'cd "$1" && grep -l GREETING hello.c && wc -l < hello.c' sh "$S/workspace"
	check "$who: read-only-inspection: grep and wc read the workspace" "0 hello.c 3" "$rc $(echo $out)"
	sbrun "$who" "$p" sh -c 'echo x > "$1/new"' sh "$S/workspace"
	check "$who: read-only-inspection: nothing can be written" "fail no" "$([ "$rc" != 0 ] && echo fail) $([ -e "$S/workspace/new" ] && echo yes || echo no)"
	sbrun "$who" "$p" cat "$S/workspace/.env"
	check "$who: read-only-inspection: the hidden .env is unreadable" "fail " "$([ "$rc" != 0 ] && echo fail) $(printf '%s' "$out" | grep hunter2)"
	sbrun "$who" "$p" /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_UNIX)'
	check_match "$who: read-only-inspection: no unix sockets either" "PermissionError|Address family not supported" "$err"
	sbrun "$who" "$p" /usr/bin/python3 -c 'import os; print(os.getsid(0) == os.getpid())'
	check "$who: read-only-inspection: a new session" "0 True" "$rc $out"

	# mcp-server: node works in the workspace; /etc/ssh hidden
	p=$(prof mcp-server "$who")
	sbrun "$who" "$p" /usr/bin/node -e 'const fs = require("fs"); const ws = process.argv[1];
fs.writeFileSync(ws + "/out.txt", fs.readFileSync(ws + "/hello.c", "utf8").length + "\n");
let ssh; try { fs.readdirSync("/etc/ssh").length; ssh = fs.readdirSync("/etc/ssh").length ? "listed" : "empty"; } catch (e) { ssh = e.code; }
console.log(fs.readFileSync(ws + "/out.txt", "utf8").trim(), ssh, process.env.HOME === undefined)' "$S/workspace"
	check "$who: mcp-server: node reads and writes the workspace; /etc/ssh hidden; env cleared" \
		"0 $(wc -c <"$S/workspace/hello.c") $([ -d /etc/ssh ] && echo empty || echo ENOENT) true" "$rc $out"
	[ -n "$err" ] && diag "$err"
done
done_testing

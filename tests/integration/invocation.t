#!/usr/bin/env bash
# How the profile arrives (inline JSON, @PATH, fd:N, the optional leading
# "__sandbox" word) and how COMMAND is found (PATH of the final environment,
# execvp's default PATH when the environment has none).
. "$(dirname "$0")/common.sh"
# expect: common.sh's, but with the whole stderr (these runs bypass sbrun)
expect() { if [ "$rc" = "$2" ] && [ "$out" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "expected rc=$2 out: $3" "got rc=$rc out: $out" "stderr: $(cat "$T/err")"; fi; }
SHOW='echo "$MARK"; if (: <&3) 2>/dev/null; then echo fd3-open; else echo fd3-closed; fi'

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "inv-$style")
		t="$who/$style"
		mk() { prof "$style" "$ws" "\"env\":{\"set\":{\"MARK\":\"$1\"}}"; }

		out=$(as "$who" "$SB" "$(printf ' \n\t%s' "$(mk inline)")" -- sh -c "$SHOW" </dev/null 2>"$T/err"); rc=$?
		expect "$t: inline JSON (leading blanks)" 0 "inline
fd3-closed"

		f=$T/prof-$who-$style.json
		mk atpath >"$f"
		chmod 644 "$f"
		out=$(as "$who" "$SB" "@$f" -- sh -c "$SHOW" </dev/null 2>"$T/err"); rc=$?
		expect "$t: @PATH" 0 "atpath
fd3-closed"

		mk fdfile >"$f"
		out=$(as "$who" "$SB" fd:3 -- sh -c "$SHOW" </dev/null 3<"$f" 2>"$T/err"); rc=$?
		expect "$t: fd:3 from a file, closed before the command runs" 0 "fdfile
fd3-closed"

		out=$(as "$who" "$SB" fd:3 -- sh -c "$SHOW" </dev/null 3< <(mk fdpipe) 2>"$T/err"); rc=$?
		expect "$t: fd:3 from a pipe" 0 "fdpipe
fd3-closed"

		# larger than one argv string may be (128 KiB) and than a pipe buffer
		big=$(prof "$style" "$ws" "\"env\":{\"unset\":[$(seq -f '"U%06g"' 1 30000 | paste -sd,)],\"set\":{\"MARK\":\"big\"}}")
		out=$(as "$who" "$SB" fd:3 -- sh -c "$SHOW" </dev/null 3< <(printf '%s' "$big") 2>"$T/err"); rc=$?
		expect "$t: fd:3 with a ${#big}-byte profile from a pipe" 0 "big
fd3-closed"

		out=$(as "$who" "$SB" __sandbox "$(mk word)" -- sh -c "$SHOW" </dev/null 2>"$T/err"); rc=$?
		expect "$t: leading __sandbox word, inline" 0 "word
fd3-closed"
		mk wordat >"$f"
		out=$(as "$who" "$SB" __sandbox "@$f" -- sh -c "$SHOW" </dev/null 2>"$T/err"); rc=$?
		expect "$t: leading __sandbox word, @PATH" 0 "wordat
fd3-closed"
		mk wordfd >"$f"
		out=$(as "$who" "$SB" __sandbox fd:4 -- sh -c "$SHOW" </dev/null 4<"$f" 2>"$T/err"); rc=$?
		expect "$t: leading __sandbox word, fd:4" 0 "wordfd
fd3-closed"

		# PATH lookup on the final environment
		mkdir -p "$ws/bin"
		printf '#!/bin/sh\necho inner "$@"\n' >"$ws/bin/mytool"
		chmod 755 "$ws/bin/mytool"
		[ "$who" = nobody ] && chown -R $NOBODY "$ws/bin"
		outer=$T/outer-$who-$style
		mkdir -p "$outer"
		printf '#!/bin/sh\necho outer "$@"\n' >"$outer/mytool"
		chmod 755 "$outer/mytool"

		pset=$(prof "$style" "$ws" "\"env\":{\"set\":{\"PATH\":\"$ws/bin:/usr/bin:/bin\"}}")
		out=$(as "$who" env PATH="$outer:$PATH" "$SB" "$pset" -- mytool a 2>"$T/err" </dev/null); rc=$?
		expect "$t: env.set PATH: the command is found on the final PATH" 0 "inner a"
		if [ "$style" = default ]; then
			# control: without env.set the shim's own PATH finds the outer one
			out=$(as "$who" env PATH="$outer:$PATH" "$SB" "$(prof "$style" "$ws")" -- mytool b 2>"$T/err" </dev/null); rc=$?
			expect "$t: without env.set PATH the inherited PATH is used" 0 "outer b"
		fi
		ponly=$(prof "$style" "$ws" "\"env\":{\"set\":{\"PATH\":\"$ws/bin\"}}")
		out=$(as "$who" "$SB" "$ponly" -- ls 2>"$T/err" </dev/null); rc=$?
		expect "$t: a command only on the shim's PATH is not found (127)" 127 ""
		check_match "$t: ... and the message names the final PATH" "^__sandbox: .*ls.*$ws/bin" "$(grep -v notice "$T/err")"
		pempty=$(prof "$style" "$ws" "\"cwd\":\"$ws/bin\",\"env\":{\"set\":{\"PATH\":\"/nonexistent::/usr/bin\"}}")
		out=$(as "$who" "$SB" "$pempty" -- mytool c 2>"$T/err" </dev/null); rc=$?
		expect "$t: an empty PATH entry means the working directory" 0 "inner c"

		# env.clear without PATH: execvp's default PATH
		pclear=$(prof "$style" "$ws" '"env":{"clear":true}')
		out=$(as "$who" env FOO=1 "$SB" "$pclear" -- env 2>"$T/err" </dev/null); rc=$?
		expect "$t: env.clear, no PATH: 'env' found on the default PATH, empty environment" 0 ""
		pclear2=$(prof "$style" "$ws" '"env":{"clear":true,"set":{"PATH":"/nonexistent"}}')
		out=$(as "$who" "$SB" "$pclear2" -- env 2>"$T/err" </dev/null); rc=$?
		expect "$t: control: env.clear with PATH=/nonexistent: not found" 127 ""
	done
done
done_testing

#!/usr/bin/env bash
# mecha (seeds/002, mecha_core sandbox.rs, the Landlock backend): its
# SandboxConfig as the shim's JSON (tests/seeds/mecha_profile.py), run as
# mecha runs `shell` (bash -lc COMMAND in the workspace) and an MCP server
# (an argv, no shell), checking what its comments require: the preflight
# (`echo mecha-sandbox-ok` through the real sandbox, then a canary
# planted in the real home that a confined `cat` must fail to read), the
# system read-only, the workspace writable, TCP denied with network off,
# the environment an allow-list (HOME the workspace; a PATH the profile
# sets or keeps wins over the fixed one), never unconfined (a host that
# cannot enforce → 125, the command never runs).  Root and uid 65534,
# with mounts and where namespaces are refused; a control outside the
# sandbox for every refusal.
. "$(dirname "$0")/common.sh"
GEN=$REPO/tests/seeds/mecha_profile.py

for who in $USERS; do
	for mode in $MODES; do
		t="$who/$mode"
		ns_ok "$who" "$mode" || continue
		W=$T/$who-$mode-ws
		H=$T/$who-$mode-home
		TMPD=$T/$who-$mode-t/tmp
		mkdir -p "$W/bin" "$H" "$T/$who-$mode-t"
		printf '#!/bin/sh\necho own-tool\n' >"$W/bin/tool"
		chmod 755 "$W/bin/tool"
		own "$who" "$W" "$H" "$T/$who-$mode-t"
		json=$(as "$who" $PY "$GEN" "$W" "$TMPD" readable="$HELPERS")
		no_landlock "$who" "$mode" "$json" && continue

		# preflight, part 1: a real command through the real backend
		run "$who" "$mode" "$json" bash -lc 'echo mecha-sandbox-ok'
		check "$t: preflight: echo mecha-sandbox-ok runs confined" "0 mecha-sandbox-ok" "$rc $out"
		check "$t: ... and the shim says nothing on stderr" "" "$(printf '%s' "$err" | grep -v '^__sandbox: notice: left out: ' | grep -v 'network "loopback"')"

		# preflight, part 2: a canary in the real home is unreadable
		canary=$H/.mecha-landlock-probe-$$-$RANDOM
		echo canary >"$canary"
		own "$who" "$canary"
		check "$t: control: the canary is readable outside" canary "$(outside cat "$canary")"
		run "$who" "$mode" "$json" bash -lc "cat '$canary'"
		check "$t: preflight: a confined cat of the canary fails" "refused " "$(fails "$rc") $out"
		rm -f "$canary"

		# the system read-only, readable
		run "$who" "$mode" "$json" bash -lc 'head -c 4 /etc/passwd'
		check "$t: the system is readable (/etc/passwd)" "0 root" "$rc $out"
		run "$who" "$mode" "$json" bash -lc 'echo x > /etc/mecha-seed-probe'
		check "$t: the system is not writable (/etc)" refused "$(fails "$rc")"
		check "$t: ... nothing was written" absent "$(present /etc/mecha-seed-probe)"
		check "$t: control: the home is not the system (outside it is readable)" ok "$(outside ls "$H" >/dev/null && echo ok)"
		run "$who" "$mode" "$json" ls "$H"
		check "$t: the real home is not listable inside" refused "$(fails "$rc")"

		# the workspace writable, and mecha's cwd
		run "$who" "$mode" "$json" bash -lc 'echo a > f && mv f g && : > g && mkdir d && rm -r d && pwd'
		check "$t: the workspace is writable (create, rename, truncate, mkdir, rm) and the cwd" "0 $W" "$rc $out"
		run "$who" "$mode" "$json" bash -lc 'echo t > "$TMPDIR/x" && cat "$TMPDIR/x"'
		check "$t: a temporary directory is writable" "0 t" "$rc $out"

		# network off: TCP denied (and UDP, which mecha cannot close)
		tcp_start "$who"
		check "$t: control: a host TCP server is reachable outside" ok "$(outside "$TRY" tcp-connect "$PORT")"
		run "$who" "$mode" "$json" "$TRY" tcp-connect "$PORT"
		check "$t: network off: TCP connect refused" refused "$(errno_of "$out")"
		check "$t: control: UDP reaches the host server outside" ok "$(outside "$TRY" udp-send "$UPORT")"
		run "$who" "$mode" "$json" "$TRY" udp-send "$UPORT"
		check "$t: network off: UDP refused too (socket family)" EAFNOSUPPORT "$out"
		json_net=$(as "$who" $PY "$GEN" "$W" "$TMPD" network=true readable="$HELPERS")
		run "$who" "$mode" "$json_net" "$TRY" tcp-connect "$PORT"
		check "$t: network on (with_network(true), an MCP server's own API): TCP connects" ok "$out"
		tcp_stop

		# the environment: an allow-list
		run "$who" "$mode" "$json" env
		envs=$(printf '%s\n' "$out" | sed 's/=.*//' | sort | tr '\n' ' ')
		export MECHA_TEST_TOKEN=sk-should-not-cross MECHA_TEST_WANTED=fine
		json_env=$(as "$who" $PY "$GEN" "$W" "$TMPD" env=MECHA_TEST_WANTED)
		run "$who" "$mode" "$json_env" env
		check "$t: control: the token is in the parent's environment" sk-should-not-cross "$(outside printenv MECHA_TEST_TOKEN)"
		check "$t: env: an unnamed variable does not cross" "" "$(printf '%s\n' "$out" | grep '^MECHA_TEST_TOKEN=')"
		check "$t: env: a named one does" "MECHA_TEST_WANTED=fine" "$(printf '%s\n' "$out" | grep '^MECHA_TEST_WANTED=')"
		check "$t: env: HOME is the workspace" "HOME=$W" "$(printf '%s\n' "$out" | grep '^HOME=')"
		check "$t: env: PATH is mecha's fixed one" "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$(printf '%s\n' "$out" | grep '^PATH=')"
		check "$t: env: nothing else but TMPDIR, TMP, TEMP (the temporary directory)" "HOME PATH TEMP TMP TMPDIR " "$envs"
		unset MECHA_TEST_TOKEN MECHA_TEST_WANTED
		# a PATH the operator passes through wins over the fixed one,
		# and the command is looked up on it
		json_path=$(as "$who" $PY "$GEN" "$W" "$TMPD" env=PATH)
		out=$(PATH="$W/bin:/usr/bin:/bin" as "$who" $(nspre "$mode") "$SB" "$json_path" -- tool 2>"$T/err")
		check "$t: env: a kept PATH wins, and the command is found on it" own-tool "$out"
		out=$(PATH="$W/bin:/usr/bin:/bin" as "$who" $(nspre "$mode") "$SB" "$json_path" -- printenv PATH 2>"$T/err")
		check "$t: ... and the command sees it" "$W/bin:/usr/bin:/bin" "$out"
		json_set=$(as "$who" $PY "$GEN" "$W" "$TMPD" | $PY -c "import json,sys; d=json.load(sys.stdin); d['env']['set']['PATH']='$W/bin:/usr/bin'; print(json.dumps(d))")
		run "$who" "$mode" "$json_set" tool
		check "$t: env: a PATH the profile sets wins, and the command is found on it" "0 own-tool" "$rc $out"

		# an MCP server: an argv, no shell in between
		run "$who" "$mode" "$json" printf '%s|' "--flag with space" '$(id)'
		check "$t: an argv is passed as it is (no shell)" '--flag with space|$(id)|' "$out"

		# never unconfined: a host without Landlock refuses
		rm -f "$W/ran"
		out=$(as "$who" $(nspre "$mode") "$HELPERS/errno-filter" landlock_create_ruleset=ENOSYS -- "$SB" "$json" -- sh -c "echo ran > '$W/ran'" 2>"$T/err")
		rc=$?
		check "$t: no Landlock here: refused with 125" 125 "$rc"
		check "$t: ... the command never ran" absent "$(present "$W/ran")"
		check_match "$t: ... and the message says why" 'Landlock' "$(cat "$T/err")"
		run "$who" "$mode" "$json" sh -c "echo ran > '$W/ran'"
		check "$t: control: with Landlock the same command runs" "0 present" "$rc $(present "$W/ran")"
	done
done
done_testing

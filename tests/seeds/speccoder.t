#!/usr/bin/env bash
# speccoder (seeds/000, sandbox.rs): its Profile JSON exactly as its serde
# derive writes it (tests/seeds/speccoder_profile.py), through its own
# invocation `speccoder __sandbox <profile-json> -- argv` (the shim accepts
# the helper argument), in every variant speccoder makes: default
# (network "loopback"), off, fetching (network "on", caches writable),
# carve (.git read-only, an ignored secret hidden), fitted (the unenforced
# parts this host needs, from the shim's own refusal), trust handoff.
# Each requirement a comment of the seed states is checked, as root and
# as uid 65534, with mounts and where namespaces are refused
# (tests/helpers/nons), with a control outside the sandbox where the check
# is a refusal.
. "$(dirname "$0")/common.sh"
GEN=$REPO/tests/seeds/speccoder_profile.py
# speccoder's own invocation: `speccoder __sandbox <profile-json> -- argv`
HELPER_ARG=__sandbox

# fitted WHO MODE VARIANT ROOT HOME [KEY=VALUE...] — the profile as
# speccoder's fit leaves it for this host: the shim's refusal names the
# unenforced parts (speccoder's own four names only: anything else breaks
# its contract, deny_unknown_fields); printed, or "CONTRACT: ..." on stderr.
fitted() {
	local who=$1 mode=$2 variant=$3 root=$4 home=$5
	shift 5
	local json pre= e keys
	json=$(as "$who" $PY "$GEN" "$variant" "$root" "$home" "$@") || return 1
	[ "$mode" = nons ] && pre=$HELPERS/nons
	as "$who" $pre "$SB" --check "$json" >/dev/null 2>"$T/fit" && { echo "$json"; return 0; }
	e=$(cat "$T/fit")
	keys=$(printf '%s' "$e" | sed -n 's/.*set in the profile[^:]*: "unenforced":{\([^}]*\)}.*/\1/p' |
		tr ',' '\n' | sed -n 's/^"\([a-z_]*\)":true$/\1=true/p')
	for k in $keys; do
		case ${k%=true} in
		trust_handoff | workspace_sockets | signal_scope | carve) ;;
		*) echo "CONTRACT: the shim asks for ${k%=true}, which speccoder cannot name: $e" >&2; return 1 ;;
		esac
	done
	[ -n "$keys" ] || { echo "CONTRACT: refused without a speccoder fix: $e" >&2; return 1; }
	as "$who" $PY "$GEN" "$variant" "$root" "$home" "$@" $keys
}

# A home with credentials speccoder hides and caches it shares, and a
# repository workspace with an ignored secret.
setup() {
	local who=$1
	H=$T/$who-home
	W=$T/$who-ws
	rm -rf "$H" "$W"
	mkdir -p "$H/.ssh" "$H/.aws" "$H/.config/gh" "$H/.cargo/registry" "$H/.cargo/bin" "$H/.cache" "$W/src"
	echo ssh-key >"$H/.ssh/id_ed25519"
	echo aws-secret >"$H/.aws/credentials"
	echo netrc-secret >"$H/.netrc"
	echo gh-token >"$H/.config/gh/hosts.yml"
	echo crate >"$H/.cargo/registry/index"
	printf '#!/bin/sh\necho real-cargo\n' >"$H/.cargo/bin/cargo"
	chmod 755 "$H/.cargo/bin/cargo"
	git -C "$W" init -q
	git -C "$W" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
	echo dotenv-secret >"$W/.env"
	echo .env >"$W/.gitignore"
	if [ "$who" = nobody ]; then chown -R $NOBODY:$NOBODY "$H" "$W"; fi
}

for who in $USERS; do
	for mode in mounts nons; do
		t="$who/$mode"
		setup "$who"
		# without Landlock the shim's refusal asks for best_effort, which
		# is not one of speccoder's names: speccoder cannot run there
		no_landlock "$who" "$mode" "$(as "$who" $PY "$GEN" default "$W" "$H")" && continue
		if ! json=$(fitted "$who" "$mode" default "$W" "$H" 2>"$T/c"); then
			not_ok "$t: speccoder's default profile runs on this host with speccoder's own unenforced names"
			diag "$(cat "$T/c")"
			continue
		fi
		ok "$t: speccoder's default profile runs on this host with speccoder's own unenforced names"
		tmpd=$(printf '%s' "$json" | $PY -c 'import json,sys; print(json.load(sys.stdin)["tmp"])')

		# "Writable trees (the workspace first)"
		run "$who" "$mode" "$json" sh -c "echo x > '$W/new' && mv '$W/new' '$W/renamed' && : > '$W/renamed' && echo ok"
		check "$t: the workspace is writable (create, rename, truncate)" "0 ok" "$rc $out"
		check "$t: ... and stdout carries only the command's output (MCP speaks JSON there)" "ok" "$out"
		run "$who" "$mode" "$json" sh -c 'exit 7'
		check "$t: the command's exit status is the shim's" 7 "$rc"

		# "Credentials a command never reads, relative to the home directory"
		for f in .ssh/id_ed25519 .aws/credentials .netrc .config/gh/hosts.yml; do
			check "$t: control: ~/$f is readable outside" ok "$(outside cat "$H/$f" >/dev/null && echo ok)"
			run "$who" "$mode" "$json" cat "$H/$f"
			check "$t: hidden ~/$f is not readable" "no" "$([ "$rc" != 0 ] && [ -z "$out" ] && echo no || echo "yes: $out")"
		done

		# "The person's shared package caches: read by every command,
		# written only by one that fetches"
		run "$who" "$mode" "$json" cat "$H/.cargo/registry/index"
		check "$t: a shared cache is readable" "0 crate" "$rc $out"
		run "$who" "$mode" "$json" sh -c "echo x > '$H/.cargo/registry/new'"
		check "$t: ... and not writable without the network" nonzero "$([ "$rc" != 0 ] && echo nonzero)"
		check "$t: ... nothing was written" absent "$([ -e "$H/.cargo/registry/new" ] && echo present || echo absent)"

		# "The private temporary directory (TMPDIR), writable"
		run "$who" "$mode" "$json" sh -c "echo t > '$tmpd/f' && cat '$tmpd/f'"
		check "$t: tmp (made with the caller's umask, as speccoder's create_dir_all does) is writable" "0 t" "$rc $out"

		# network "loopback" ("On Linux this is Network::Off"): nothing
		# outside the sandbox is reachable
		tcp_start "$who"
		check "$t: control: a host TCP server on loopback is reachable outside" ok "$(outside "$TRY" tcp-connect "$PORT")"
		run "$who" "$mode" "$json" "$TRY" tcp-connect "$PORT"
		check "$t: network \"loopback\": the host's loopback server is not reachable" refused "$(case $out in E[A-Z]*) echo refused ;; *) echo "reached: $out" ;; esac)"
		check "$t: control: ... and it is still serving" ok "$(outside "$TRY" tcp-connect "$PORT")"
		tcp_stop

		# "Commands can signal every process of the user, not only their
		# own" only under unenforced.signal_scope
		if [ "$who" = nobody ]; then
			setpriv --reuid $NOBODY --regid $NOBODY --clear-groups -- sleep 300 &
		else
			sleep 300 &
		fi
		victim=$!
		run "$who" "$mode" "$json" "$TRY" kill "$victim" 0
		case $json in
		*'"signal_scope":true'*)
			# below Landlock ABI 6 speccoder's fit sets it: the
			# scope is left out, and the shim says so
			check "$t: only below Landlock ABI 6 does the fit leave the signal scope out" yes \
				"$([ "$ABI" -lt 6 ] && echo yes || echo "no: ABI $ABI")"
			check_match "$t: ... the shim's notice names it" \
				'left out: .*signal scope \([^)]*allowed by \.unenforced\.signal_scope\)' "$err"
			check "$t: ... so a process of the same user outside can be signalled, as the notice says" ok "$out"
			;;
		*)
			check "$t: a process of the same user outside the sandbox cannot be signalled (signal scope)" EPERM "$out"
			;;
		esac
		check "$t: control: it can be signalled outside" ok "$(outside "$TRY" kill "$victim" 0)"
		kill "$victim" 2>/dev/null
		wait "$victim" 2>/dev/null

		# "Unix sockets in writable trees are not reachable either"
		# (workspace_sockets, where the host cannot scope them)
		case $json in
		*'"workspace_sockets":true'*)
			rm -f "$T/fifo-$who" "$T/lis-$who"
			mkfifo "$T/fifo-$who"
			as "$who" "$TRY" listen-unix "$W/s" <"$T/fifo-$who" >"$T/lis-$who" 2>&1 &
			lis=$!
			exec 8>"$T/fifo-$who"
			for _ in $(seq 50); do [ -s "$T/lis-$who" ] && break; sleep 0.1; done
			check "$t: control: a socket listens in the workspace" ok "$(outside "$TRY" connect-unix "$W/s")"
			run "$who" "$mode" "$json" "$TRY" connect-unix "$W/s"
			check "$t: unenforced.workspace_sockets: a socket in the workspace is not reachable either" EAFNOSUPPORT "$out"
			exec 8>&-
			wait "$lis" 2>/dev/null
			rm -f "$W/s"
			;;
		*) ok "$t: the unix socket scopes are enforced here (workspace_sockets not needed)" ;;
		esac

		# the built-in protect list: a model's command cannot plant a hook
		run "$who" "$mode" "$json" sh -c "echo '#!/bin/sh' > '$W/.git/hooks/pre-commit'"
		if [ "$mode" = mounts ]; then
			check "$t: .git/hooks is protected (a command cannot plant a hook)" nonzero "$([ "$rc" != 0 ] && echo nonzero)"
		else
			check "$t: without a namespace the built-in protect list is left out (named on the notice line)" \
				"0 named" "$rc $(printf '%s' "$err" | grep -q 'built-in protect' && echo named)"
		fi
		rm -f "$W/.git/hooks/pre-commit"

		# "off": the same, network off
		json_off=$(fitted "$who" "$mode" off "$W" "$H") && ok "$t: network \"off\" variant runs" || not_ok "$t: network \"off\" variant runs"
		run "$who" "$mode" "$json_off" "$TRY" socket AF_INET SOCK_STREAM 0
		check "$t: network \"off\": no TCP socket" EAFNOSUPPORT "$out"

		# fetching: the caches writable, network on; ~/.cargo/bin never
		json_f=$(fitted "$who" "$mode" fetching "$W" "$H") && ok "$t: fetching variant runs" || not_ok "$t: fetching variant runs"
		run "$who" "$mode" "$json_f" sh -c "echo x > '$H/.cargo/registry/new' && echo ok"
		check "$t: fetching: a shared cache is writable" "0 ok" "$rc $out"
		run "$who" "$mode" "$json_f" sh -c "echo 'echo fake' > '$H/.cargo/bin/cargo'"
		check "$t: fetching: ~/.cargo/bin is not (\"would let a test replace cargo\")" "nonzero real-cargo" \
			"$([ "$rc" != 0 ] && echo nonzero) $("$H/.cargo/bin/cargo")"
		rm -f "$H/.cargo/registry/new"

		# carve: ".git carved out in place", an ignored secret hidden
		json_c=$(fitted "$who" "$mode" carve "$W" "$H") && ok "$t: carve variant runs" || not_ok "$t: carve variant runs"
		run "$who" "$mode" "$json_c" sh -c "echo '[core]' >> '$W/.git/config'"
		check "$t: carve: .git is read-only" nonzero "$([ "$rc" != 0 ] && echo nonzero)"
		run "$who" "$mode" "$json_c" cat "$W/.env"
		check "$t: carve: the ignored secret is not readable" "no" "$([ "$rc" != 0 ] && [ -z "$out" ] && echo no || echo "yes: $out")"
		run "$who" "$mode" "$json_c" git -C "$W" status --short
		check "$t: carve: git status still works" 0 "$rc"
		run "$who" "$mode" "$json_c" sh -c "echo y > '$W/src/new.rs' && echo ok"
		check "$t: carve: the workspace stays writable around .git" "0 ok" "$rc $out"
		run "$who" "$mode" "$json_c" sh -c "echo y > '$W/top.rs' && echo ok"
		if [ "$mode" = mounts ]; then
			check "$t: carve: ... new files at its root too (mounts)" "0 ok" "$rc $out"
		else
			# Landlock expansion: the documented trade, named on a notice
			check "$t: carve without a namespace: nothing new directly at the root (expansion), and a notice names it" \
				"nonzero named" "$([ "$rc" != 0 ] && echo nonzero) $(printf '%s' "$err" | grep -qF "new entries cannot be created directly in $W" && echo named)"
		fi
		# speccoder's fallback when carving fails: unenforced.carve
		json_cu=$(as "$who" $PY "$GEN" carve "$W" "$H" carve=true $(printf '%s' "$json_c" | $PY -c 'import json,sys; u=json.load(sys.stdin)["unenforced"]; print(" ".join(k+"=true" for k,v in u.items() if v and k!="carve"))'))
		run "$who" "$mode" "$json_cu" true
		check "$t: carve with unenforced.carve (speccoder's fallback) runs" 0 "$rc"

		# trust handoff: git init and project generators may write hooks
		json_t=$(fitted "$who" "$mode" default "$W" "$H" trust_handoff=true) &&
			ok "$t: trust-handoff variant runs" || not_ok "$t: trust-handoff variant runs"
		g=$W/gen
		run "$who" "$mode" "$json_t" sh -c "git init -q '$g' && echo '#!/bin/sh' > '$g/.git/hooks/pre-commit' && git -C '$g' config core.x y && echo ok"
		check "$t: unenforced.trust_handoff: git init works, hooks and config are writable" "0 ok" "$rc $out"
		check "$t: ... in the real tree" present "$([ -e "$g/.git/hooks/pre-commit" ] && echo present || echo absent)"
		run "$who" "$mode" "$json_t" sh -c "echo '#!/bin/sh' > '$W/.git/hooks/post-checkout' && echo ok"
		check "$t: ... the workspace's own .git hooks too (speccoder's words: hooks stay writable)" "0 ok" "$rc $out"
		rm -rf "$tmpd"
	done
done
done_testing

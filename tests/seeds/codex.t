#!/usr/bin/env bash
# codex (seeds/003, linux-sandbox bwrap.rs): its filesystem policy as the
# shim's JSON (tests/seeds/codex_profile.py), run as codex runs a command
# (an argv in the canonical cwd), checking what its comments require: the
# root read-only, writable roots with .git and .codex read-only inside,
# unreadable carve-outs, a symlink in a protected position neutralised,
# split policies (a writable root inside a read-only or an unreadable
# entry), a new session, death with the parent, the network isolated, a
# missing writable root skipped (a missing first one refused), its PID
# namespace and fresh /proc (no_survivors).  Root and
# uid 65534, with mounts and where namespaces are refused; a control
# outside the sandbox for every refusal.
. "$(dirname "$0")/common.sh"
GEN=$REPO/tests/seeds/codex_profile.py

for who in $USERS; do
	for mode in $MODES; do
		t="$who/$mode"
		ns_ok "$who" "$mode" || continue
		B=$T/$who-$mode
		W1=$B/ws
		W2=$B/extra
		mkdir -p "$W1/src" "$W1/.codex" "$W1/docs/public" "$W1/secrets" "$W2/decoy" "$W2/sub" "$B/blocked/allowed"
		git -C "$W1" init -q
		echo 'model = "x"' >"$W1/.codex/config.toml"
		echo KEY >"$W1/secrets/key"
		echo DOC >"$W1/docs/readme"
		echo HOSTFILE >"$B/hostfile"
		echo BLOCKED >"$B/blocked/secret"
		ln -s decoy "$W2/.codex"
		own "$who" "$B"
		gen() { as "$who" $PY "$GEN" "$W1" root="$W2" read="$W1/docs" root="$W1/docs/public" \
			none="$W1/secrets" none="$B/blocked" root="$B/blocked/allowed" "$@"; }
		json=$(gen)
		no_landlock "$who" "$mode" "$json" && continue

		# the root read-only
		run "$who" "$mode" "$json" sh -c "echo x >> '$B/hostfile'"
		check "$t: control: the file outside the roots is writable outside" ok "$(outside sh -c "echo x >> '$B/hostfile'" && echo ok)"
		check "$t: the root is read-only (a file outside every writable root)" refused "$(fails "$rc")"
		run "$who" "$mode" "$json" cat "$B/hostfile"
		check "$t: ... and readable" 0 "$rc"

		# writable roots, in the canonical cwd
		run "$who" "$mode" "$json" sh -c "echo a > src/a && mv src/a src/b && echo b > '$W2/sub/new' && pwd -P"
		check "$t: writable roots are writable, the command starts in the canonical cwd" "0 $W1" "$rc $out"

		# .git and .codex read-only inside a writable root
		for f in .git/config .codex/config.toml; do
			check "$t: control: $f is writable outside" ok "$(outside sh -c "echo >> '$W1/$f'" && echo ok)"
			run "$who" "$mode" "$json" sh -c "echo '[x]' >> '$W1/$f'"
			check "$t: $f stays read-only in a writable root" refused "$(fails "$rc")"
		done
		run "$who" "$mode" "$json" sh -c "echo x > '$W1/.git/hooks/pre-commit'"
		check "$t: nothing can be planted in .git" refused "$(fails "$rc")"
		check "$t: ... and nothing was" absent "$(present "$W1/.git/hooks/pre-commit")"

		# a symlink in a protected position: neutralised
		run "$who" "$mode" "$json" sh -c "echo x > '$W2/.codex/config.toml'"
		check "$t: a write through the .codex symlink is refused" refused "$(fails "$rc")"
		check "$t: ... nothing reached its target" absent "$(present "$W2/decoy/config.toml")"
		run "$who" "$mode" "$json" sh -c "rm '$W2/.codex' || mv '$W2/.codex' '$W2/moved'; ln -sfn /tmp '$W2/.codex'"
		check "$t: the symlink cannot be removed, moved or re-aimed" "decoy" "$(readlink "$W2/.codex")"

		# unreadable carve-outs, inside a root and outside every root
		for f in "$W1/secrets/key" "$B/blocked/secret"; do
			check "$t: control: $(basename "$(dirname "$f")")/$(basename "$f") is readable outside" ok "$(outside cat "$f" >/dev/null && echo ok)"
			run "$who" "$mode" "$json" cat "$f"
			check "$t: unreadable carve-out $(basename "$(dirname "$f")")/$(basename "$f") is not readable" "refused " "$(fails "$rc") $out"
		done

		# split policies: the more specific entry wins
		run "$who" "$mode" "$json" sh -c "echo p > '$W1/docs/public/p' && cat '$W1/docs/readme'"
		check "$t: split policy: a writable root inside a read-only entry is writable" "0 DOC" "$rc $out"
		run "$who" "$mode" "$json" sh -c "echo x > '$W1/docs/new'"
		check "$t: ... the read-only entry around it is not" refused "$(fails "$rc")"
		run "$who" "$mode" "$json" sh -c "echo w > '$B/blocked/allowed/w' && cat '$B/blocked/allowed/w'"
		check "$t: split policy: a writable root inside an unreadable entry is writable" "0 w" "$rc $out"

		# a new session (bwrap --new-session)
		check "$t: control: outside, the command is not a session leader" False "$(outside $PY -c 'import os; print(os.getsid(0) == os.getpid())')"
		run "$who" "$mode" "$json" $PY -c 'import os; print(os.getsid(0) == os.getpid())'
		check "$t: the command leads a new session" "0 True" "$rc $out"

		# the network isolated (bwrap --unshare-net)
		tcp_start "$who"
		check "$t: control: a host TCP server is reachable outside" ok "$(outside "$TRY" tcp-connect "$PORT")"
		run "$who" "$mode" "$json" "$TRY" tcp-connect "$PORT"
		check "$t: network isolated: the host's server is not reachable" refused "$(errno_of "$out")"
		run "$who" "$mode" "$(gen network=full)" "$TRY" tcp-connect "$PORT"
		check "$t: network full: it is" ok "$out"
		tcp_stop

		# die with the parent (bwrap --die-with-parent): a parent killed
		# with SIGKILL takes the sandboxed command with it
		P=$W1/src
		rm -f "$P/pid" "$P/ppid"
		as "$who" $(nspre "$mode") sh -c "echo \$\$ > '$P/ppid'; '$SB' '$json' -- sh -c 'echo \$\$ > $P/pid; exec sleep 300' & wait" </dev/null 2>/dev/null &
		bgjob=$!
		for _ in $(seq 100); do [ -s "$P/pid" ] && break; sleep 0.05; done
		child=$(cat "$P/pid" 2>/dev/null)
		check "$t: control: the sandboxed command runs while its parent lives" alive "$(kill -0 "$child" 2>/dev/null && echo alive || echo gone)"
		kill -9 "$(cat "$P/ppid")" 2>/dev/null
		gone=$($PY -c 'import os,select,sys
try:
    fd = os.pidfd_open(int(sys.argv[1]))
except (ProcessLookupError, ValueError):
    print("gone" if sys.argv[1] else "never started"); sys.exit()
print("gone" if select.select([fd], [], [], 10)[0] else "alive")' "$child")
		check "$t: the sandboxed command dies with its parent (SIGKILL)" gone "$gone"
		kill "$child" 2>/dev/null
		wait "$bgjob" 2>/dev/null

		# bwrap --unshare-pid --proc: no_survivors gives a PID namespace
		# and a fresh /proc where namespaces can be had (the command is
		# pid 2 under a minimal init and sees only the sandbox's
		# processes); without one, a subreaper (best effort, the host's
		# /proc)
		run "$who" "$mode" "$(gen pidns=yes)" sh -c 'n=0; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo $$ $n'
		if [ "$mode" = mounts ]; then
			check "$t: pidns: the command is pid 2, /proc lists only the sandbox (init and it)" "0 2 2" "$rc $out"
		else
			check "$t: pidns without namespaces: it runs (a subreaper), /proc is the host's" "0 host" \
				"$rc $(echo "$out" | awk '{print ($2 > 2) ? "host" : "own"}')"
		fi

		# a missing writable root: skipped, but the first refused
		run "$who" "$mode" "$(as "$who" $PY "$GEN" "$W1" root="$B/missing" root="$W2")" sh -c "echo ok > '$W2/sub/after-missing' && echo ok"
		check "$t: a missing writable root (not the first) is skipped, the rest work" "0 ok" "$rc $out"
		check_match "$t: ... with a notice naming it" "notice: \\.writable\\[1\\] \"$B/missing\": skipped" "$err"
		run "$who" "$mode" "$(as "$who" $PY "$GEN" "$B/missing-ws" root="$W2")" sh -c "echo ran > '$W2/ran'"
		check "$t: a missing first writable root (the workspace) is refused" "125 absent" "$rc $(present "$W2/ran")"
		check_match "$t: ... with a clear message" "\\.writable\\[0\\] \"$B/missing-ws\": No such file or directory" "$err"
	done
done
done_testing

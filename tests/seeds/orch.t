#!/usr/bin/env bash
# orch (seeds/001, engine/runner sandbox.rs, the Linux branch): the policy
# of one task run as the shim's JSON (tests/seeds/orch_profile.py), for a
# task in a linked worktree of a main checkout (branch feat/mine), run as
# orch runs its agent (in the worktree, HOME the real home), checking what
# its comments and its own tests require: commits on the task's branch
# work; another branch's ref, hooks, config, the other worktree, the main
# checkout, orch's own state and the agent configs are read-only; keys and
# the daemon's write token hidden; /tmp, /var/tmp and /run start empty and
# private; unix sockets only in the worktree and the run's temp; signals
# only to its own processes.  Root and uid 65534, with mounts and where
# namespaces are refused; a control outside the sandbox for every refusal.
. "$(dirname "$0")/common.sh"
GEN=$REPO/tests/seeds/orch_profile.py
GITENV='export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@a.invalid GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@a.invalid;'

# fixture WHO B — a home with an orch home and a main checkout with two
# linked worktrees (the task's "mine" on feat/mine, "other"), a branch
# only packed-refs holds, keys, agent configs, another repository.
fixture() {
	local who=$1 B=$2
	H=$B/home
	R=$H/proj
	O=$H/.orch
	W=$O/worktrees/proj/mine
	TMPR=$B/attempt/tmp
	mkdir -p "$R/src" "$O/worktrees/proj" "$O/state" "$H/.config/nvim" "$H/.claude" "$H/.cargo/bin" \
		"$H/.ssh" "$H/.gnupg" "$H/code/deep/other/src" "$H/.local/share" "$H/.cargo/registry" "$TMPR"
	own "$who" "$B"
	local g="env HOME=$B GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=O GIT_AUTHOR_EMAIL=o@o.invalid GIT_COMMITTER_NAME=O GIT_COMMITTER_EMAIL=o@o.invalid git"
	as "$who" sh -c "set -e
		$g -C '$R' -c init.defaultBranch=main init -q
		echo readme > '$R/README.md'; echo code > '$R/src/main.rs'
		$g -C '$R' add -A; $g -C '$R' commit -qm one
		$g -C '$R' branch feat/mine; $g -C '$R' branch other
		printf '%s refs/heads/release\n' \$($g -C '$R' rev-parse main) >> '$R/.git/packed-refs'
		$g -C '$R' worktree add -q '$W' feat/mine
		$g -C '$R' worktree add -q '$O/worktrees/proj/other' other
		mkdir -p '$W/src'
		echo 'workflow: {}' > '$W/.orch.yml'
		echo conf > '$O/config.yml'; echo db > '$O/orch.db'; echo 4242 > '$O/state/cluster.port'
		echo KEY > '$H/.ssh/id_ed25519'; echo GPG > '$H/.gnupg/secring'
		echo zsh > '$H/.zshrc'; echo '{}' > '$H/.claude.json'
		echo '[build]' > '$H/.cargo/config.toml'; printf '#!/bin/sh\n' > '$H/.cargo/bin/cargo'
		$g -C '$H/code/deep/other' init -q" >/dev/null 2>&1
}

for who in $USERS; do
	for mode in $MODES; do
		t="$who/$mode"
		ns_ok "$who" "$mode" || continue
		B=$T/$who-$mode
		fixture "$who" "$B"
		gen() { as "$who" $PY "$GEN" "$W" "$R" feat/mine "$H" "$O" "$TMPR" path="$H/.cargo/bin:/usr/bin:/bin" "$@"; }
		json=$(gen)
		no_landlock "$who" "$mode" "$json" && continue
		unf=
		sockets_enforced=yes
		run "$who" "$mode" "$json" true
		if [ "$ABI" -lt 6 ]; then
			# no signal scope and no abstract unix socket scope below
			# ABI 6 (orch's network is "on": no network namespace hides
			# the host's abstract sockets either): the shim refuses both
			# rather than leave them out
			check "$t: below Landlock ABI 6, orch's signal and socket rules are refused, not dropped" 125 "$rc"
			check_match "$t: ... naming the signal scope" 'signal scope' "$err"
			check_match "$t: ... and the abstract unix socket scope" 'abstract unix socket scope' "$err"
			unf=signal_scope,host_sockets
		fi
		if [ "$mode" = nons ] && [ "$ABI" -lt 9 ]; then
			# no view of /run and /tmp and no FS_RESOLVE_UNIX: the shim
			# refuses orch's socket rule rather than leave it out
			check "$t: below Landlock ABI 9 without mounts, orch's socket rule is refused, not dropped" 125 "$rc"
			check_match "$t: ... naming the part" 'pathname unix socket scope' "$err"
			unf=${unf:-host_sockets}
			sockets_enforced=no
		fi
		if [ -n "$unf" ]; then
			unf=unenforced=$unf
			json=$(gen $unf)
		else
			check "$t: orch's profile runs as it is on this kernel (Landlock ABI $ABI)" "0" "$rc"
		fi

		# commits on the task's branch
		before=$(as "$who" git -C "$R" rev-parse feat/mine)
		run "$who" "$mode" "$json" sh -c "$GITENV echo x > src/new.txt && git add src/new.txt && git commit -qm task && echo ok"
		if [ "$mode" = mounts ]; then
			check "$t: a commit on the task's branch works in the worktree" "0 ok" "$rc $out"
			check "$t: ... and moved feat/mine in the main repository" moved "$([ "$(as "$who" git -C "$R" rev-parse feat/mine)" != "$before" ] && echo moved || echo same)"
		else
			# Landlock expansion around the worktree git dir's read-only
			# HEAD, commondir, gitdir: git's index.lock cannot be made there
			check_match "$t: expansion: the notice names the worktree's git dir as closed to new entries" "new entries cannot be created directly in [^;]*$R/.git/worktrees/mine" "$err"
			skip "$t: a commit needs git's lock files in the worktree's git dir, which expansion closes (doc/seeds.md)"
		fi
		run "$who" "$mode" "$json" sh -c "echo more >> src/main.rs && echo ok"
		check "$t: the worktree is writable" "0 ok" "$rc $out"

		# read-only around the task
		main_ref=$(cat "$R/.git/refs/heads/main")
		for f in .git/refs/heads/main .git/config .git/worktrees/mine/HEAD .git/worktrees/other/HEAD README.md src/main.rs; do
			check "$t: control: proj/$f is writable outside" ok "$(outside sh -c "echo >> '$R/$f'" && echo ok)"
			run "$who" "$mode" "$json" sh -c "echo x >> '$R/$f'"
			check "$t: proj/$f is read-only" refused "$(fails "$rc")"
		done
		git -C "$R" update-ref refs/heads/main "$main_ref" 2>/dev/null
		echo "$main_ref" >"$R/.git/refs/heads/main"
		run "$who" "$mode" "$json" sh -c "echo '#!/bin/sh' > '$R/.git/hooks/post-checkout'"
		check "$t: no hook can be planted in the main repository" "refused absent" "$(fails "$rc") $(present "$R/.git/hooks/post-checkout")"
		for f in "$W/.git" "$W/.orch.yml" "$O/config.yml" "$O/orch.db" "$O/worktrees/proj/other/README.md" \
			"$H/.zshrc" "$H/.claude.json" "$H/.cargo/config.toml" "$H/.cargo/bin/cargo" "$H/code/deep/other/.git/config"; do
			run "$who" "$mode" "$json" sh -c "echo x >> '$f'"
			check "$t: ${f#"$B/"} is read-only" refused "$(fails "$rc")"
		done
		run "$who" "$mode" "$json" sh -c "echo x > '$H/.new-dotfile'"
		check "$t: no new dotfile at the top of the home" "refused absent" "$(fails "$rc") $(present "$H/.new-dotfile")"
		run "$who" "$mode" "$json" sh -c "echo cache > '$H/.cargo/registry/probe' && echo x > '$H/code/deep/other/src/f' && echo ok"
		check "$t: the home's other top-level dirs are writable (caches, other code)" "0 ok" "$rc $out"
		if [ "$mode" = mounts ]; then
			run "$who" "$mode" "$json" sh -c "echo x > '$R/.git/refs/heads/release'"
			check "$t: a loose ref for a packed-only branch: with mounts nothing is created to occupy it (a notice says so)" \
				"notice" "$(printf '%s' "$err" | grep -qF ".read_only[" && printf '%s' "$err" | grep -qF "\"$R/.git/refs/heads/release\": does not exist, so it is not protected" && echo notice)"
			rm -f "$R/.git/refs/heads/release"
		else
			run "$who" "$mode" "$json" sh -c "echo x > '$R/.git/refs/heads/release'"
			check "$t: a loose ref for a packed-only branch cannot be created (expansion)" "refused absent" "$(fails "$rc") $(present "$R/.git/refs/heads/release")"
		fi

		# keys and the daemon's write token hidden
		for f in "$H/.ssh/id_ed25519" "$H/.gnupg/secring" "$O/state/cluster.port"; do
			check "$t: control: ${f#"$B/"} is readable outside" ok "$(outside cat "$f" >/dev/null && echo ok)"
			run "$who" "$mode" "$json" cat "$f"
			check "$t: ${f#"$B/"} is hidden" "refused " "$(fails "$rc") $out"
		done
		run "$who" "$mode" "$(gen internal $unf)" cat "$O/state/cluster.port"
		check "$t: an internal (job) task sees the write token" "0 4242" "$rc $out"

		# scratch dirs start empty and private
		host_probe=/tmp/orch-seed-$who-$$
		echo host >"$host_probe"
		if [ "$mode" = mounts ]; then
			run "$who" "$mode" "$json" sh -c 'ls -A /tmp /var/tmp; echo x > /tmp/agent-file && echo wrote'
			check "$t: /tmp and /var/tmp start empty, and /tmp is writable" "/tmp:

/var/tmp:
wrote" "$out"
			check "$t: ... and private (nothing reaches the host's /tmp)" absent "$(present /tmp/agent-file)"
			if [ "$ABI" -lt 9 ]; then
				run "$who" "$mode" "$json" ls -A /run
				check "$t: /run is an empty view (below Landlock ABI 9)" "0 " "$rc $out"
			else
				skip "$t: /run is the host's on Landlock ABI 9+ (sockets there are unreachable by FS_RESOLVE_UNIX instead)"
			fi
		else
			skip "$t: no mount namespace: /tmp, /var/tmp and /run are the host's (doc/seeds.md); only the run temp is writable"
		fi
		rm -f "$host_probe"

		# unix sockets only in the worktree and the run temp
		for d in "$W" "$TMPR"; do
			unix_start "$who" "$d/s"
			check "$t: control: the socket in ${d#"$B/"} answers outside" ok "$(outside "$TRY" connect-unix "$d/s")"
			run "$who" "$mode" "$json" "$TRY" connect-unix "$d/s"
			check "$t: a socket in ${d#"$B/"} is reachable" ok "$out"
			unix_stop
			rm -f "$d/s"
		done
		tmuxd=/tmp/tmux-seed-$who-$$
		mkdir -p "$tmuxd"
		own "$who" "$tmuxd"
		unix_start "$who" "$tmuxd/default"
		check "$t: control: a tmux-like socket in the host's /tmp answers outside" ok "$(outside "$TRY" connect-unix "$tmuxd/default")"
		run "$who" "$mode" "$json" "$TRY" connect-unix "$tmuxd/default"
		if [ "$sockets_enforced" = yes ]; then
			check "$t: ... and is out of reach inside" refused "$(errno_of "$out")"
		else
			skip "$t: below Landlock ABI 9 without mounts a host socket stays reachable (refused above unless host_sockets)"
		fi
		unix_stop
		rm -rf "$tmuxd"

		# own signals only
		victim_start "$who"
		check "$t: control: a process of the same user can be signalled outside" ok "$(outside "$TRY" kill "$VICTIM" 0)"
		run "$who" "$mode" "$json" "$TRY" kill "$VICTIM" 0
		if [ "$ABI" -ge 6 ]; then
			check "$t: ... not from inside (signal scope)" EPERM "$out"
		else
			skip "$t: the signal scope needs Landlock ABI 6 (this kernel: $ABI)"
		fi
		run "$who" "$mode" "$json" "$TRY" raise
		check "$t: the command signals itself" ok "$out"
		victim_stop
	done
done
done_testing

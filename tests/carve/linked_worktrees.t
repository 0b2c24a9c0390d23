#!/usr/bin/env bash
# A repository whose .git is writable protects its linked worktrees' git
# dirs too (issue 10, git's own routes): R/.git/worktrees/NAME/commondir,
# gitdir and config.worktree decide which config and hooks git runs for
# that worktree, so rewriting commondir to a copied .git with a hook runs
# code on the user's next commit there.  Mounts: bound read-only (EROFS);
# without a namespace the built-in list is left out and the notice names
# them.  Control: with "protect": [] the write works; the worktree still
# commits outside afterwards.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		R=$(mkws "$who" "lwt-$mode")
		W=$(mkws "$who" "lwt-wtp-$mode")/wt
		as "$who" sh -c "cd '$R' && git init -q && git -c user.email=a@b -c user.name=t commit -q --allow-empty -m 1 && git worktree add -q '$W' -b wt-$mode" >/dev/null 2>&1
		G=$R/.git/worktrees/$(basename "$W")
		if [ ! -f "$G/commondir" ]; then
			not_ok "$t: fixture: a linked worktree with $G/commondir"
			continue
		fi
		before=$(cat "$G/commondir")
		p="{$mk\"writable\":[\"$R\"]}"
		as "$who" "$SB" "$p" -- sh -c "echo ../../../evil > '$G/commondir'; echo x >> '$G/gitdir'; echo done" >/dev/null 2>"$T/err"
		if [ "$mode" = mounts ]; then
			check_match "$t: commondir and gitdir of the linked worktree cannot be rewritten (EROFS)" \
				"commondir: Read-only file system.*gitdir: Read-only file system" "$(tr '\n' ' ' <"$T/err")"
			check "$t: ... commondir is unchanged" "$before" "$(cat "$G/commondir")"
		else
			check "$t: without a namespace the built-in list is left out: commondir is writable" "../../../evil" "$(cat "$G/commondir")"
			check_match "$t: ... and the one notice names it" "left out: built-in protect of .*$G/commondir" "$(cat "$T/err")"
			printf '%s\n' "$before" >"$G/commondir"
		fi
		relaxed="{$mk\"writable\":[\"$R\"],\"protect\":[]}"
		as "$who" "$SB" "$relaxed" -- sh -c "echo '$before' > '$G/commondir'" 2>/dev/null
		check "$t: control: with \"protect\": [] it can be written" "$before" "$(cat "$G/commondir")"
		check "$t: the worktree still commits outside" ok \
			"$(as "$who" env HOME=/nonexistent sh -c "cd '$W' && git -c user.email=a@b -c user.name=t commit -q --allow-empty -m 2 && echo ok" 2>/dev/null)"
	done
done
done_testing

#!/usr/bin/env bash
# A git linked worktree keeps working (issue 3), root and nobody, both carve
# modes.  Main repository R, `git worktree add W2`; W2/.git is a FILE
# ("gitdir: R/.git/worktrees/W2"), so the built-in protect names under
# .git hit a non-directory on the way: that file must stay unwritable (it
# decides which hooks and config git runs outside), as must R's hooks and
# config.  Two profiles that list the per-worktree git dir:
#   inside:  writable [W2, R/.git/worktrees/W2, R]   (R writable too)
#   outside: writable [W2, R/.git/worktrees/W2, R/.git/objects,
#            R/.git/refs, R/.git/logs]               (R itself not)
# (git add needs the common object store, so the per-worktree git dir alone
# is never enough.)  With mounts, git add and commit inside W2 succeed;
# with expansion the per-worktree git dir takes no new entries (its
# commondir and config.worktree are carved), so git stops at its
# index.lock — documented, named in the notice.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	for mode in $MODES; do
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		for layout in inside outside; do
			t=$who/$mode/$layout
			top=$(mkws "$who" "wt-$mode-$layout")
			R=$top/R W=$top/W2 G=$top/R/.git/worktrees/W2
			mkrepo "$who" "$R"
			gitas "$who" "$R" worktree add -q "$W" 2>"$T/err"
			check "$t: control: W2/.git is a gitdir file" "gitdir: $G" "$(cat "$W/.git" 2>&1)"
			echo two | as "$who" tee "$W/two.txt" >/dev/null
			as "$who" cp "$W/two.txt" "$W/three.txt"
			gitas "$who" "$W" add two.txt && gitas "$who" "$W" commit -q -m outside
			check "$t: control: git commit in W2 works outside" outside "$(gitas "$who" "$W" log -1 --format=%s 2>&1)"
			expect "$t: control: W2/.git is writable outside" ok "$(outside "$who" append "$W/.git" "")"
			if [ $layout = inside ]; then
				w="\"$W\",\"$G\",\"$R\""
			else
				w="\"$W\",\"$G\",\"$R/.git/objects\",\"$R/.git/refs\",\"$R/.git/logs\""
			fi
			p="{$mk\"writable\":[$w],$(gitenv "$W")}"
			check "$t: the plan carves by $mode" "$mode" "$(carve_of "$who" "$p")"
			if [ "$mode" = mounts ]; then E=EROFS; else E=EACCES; fi
			gitfile=$(md5sum <"$W/.git")

			sbsh "$who" "$p" "cd '$W' && git status --porcelain >/dev/null && echo status-ok"
			expect "$t: git status in W2 works" status-ok "$out"
			sbsh "$who" "$p" "cd '$W' && git add three.txt && git commit -q -m inside && git log -1 --format=%s"
			# W2's git dir keeps its commondir and config.worktree
			# (they decide which config and hooks git runs outside):
			# with mounts they are bound read-only and git works; with
			# expansion the git dir takes no new entries, so git stops
			# at its index.lock (documented, named in the notice).
			if [ "$mode" = mounts ]; then
				expect "$t: git add and git commit in W2 work" inside "$out"
				check "$t: ... the commit is there outside" inside "$(gitas "$who" "$W" log -1 --format=%s 2>&1)"
			else
				check_match "$t: git add stops at the worktree's index.lock (expansion, documented)" \
					"Unable to create '$G/index\.lock': Permission denied" "$(errs)"
				check_match "$t: ... the notice names the per-worktree git dir" \
					"new entries cannot be created directly in (.*, )?$G(,|$)" "$(errs)"
			fi
			expect "$t: W2's commondir cannot be rewritten" "$E" "$(op "$who" "$p" append "$G/commondir" "")"
			check "$t: ... no placeholder was put inside the per-worktree git dir" "" \
				"$(ls -A "$G" | grep -E '^\.(bashrc|envrc|vscode|git)$')"

			# W2/.git: overwritten, it would point git outside at
			# hooks and config of the command's choosing.
			expect "$t: W2/.git (the gitdir file) cannot be written" "$E" "$(op "$who" "$p" append "$W/.git" "")"
			sbsh "$who" "$p" "cd '$W' && echo 'gitdir: $top/decoy' > .git"
			check "$t: ... nor replaced through the shell" "$gitfile" "$(md5sum <"$W/.git")"
			if [ $layout = inside ]; then RE=$E; else RE=EACCES; fi
			expect "$t: R/.git/config cannot be written" "$RE" "$(op "$who" "$p" append "$R/.git/config" "# sbtest")"
			expect "$t: R/.git/hooks/pre-commit cannot be created" "$RE" "$(op "$who" "$p" create "$R/.git/hooks/pre-commit")"
			check "$t: W2 still works outside afterwards" "gitdir: $G" "$(head -n1 "$W/.git")"
		done
	done
done

done_testing

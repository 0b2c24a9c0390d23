#!/usr/bin/env bash
# A git linked worktree keeps working (issues 3 and 9), root and nobody,
# both carve modes.  Main repository R, `git worktree add W2`; W2/.git is a
# FILE ("gitdir: R/.git/worktrees/W2"), so the protect names under .git
# hit a non-directory on the way: that file must stay unwritable (it
# decides which hooks and config git runs outside), as must R's hooks and
# config and the per-worktree git dir's commondir.  Two layouts that list
# the per-worktree git dir:
#   inside:  writable [W2, R/.git/worktrees/W2, R]   (R writable too)
#   outside: writable [W2, R/.git/worktrees/W2, R/.git/objects,
#            R/.git/refs, R/.git/logs]               (R itself not)
# (git add needs the common object store, so the per-worktree git dir alone
# is never enough.)
#  - mounts, built-in protect list: git add and commit inside W2 succeed,
#    the protected files are read-only (EROFS), the missing
#    config.worktree is listed as unprotected and nothing is created in
#    the per-worktree git dir;
#  - expansion, built-in list: left out (never costs function): --check
#    plans "none", git add and commit in W2 work, commondir stays
#    writable, and the one "left out:" line names the existing built-in
#    names;
#  - expansion, explicit carve-outs (protect [.git/hooks/, .git/config] and
#    read_only on the per-worktree git dir's commondir and config.worktree,
#    which no protect name reaches): as before, EACCES, the per-worktree
#    git dir takes no new entries, so git stops at its index.lock —
#    documented, named in the notice.
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
			# pd: the profile whose denials are checked — the built-in
			# list with mounts, explicit carve-outs with expansion.
			pe="{$mk\"writable\":[$w],\"protect\":[\".git/hooks/\",\".git/config\"],\"read_only\":[\"$G/commondir\",\"$G/config.worktree\"],$(gitenv "$W")}"
			if [ "$mode" = mounts ]; then
				E=EROFS pd=$p lab=
				check "$t: the plan carves by mounts" mounts "$(carve_of "$who" "$p")"
			else
				E=EACCES pd=$pe lab="explicit: "
				check "$t: the plan carves nothing with the built-in list alone (\"none\")" none "$(carve_of "$who" "$p")"
				check "$t: the plan carves by expansion with explicit carve-outs" expansion "$(carve_of "$who" "$pe")"
			fi
			check "$t: the missing config.worktree of W2's git dir is listed as unprotected" listed \
				"$(listed "$G/config.worktree" "$(unprotected "$who" "$p")")"
			gitfile=$(md5sum <"$W/.git")

			sbsh "$who" "$pd" "cd '$W' && git status --porcelain >/dev/null && echo status-ok"
			expect "$t: ${lab}git status in W2 works" status-ok "$out"
			sbsh "$who" "$pd" "cd '$W' && git add three.txt && git commit -q -m inside && git log -1 --format=%s"
			# W2's git dir keeps its commondir and config.worktree
			# (they decide which config and hooks git runs outside):
			# with mounts they are bound read-only and git works; with
			# explicit expansion the git dir takes no new entries, so git
			# stops at its index.lock (documented, named in the notice).
			if [ "$mode" = mounts ]; then
				expect "$t: git add and git commit in W2 work" inside "$out"
				check "$t: ... the commit is there outside" inside "$(gitas "$who" "$W" log -1 --format=%s 2>&1)"
			else
				check_match "$t: explicit: git add stops at the worktree's index.lock (expansion, documented)" \
					"Unable to create '$G/index\.lock': Permission denied" "$(errs)"
				check_match "$t: ... the notice names the per-worktree git dir" \
					"new entries cannot be created directly in (.*, )?$G(,|$)" "$(errs)"
				check "$t: ... nothing was committed" outside "$(gitas "$who" "$W" log -1 --format=%s 2>&1)"
				# the built-in list alone: left out, git works
				sbsh "$who" "$p" "cd '$W' && git add three.txt && git commit -q -m inside && git log -1 --format=%s"
				expect "$t: built-in list: git add and git commit in W2 work" inside "$out"
				check "$t: ... the commit is there outside" inside "$(gitas "$who" "$W" log -1 --format=%s 2>&1)"
				qG=$(re "$G") qR=$(re "$R") qW=$(re "$W")
				# W2's gitfile and its git dir's commondir and gitdir,
				# as git resolves them (policy/fitgit.c)
				if [ $layout = inside ]; then
					# (R's .git is writable: the repository's own files
					# are protected too, each named once)
					names="$qR/\.git/hooks, $qR/\.git/config, $qR/\.git/info, $qW/\.git, $qG/commondir, $qG/gitdir"
				else
					names="$qW/\.git, $qG/commondir, $qG/gitdir"
				fi
				check_match "$t: ... one notice line names the existing built-in names" "$(left_builtin_re "$names")" "$(errs)"
				check "$t: ... and it is the only \"left out:\" line" 1 "$(left_lines)"
				check "$t: ... no expansion notice" "" "$(grep 'carve-outs by Landlock expansion' "$T/err")"
				# (git trims the trailing newline an append of "" adds)
				expect "$t: built-in list: W2's commondir stays writable (left out)" ok "$(op "$who" "$p" append "$G/commondir" "")"
				expect "$t: built-in list: W2/.git stays writable (left out)" ok "$(op "$who" "$p" append "$W/.git" "")"
				gitfile=$(md5sum <"$W/.git")
				check "$t: ... and git in W2 still works outside" inside "$(gitas "$who" "$W" log -1 --format=%s 2>&1)"
			fi
			expect "$t: ${lab}W2's commondir cannot be rewritten" "$E" "$(op "$who" "$pd" append "$G/commondir" "")"
			check "$t: ... no placeholder was put inside the per-worktree git dir" "" \
				"$(ls -A "$G" | grep -E '^(\.(bashrc|envrc|vscode|git)|config\.worktree)$')"

			# W2/.git: overwritten, it would point git outside at
			# hooks and config of the command's choosing.
			expect "$t: ${lab}W2/.git (the gitdir file) cannot be written" "$E" "$(op "$who" "$pd" append "$W/.git" "")"
			sbsh "$who" "$pd" "cd '$W' && echo 'gitdir: $top/decoy' > .git"
			check "$t: ... nor replaced through the shell" "$gitfile" "$(md5sum <"$W/.git")"
			# outside every writable tree: with mounts the read-only
			# mounts answer first (EROFS), without Landlock (EACCES)
			if [ $layout = inside ]; then RE=$E; elif [ "$mode" = mounts ]; then RE=EROFS; else RE=EACCES; fi
			expect "$t: ${lab}R/.git/config cannot be written" "$RE" "$(op "$who" "$pd" append "$R/.git/config" "# sbtest")"
			expect "$t: ${lab}R/.git/hooks/pre-commit cannot be created" "$RE" "$(op "$who" "$pd" create "$R/.git/hooks/pre-commit")"
			check "$t: W2 still works outside afterwards" "gitdir: $G" "$(head -n1 "$W/.git")"
		done
	done
done

done_testing

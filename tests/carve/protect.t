#!/usr/bin/env bash
# protect and read_only inside a writable workspace (issues 3 and 9), in
# both carve modes, as root and as nobody.  Two profiles per workspace:
# the built-in protect list (no "protect" key) and the same names given
# explicitly ("protect": [...]).
#  - mounts: existing protected names (.git/config, .git/hooks) stay
#    unwritable and uncreatable (EROFS) with either profile; new files
#    anywhere else (the root included) and git status/add/commit work;
#  - expansion, built-in list: it never costs function — .git/config and
#    .git/hooks are writable, new files at the root can be created, git
#    add/commit and renaming .git work — and the existing built-in names
#    are named on the one "left out:" notice line; --check plans "none";
#  - expansion, explicit list: Landlock expansion as before (EACCES; the
#    root and .git take no new entries, named in the notice; git add stops
#    at .git/index.lock); --check plans "expansion";
#  - read_only ".git" keeps all of .git unwritable in both modes;
#  - no placeholders: a protected name that does not exist (.envrc,
#    .cargo/config.toml) is never created by the sandbox; a built-in one is
#    listed in --check's "unprotected" (no notice), an explicit one gets a
#    "does not exist" notice (mounts); with mounts (and with the built-in
#    list without) the command can create it, and once it exists the next
#    run protects it; with explicit names and expansion it cannot be
#    created (EACCES); the plan has no "occupy" rule;
#  - a symlink already in a protected position (.vscode, .idea) is not
#    written through, nor are its targets (with expansion: when listed
#    explicitly; the built-in list leaves them writable and names them);
#  - .git cannot be renamed away or replaced by a symlink (with expansion:
#    when its names are listed explicitly).
# Every denial has a control: the same operation with "protect": [] (or on
# another path) in the same mode succeeds.
. "$(dirname "$0")/common.sh"

# The names the explicit profiles give (the built-in ones this test uses).
XNAMES='".git/hooks/",".git/config",".git/info/",".envrc",".cargo/config.toml"'

for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		if [ "$mode" = mounts ]; then E=EROFS; else E=EACCES; fi

		ws=$(mkws "$who" "prot-$mode")
		ctl=$(mkws "$who" "prot-ctl-$mode")   # the relaxed profile's workspace
		fn=$(mkws "$who" "prot-fn-$mode")     # built-in list, expansion: function
		mkrepo "$who" "$ws"
		mkrepo "$who" "$ctl"
		mkrepo "$who" "$fn"
		as "$who" mkdir "$ws/sub"
		p="{$mk\"writable\":[\"$ws\"],$(gitenv "$ws")}"
		px="{$mk\"writable\":[\"$ws\"],\"protect\":[$XNAMES],$(gitenv "$ws")}"
		relaxed="{$mk\"writable\":[\"$ctl\"],\"protect\":[],$(gitenv "$ctl")}"
		# pd: the profile whose denials are checked — the built-in list
		# with mounts, the explicit one with expansion (the built-in list
		# is left out there).
		if [ "$mode" = mounts ]; then pd=$p lab=; else pd=$px lab="explicit list: "; fi
		if [ "$mode" = mounts ]; then
			check "$t: the plan carves by mounts (built-in list)" mounts "$(carve_of "$who" "$p")"
		else
			check "$t: the plan carves nothing with the built-in list alone (\"none\")" none "$(carve_of "$who" "$p")"
		fi
		check "$t: the plan carves by $mode with the names listed explicitly" "$mode" "$(carve_of "$who" "$px")"
		check "$t: control: no carve-out inside the workspace with \"protect\": []" "" \
			"$(as "$who" "$SB" --check "$relaxed" | $PY -c 'import json,sys; print(" ".join(m["path"] for m in json.load(sys.stdin)["namespaces"]["mounts"] if m["path"].startswith(sys.argv[1]) and m["op"] != "writable"))' "$ctl")"
		check "$t: no mount rule is an \"occupy\" (no placeholders)" "" \
			"$( (mount_ops "$who" "$p"; mount_ops "$who" "$px") | grep '^occupy ')"
		cfg=$(md5sum <"$ws/.git/config")

		# --- .git/config and .git/hooks ---
		expect "$t: ${lab}appending to .git/config is refused" "$E" "$(op "$who" "$pd" append "$ws/.git/config" "# sbtest")"
		expect "$t: ${lab}creating .git/hooks/pre-commit is refused" "$E" "$(op "$who" "$pd" create "$ws/.git/hooks/pre-commit")"
		sbrun_msg=$(as "$who" "$SB" "$pd" -- /bin/sh -c 'echo x >> "$1/.git/config"' sh "$ws" 2>&1 >/dev/null)
		if [ "$mode" = mounts ]; then msg="Read-only file system"; else msg="Permission denied"; fi
		check_match "$t: ${lab}the shell says \"$msg\" for echo x >> .git/config" "cannot create .*\.git/config: $msg" "$sbrun_msg"
		check "$t: ... and .git/config is unchanged" "$cfg" "$(md5sum <"$ws/.git/config")"
		check "$t: ... and no pre-commit hook exists" absent "$([ -e "$ws/.git/hooks/pre-commit" ] && echo present || echo absent)"
		if [ "$mode" = mounts ]; then
			expect "$t: explicit list: appending to .git/config is refused too" EROFS "$(op "$who" "$px" append "$ws/.git/config" "# sbtest")"
			expect "$t: explicit list: creating .git/hooks/pre-commit is refused too" EROFS "$(op "$who" "$px" create "$ws/.git/hooks/pre-commit")"
		fi
		expect "$t: control: appending to .git/config works with \"protect\": []" ok "$(op "$who" "$relaxed" append "$ctl/.git/config" "# sbtest")"
		expect "$t: control: creating .git/hooks/pre-commit works with \"protect\": []" ok "$(op "$who" "$relaxed" create "$ctl/.git/hooks/pre-commit")"

		# --- expansion: the built-in list never costs function ---
		if [ "$mode" = expansion ]; then
			pf="{$mk\"writable\":[\"$fn\"],$(gitenv "$fn")}"
			q=$(re "$fn")
			expect "$t: built-in list: appending to .git/config works (left out)" ok "$(op "$who" "$pf" append "$fn/.git/config" "# sbtest")"
			check_match "$t: ... one notice line names the existing built-in names" \
				"$(left_builtin_re "$q/\.git/hooks, $q/\.git/config, $q/\.git/info")" "$(errs)"
			check "$t: ... and it is the only \"left out:\" line" 1 "$(left_lines)"
			check "$t: ... no expansion notice" "" "$(grep 'carve-outs by Landlock expansion' "$T/err")"
			check "$t: ... the .git names missing here are listed as unprotected" "listed listed" \
				"$(listed "$fn/.git/config.worktree" "$(unprotected "$who" "$pf")") $(listed "$fn/.envrc" "$(unprotected "$who" "$pf")")"
			expect "$t: built-in list: creating .git/hooks/pre-commit works (left out)" ok "$(op "$who" "$pf" create "$fn/.git/hooks/pre-commit")"
			expect "$t: built-in list: a new file at the workspace root can be created" ok "$(op "$who" "$pf" create "$fn/newfile")"
			sbsh "$who" "$pf" "cd '$fn' && git add newfile && git commit -q -m inside && git log -1 --format=%s"
			expect "$t: built-in list: git add and git commit work" inside "$out"
			check "$t: ... the commit is there outside" inside "$(gitas "$who" "$fn" log -1 --format=%s 2>&1)"
			sbsh "$who" "$pf" "cd '$fn' && mv .git git-away && mv git-away .git && echo renamed"
			expect "$t: built-in list: .git can be renamed away and back" renamed "$out"
		fi

		# --- new files in the workspace ---
		if [ "$mode" = mounts ]; then
			expect "$t: a new file at the workspace root can be created" ok "$(op "$who" "$p" create "$ws/newfile")"
			check "$t: ... no expansion notice" "" "$(grep 'carve-outs by Landlock expansion' "$T/err")"
		else
			expect "$t: explicit list: a new file at the workspace root cannot be created (expansion)" EACCES "$(op "$who" "$px" create "$ws/newfile")"
			check_match "$t: ... the notice names the workspace" "^__sandbox: notice: carve-outs by Landlock expansion \(mounts \"off\"\): new entries cannot be created directly in ([^ ]*, )?$ws," "$(errs)"
			check_match "$t: ... and its .git" "new entries cannot be created directly in .*$ws/\.git(,|$)" "$(errs)"
			check "$t: ... and no built-in protect is left out (the names are explicit)" "" "$(grep 'built-in protect' "$T/err")"
			expect "$t: control: a new file at the root works with \"protect\": []" ok "$(op "$who" "$relaxed" create "$ctl/newfile")"
		fi
		expect "$t: ${lab}a new file in a subdirectory can be created" ok "$(op "$who" "$pd" create "$ws/sub/newfile")"
		expect "$t: control: writing f.txt in place works" ok "$(op "$who" "$pd" append "$ws/f.txt" two)"

		# --- git ---
		sbrun_git() { sbsh "$who" "$pd" "cd '$ws' && $1"; }
		sbrun_git 'git status --porcelain >/dev/null && echo status-ok'
		expect "$t: ${lab}git status works" status-ok "$out"
		if [ "$mode" = mounts ]; then
			sbrun_git 'git add f.txt sub/newfile newfile && git commit -q -m inside && git log -1 --format=%s'
			expect "$t: git add and git commit work" inside "$out"
			check "$t: ... the commit is there outside" "inside" "$(gitas "$who" "$ws" log -1 --format=%s 2>&1)"
		else
			# Documented limitation of explicit .git names without a
			# namespace: .git takes no new entries, and git needs
			# .git/index.lock.
			sbrun_git 'git add f.txt sub/newfile'
			check_match "$t: explicit list: git add fails on .git/index.lock (expansion: no new entries in .git)" \
				"Unable to create '$ws/\.git/index\.lock': Permission denied" "$(errs)"
		fi

		# --- read_only ".git": all of it ---
		ro=$(mkws "$who" "prot-ro-$mode")
		mkrepo "$who" "$ro"
		as "$who" mkdir "$ro/sub"
		pro="{$mk\"writable\":[\"$ro\"],\"read_only\":[\"$ro/.git\"],\"protect\":[],$(gitenv "$ro")}"
		check "$t: read_only .git: the plan carves by $mode" "$mode" "$(carve_of "$who" "$pro")"
		expect "$t: read_only .git: a new file in .git is refused" "$E" "$(op "$who" "$pro" create "$ro/.git/newfile")"
		expect "$t: read_only .git: appending to .git/config is refused" "$E" "$(op "$who" "$pro" append "$ro/.git/config" "# sbtest")"
		expect "$t: read_only .git: writing .git/HEAD is refused" "$E" "$(op "$who" "$pro" append "$ro/.git/HEAD" "")"
		expect "$t: read_only .git: control: a new file in the workspace works" ok "$(op "$who" "$pro" create "$ro/sub/new")"
		sbsh "$who" "$pro" "cd '$ro' && git status --porcelain && echo status-ok"
		expect "$t: read_only .git: git status works" "?? sub/
status-ok" "$out"
		expect "$t: control: a new file in .git works with \"protect\": [] alone" ok "$(op "$who" "$relaxed" create "$ctl/.git/newfile")"

		# --- a missing protected name: .envrc (no placeholder) ---
		as "$who" "$SB" "$p" -- /bin/true 2>"$T/err"
		check "$t: built-in list: a run creates nothing for the missing .envrc" absent "$([ -e "$ws/.envrc" ] || [ -L "$ws/.envrc" ] && echo present || echo absent)"
		check "$t: ... nor .cargo for the missing .cargo/config.toml" absent "$([ -e "$ws/.cargo" ] && echo present || echo absent)"
		check "$t: ... and no notice names them" "" "$(grep -E '\.envrc|\.cargo' "$T/err")"
		up=$(unprotected "$who" "$p")
		check "$t: ... --check lists them as unprotected" "listed listed" \
			"$(listed "$ws/.envrc" "$up") $(listed "$ws/.cargo/config.toml" "$up")"
		check "$t: ... but not the existing .git/config" missing "$(listed "$ws/.git/config" "$up")"
		check "$t: explicit list: --check lists none as unprotected" "" "$(unprotected "$who" "$px")"
		if [ "$mode" = mounts ]; then
			as "$who" "$SB" "$px" -- /bin/true 2>"$T/err"
			check "$t: explicit list: a notice says the missing .envrc is not protected" \
				"__sandbox: notice: .protect[3] \"$ws/.envrc\": does not exist, so it is not protected against creation (nothing is created to hold a mount)" \
				"$(grep -F '.protect[3]' "$T/err")"
			check "$t: ... and .cargo/config.toml" \
				"__sandbox: notice: .protect[4] \"$ws/.cargo/config.toml\": does not exist, so it is not protected against creation (nothing is created to hold a mount)" \
				"$(grep -F '.protect[4]' "$T/err")"
			check "$t: ... and nothing was created for them" absent \
				"$([ -e "$ws/.envrc" ] || [ -e "$ws/.cargo" ] && echo present || echo absent)"
			# the command can create it; the next run protects it
			expect "$t: .envrc (missing) can be created by the command" ok "$(op "$who" "$p" write "$ws/.envrc")"
			check "$t: ... it is there outside" "x" "$(cat "$ws/.envrc" 2>&1)"
			expect "$t: ... once it exists, the next run cannot append to it" EROFS "$(op "$who" "$p" append "$ws/.envrc" "export X=1")"
			sbsh "$who" "$p" "echo 'export X=1' > '$ws/.envrc'"
			check "$t: ... nor overwrite it through the shell" "x" "$(cat "$ws/.envrc" 2>&1)"
			check "$t: ... and it is no longer listed as unprotected" missing "$(listed "$ws/.envrc" "$(unprotected "$who" "$p")")"
			# deeper down: .cargo/config.toml
			expect "$t: .cargo/config.toml (missing, and .cargo too) cannot be opened: no .cargo" ENOENT \
				"$(op "$who" "$p" write "$ws/.cargo/config.toml")"
			expect "$t: ... the command can make .cargo" ok "$(op "$who" "$p" mkdir "$ws/.cargo")"
			expect "$t: ... and create .cargo/config.toml" ok "$(op "$who" "$p" write "$ws/.cargo/config.toml")"
			check "$t: ... both are there outside" "dir x" \
				"$([ -d "$ws/.cargo" ] && [ ! -L "$ws/.cargo" ] && echo dir || echo not-dir) $(cat "$ws/.cargo/config.toml" 2>&1)"
			expect "$t: ... once it exists, the next run cannot append to it" EROFS "$(op "$who" "$p" append "$ws/.cargo/config.toml" "[x]")"
		else
			# explicit names, expansion: the root takes no new entries
			expect "$t: explicit list: .envrc (missing) cannot be created" EACCES "$(op "$who" "$px" write "$ws/.envrc")"
			check "$t: ... nothing was written there" absent "$([ -e "$ws/.envrc" ] && echo present || echo absent)"
			sbsh "$who" "$px" "echo 'export X=1' > '$ws/.envrc'; mkdir -p '$ws/.envrc' 2>/dev/null; cat '$ws/.envrc' 2>/dev/null"
			check "$t: ... not through the shell either" "" "$out"
			check "$t: ... no \"does not exist\" notice (expansion protects it)" "" "$(grep 'does not exist' "$T/err")"
			expect "$t: explicit list: .cargo/config.toml (missing) cannot be created" ENOENT \
				"$(op "$who" "$px" write "$ws/.cargo/config.toml")"
			expect "$t: ... nor its directory .cargo" EACCES "$(op "$who" "$px" mkdir "$ws/.cargo")"
			check "$t: ... .cargo is absent outside" absent "$([ -e "$ws/.cargo" ] && echo present || echo absent)"
			# built-in list: the command can create them; once they
			# exist they are named on the left-out line, still writable
			pf="{$mk\"writable\":[\"$fn\"],$(gitenv "$fn")}"
			pfx="{$mk\"writable\":[\"$fn\"],\"protect\":[$XNAMES],$(gitenv "$fn")}"
			expect "$t: built-in list: .envrc (missing) can be created by the command" ok "$(op "$who" "$pf" write "$fn/.envrc")"
			expect "$t: ... and .cargo, then .cargo/config.toml in it" "ok ok" \
				"$(op "$who" "$pf" mkdir "$fn/.cargo") $(op "$who" "$pf" write "$fn/.cargo/config.toml")"
			expect "$t: ... once they exist, the next run can still append to them" "ok ok" \
				"$(op "$who" "$pf" append "$fn/.envrc" "export X=1") $(op "$who" "$pf" append "$fn/.cargo/config.toml" "[x]")"
			q=$(re "$fn")
			check_match "$t: ... and names them on the left-out line" \
				"$(left_builtin_re "$q/\.git/hooks, $q/\.git/config, $q/\.git/info, $q/\.envrc, $q/\.cargo/config\.toml")" "$(errs)"
			expect "$t: explicit list: an existing .envrc cannot be appended to" EACCES "$(op "$who" "$pfx" append "$fn/.envrc" "export Y=1")"
			check "$t: ... it is unchanged" "x
export X=1" "$(cat "$fn/.envrc" 2>&1)"
		fi
		expect "$t: control: .envrc can be created with \"protect\": []" ok "$(op "$who" "$relaxed" write "$ctl/.envrc")"

		# --- a symlink already in a protected position ---
		# .vscode -> tools/vs (inside the workspace), .idea -> a second
		# writable tree: writing through either must fail (a covered link
		# with mounts; expansion must not follow it).
		lk=$(mkws "$who" "prot-link-$mode")
		other=$(mkws "$who" "prot-other-$mode")
		as "$who" mkdir -p "$lk/tools/vs" "$other/idea"
		as "$who" ln -s tools/vs "$lk/.vscode"
		as "$who" ln -s "$other/idea" "$lk/.idea"
		pl="{$mk\"writable\":[\"$lk\",\"$other\"]}"
		plx="{$mk\"writable\":[\"$lk\",\"$other\"],\"protect\":[\".vscode/\",\".idea/\"]}"
		if [ "$mode" = mounts ]; then pld=$pl lab=; else pld=$plx lab="explicit list: "; fi
		check_match "$t: ${lab}writing through the .vscode symlink (into the workspace) is refused" '^E(ROFS|ACCES|NOTDIR|NOENT)$' \
			"$(op "$who" "$pld" write "$lk/.vscode/tasks.json")"
		check "$t: ... nothing reached its target" absent "$([ -e "$lk/tools/vs/tasks.json" ] && echo present || echo absent)"
		check_match "$t: ${lab}writing through the .idea symlink (into another writable tree) is refused" '^E(ROFS|ACCES|NOTDIR|NOENT)$' \
			"$(op "$who" "$pld" write "$lk/.idea/workspace.xml")"
		check "$t: ... nothing reached its target" absent "$([ -e "$other/idea/workspace.xml" ] && echo present || echo absent)"
		expect "$t: control: writing through the .vscode symlink works outside the sandbox" ok "$(outside "$who" write "$lk/.vscode/outside.json")"
		# The targets lie in writable trees and a host editor reads them
		# through the link: they are carved too, while their siblings stay
		# writable (control).
		check_match "$t: ${lab}the .vscode target is not writable by its own path either" '^E(ROFS|ACCES)$' \
			"$(op "$who" "$pld" write "$lk/tools/vs/direct.json")"
		check_match "$t: ${lab}the .idea target is not writable by its own path either" '^E(ROFS|ACCES)$' \
			"$(op "$who" "$pld" write "$other/idea/direct.xml")"
		as "$who" mkdir -p "$other/sibling"
		expect "$t: control: a sibling of the .idea target stays writable" ok "$(op "$who" "$pld" write "$other/sibling/x")"
		expect "$t: ${lab}the .vscode symlink cannot be removed" "$([ "$mode" = mounts ] && echo EBUSY || echo EACCES)" "$(op "$who" "$pld" unlink "$lk/.vscode")"
		check "$t: ... it is still the same link" tools/vs "$(readlink "$lk/.vscode")"
		if [ "$mode" = expansion ]; then
			# the built-in list: links and targets left out, named
			expect "$t: built-in list: writing through the .vscode symlink works (left out)" ok "$(op "$who" "$pl" write "$lk/.vscode/builtin.json")"
			check "$t: ... it reached its target" present "$([ -e "$lk/tools/vs/builtin.json" ] && echo present || echo absent)"
			ql=$(re "$lk") qo=$(re "$other")
			check_match "$t: ... the left-out line names the links and their targets" \
				"$(left_builtin_re "$ql/\.vscode, $ql/\.idea, $ql/tools/vs, $qo/idea")" "$(errs)"
			expect "$t: built-in list: writing through the .idea symlink works (left out)" ok "$(op "$who" "$pl" write "$lk/.idea/builtin.xml")"
			check "$t: ... it reached its target" present "$([ -e "$other/idea/builtin.xml" ] && echo present || echo absent)"
		fi

		# --- .git renamed away or replaced by a symlink (last: destructive) ---
		as "$who" mkdir -p "$ws/decoy/hooks"
		expect "$t: ${lab}renaming .git away is refused" "$([ "$mode" = mounts ] && echo EBUSY || echo EACCES)" \
			"$(op "$who" "$pd" rename "$ws/.git" "$ws/git-away")"
		sbsh "$who" "$pd" "cd '$ws' && rm -rf .git; ln -s decoy .git; echo done"
		check "$t: ${lab}rm -rf .git; ln -s decoy .git runs to its end" done "$out"
		check "$t: ... .git is still a directory, not a symlink" dir \
			"$([ -d "$ws/.git" ] && [ ! -L "$ws/.git" ] && echo dir || ls -ld "$ws/.git")"
		check "$t: ... .git/config is unchanged" "$cfg" "$(md5sum <"$ws/.git/config" 2>&1)"
		check "$t: ... .git/hooks is still a directory" dir "$([ -d "$ws/.git/hooks" ] && [ ! -L "$ws/.git/hooks" ] && echo dir || echo gone)"
		sbsh "$who" "$relaxed" "cd '$ctl' && mkdir decoy && rm -rf .git && ln -s decoy .git && echo done"
		check "$t: control: the same replacement works with \"protect\": []" "done symlink" \
			"$out $([ -L "$ctl/.git" ] && echo symlink || echo not-a-symlink)"
	done
done

done_testing

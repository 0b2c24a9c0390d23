#!/usr/bin/env bash
# protect and read_only inside a writable workspace (issue 3), in both carve
# modes, as root and as nobody:
#  - .git/config and .git/hooks stay unwritable and uncreatable (EROFS with
#    mounts, EACCES with expansion), read_only ".git" keeps all of .git so;
#  - with mounts new files anywhere else (the root included) and git
#    status/add/commit work; with expansion the workspace root and .git take
#    no new entries (named in the notice) while a subdirectory does;
#  - a missing protected name (.envrc) cannot be created, .git cannot be
#    renamed away or replaced by a symlink, and a symlink already sitting in
#    a protected position is not written through.
# Every denial has a control: the same operation with "protect": [] (or on
# another path) in the same mode succeeds.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		if [ "$mode" = mounts ]; then E=EROFS; else E=EACCES; fi

		ws=$(mkws "$who" "prot-$mode")
		ctl=$(mkws "$who" "prot-ctl-$mode")   # the relaxed profile's workspace
		mkrepo "$who" "$ws"
		mkrepo "$who" "$ctl"
		as "$who" mkdir "$ws/sub"
		p="{$mk\"writable\":[\"$ws\"],$(gitenv "$ws")}"
		relaxed="{$mk\"writable\":[\"$ctl\"],\"protect\":[],$(gitenv "$ctl")}"
		check "$t: the plan carves by $mode" "$mode" "$(carve_of "$who" "$p")"
		check "$t: control: no carve-out inside the workspace with \"protect\": []" "" \
			"$(as "$who" "$SB" --check "$relaxed" | $PY -c 'import json,sys; print(" ".join(m["path"] for m in json.load(sys.stdin)["namespaces"]["mounts"] if m["path"].startswith(sys.argv[1])))' "$ctl")"
		cfg=$(md5sum <"$ws/.git/config")

		# --- .git/config and .git/hooks ---
		expect "$t: appending to .git/config is refused" "$E" "$(op "$who" "$p" append "$ws/.git/config" "# sbtest")"
		expect "$t: creating .git/hooks/pre-commit is refused" "$E" "$(op "$who" "$p" create "$ws/.git/hooks/pre-commit")"
		sbrun_msg=$(as "$who" "$SB" "$p" -- /bin/sh -c 'echo x >> "$1/.git/config"' sh "$ws" 2>&1 >/dev/null)
		if [ "$mode" = mounts ]; then msg="Read-only file system"; else msg="Permission denied"; fi
		check_match "$t: the shell says \"$msg\" for echo x >> .git/config" "cannot create .*\.git/config: $msg" "$sbrun_msg"
		check "$t: ... and .git/config is unchanged" "$cfg" "$(md5sum <"$ws/.git/config")"
		check "$t: ... and no pre-commit hook exists" absent "$([ -e "$ws/.git/hooks/pre-commit" ] && echo present || echo absent)"
		expect "$t: control: appending to .git/config works with \"protect\": []" ok "$(op "$who" "$relaxed" append "$ctl/.git/config" "# sbtest")"
		expect "$t: control: creating .git/hooks/pre-commit works with \"protect\": []" ok "$(op "$who" "$relaxed" create "$ctl/.git/hooks/pre-commit")"

		# --- new files in the workspace ---
		if [ "$mode" = mounts ]; then
			expect "$t: a new file at the workspace root can be created" ok "$(op "$who" "$p" create "$ws/newfile")"
			check "$t: ... no expansion notice" "" "$(grep 'expansion' "$T/err")"
		else
			expect "$t: a new file at the workspace root cannot be created (expansion)" EACCES "$(op "$who" "$p" create "$ws/newfile")"
			check_match "$t: ... the notice names the workspace" "^__sandbox: notice: carve-outs by Landlock expansion \(mounts \"off\"\): new entries cannot be created directly in ([^ ]*, )?$ws," "$(errs)"
			check_match "$t: ... and its .git" "new entries cannot be created directly in .*$ws/\.git(,|$)" "$(errs)"
			expect "$t: control: a new file at the root works with \"protect\": []" ok "$(op "$who" "$relaxed" create "$ctl/newfile")"
		fi
		expect "$t: a new file in a subdirectory can be created" ok "$(op "$who" "$p" create "$ws/sub/newfile")"
		expect "$t: control: writing f.txt in place works" ok "$(op "$who" "$p" append "$ws/f.txt" two)"

		# --- git ---
		sbrun_git() { sbsh "$who" "$p" "cd '$ws' && $1"; }
		sbrun_git 'git status --porcelain >/dev/null && echo status-ok'
		expect "$t: git status works" status-ok "$out"
		if [ "$mode" = mounts ]; then
			sbrun_git 'git add f.txt sub/newfile newfile && git commit -q -m inside && git log -1 --format=%s'
			expect "$t: git add and git commit work" inside "$out"
			check "$t: ... the commit is there outside" "inside" "$(gitas "$who" "$ws" log -1 --format=%s 2>&1)"
		else
			# Documented limitation: .git takes no new entries, and git
			# needs .git/index.lock.
			sbrun_git 'git add f.txt sub/newfile'
			check_match "$t: git add fails on .git/index.lock (expansion: no new entries in .git)" \
				"Unable to create '$ws/\.git/index\.lock': Permission denied" "$(errs)"
		fi

		# --- read_only ".git": all of it ---
		ro=$(mkws "$who" "prot-ro-$mode")
		mkrepo "$who" "$ro"
		as "$who" mkdir "$ro/sub"
		pro="{$mk\"writable\":[\"$ro\"],\"read_only\":[\"$ro/.git\"],\"protect\":[],$(gitenv "$ro")}"
		expect "$t: read_only .git: a new file in .git is refused" "$E" "$(op "$who" "$pro" create "$ro/.git/newfile")"
		expect "$t: read_only .git: appending to .git/config is refused" "$E" "$(op "$who" "$pro" append "$ro/.git/config" "# sbtest")"
		expect "$t: read_only .git: writing .git/HEAD is refused" "$E" "$(op "$who" "$pro" append "$ro/.git/HEAD" "")"
		expect "$t: read_only .git: control: a new file in the workspace works" ok "$(op "$who" "$pro" create "$ro/sub/new")"
		sbsh "$who" "$pro" "cd '$ro' && git status --porcelain && echo status-ok"
		expect "$t: read_only .git: git status works" "?? sub/
status-ok" "$out"
		expect "$t: control: a new file in .git works with \"protect\": [] alone" ok "$(op "$who" "$relaxed" create "$ctl/.git/newfile")"

		# --- a missing protected name: .envrc ---
		# (with mounts an empty mode-0000 placeholder sits there: EACCES
		# or EROFS, whichever the kernel checks first)
		check_match "$t: .envrc (missing) cannot be created" "^($E|EACCES)\$" "$(op "$who" "$p" write "$ws/.envrc")"
		check "$t: ... nothing was written there" empty "$([ -s "$ws/.envrc" ] && echo written || echo empty)"
		sbsh "$who" "$p" "echo 'export X=1' > '$ws/.envrc'; mkdir -p '$ws/.envrc' 2>/dev/null; cat '$ws/.envrc' 2>/dev/null"
		check "$t: ... not through the shell either" "" "$out"
		expect "$t: control: .envrc can be created with \"protect\": []" ok "$(op "$who" "$relaxed" write "$ctl/.envrc")"
		# a protected name deeper down: .cargo/config.toml
		# (with mounts the missing .cargo gets a directory placeholder,
		# covered read-only inside; outside it is an ordinary empty dir)
		expect "$t: .cargo/config.toml (missing) cannot be created" "$([ "$mode" = mounts ] && echo EROFS || echo ENOENT)" \
			"$(op "$who" "$p" write "$ws/.cargo/config.toml")"
		expect "$t: ... nor its directory .cargo" "$([ "$mode" = mounts ] && echo EEXIST || echo EACCES)" \
			"$(op "$who" "$p" mkdir "$ws/.cargo")"
		# (later runs find .cargo and put file placeholders for
		# config.toml and config inside it)
		check "$t: ... .cargo is a directory outside (mounts) or absent (expansion)" \
			"$([ "$mode" = mounts ] && echo dir || echo absent)" \
			"$(if [ -d "$ws/.cargo" ] && [ ! -L "$ws/.cargo" ]; then echo dir; elif [ -e "$ws/.cargo" ]; then echo other; else echo absent; fi)"

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
		check_match "$t: writing through the .vscode symlink (into the workspace) is refused" '^E(ROFS|ACCES|NOTDIR|NOENT)$' \
			"$(op "$who" "$pl" write "$lk/.vscode/tasks.json")"
		check "$t: ... nothing reached its target" absent "$([ -e "$lk/tools/vs/tasks.json" ] && echo present || echo absent)"
		check_match "$t: writing through the .idea symlink (into another writable tree) is refused" '^E(ROFS|ACCES|NOTDIR|NOENT)$' \
			"$(op "$who" "$pl" write "$lk/.idea/workspace.xml")"
		check "$t: ... nothing reached its target" absent "$([ -e "$other/idea/workspace.xml" ] && echo present || echo absent)"
		expect "$t: control: writing through the .vscode symlink works outside the sandbox" ok "$(outside "$who" write "$lk/.vscode/outside.json")"
		# The targets lie in writable trees and a host editor reads them
		# through the link: they are carved too, while their siblings stay
		# writable (control).
		check_match "$t: the .vscode target is not writable by its own path either" '^E(ROFS|ACCES)$' \
			"$(op "$who" "$pl" write "$lk/tools/vs/direct.json")"
		check_match "$t: the .idea target is not writable by its own path either" '^E(ROFS|ACCES)$' \
			"$(op "$who" "$pl" write "$other/idea/direct.xml")"
		as "$who" mkdir -p "$other/sibling"
		expect "$t: control: a sibling of the .idea target stays writable" ok "$(op "$who" "$pl" write "$other/sibling/x")"
		expect "$t: the .vscode symlink cannot be removed" "$([ "$mode" = mounts ] && echo EBUSY || echo EACCES)" "$(op "$who" "$pl" unlink "$lk/.vscode")"
		check "$t: ... it is still the same link" tools/vs "$(readlink "$lk/.vscode")"

		# --- .git renamed away or replaced by a symlink (last: destructive) ---
		as "$who" mkdir -p "$ws/decoy/hooks"
		expect "$t: renaming .git away is refused" "$([ "$mode" = mounts ] && echo EBUSY || echo EACCES)" \
			"$(op "$who" "$p" rename "$ws/.git" "$ws/git-away")"
		sbsh "$who" "$p" "cd '$ws' && rm -rf .git; ln -s decoy .git; echo done"
		check "$t: rm -rf .git; ln -s decoy .git runs to its end" done "$out"
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

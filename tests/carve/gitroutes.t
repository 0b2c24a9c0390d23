#!/usr/bin/env bash
# Git's own routes to code run later as the user (issue 10 §2): protection
# follows how git resolves a repository, not a fixed list of names.  Each
# route gets its own workspace; the attempted write is one a command could
# use to run code on the user's next git command or login:
#   hookspath   core.hooksPath inside the workspace (husky's .husky/_,
#               .githooks): a new hook there
#   include     include.path and includeIf targets: core.fsmonitor
#               appended to an included file
#   worktree    "writable":[wt, R/.git]: a linked worktree's commondir,
#               gitdir and config.worktree
#   submodule   the submodule's gitfile rewritten, a hook in .git/modules
#   nested      a workspace holding two repositories: their config, hooks
#   home        HOME inside the workspace: ~/.ssh/config, ~/.gitconfig,
#               ~/.bash_profile, ~/.kube/config, ~/.docker/config.json
# Modes: mounts (EROFS), "mounts":"off" and namespaces refused
# (tests/helpers/nons): the routes are part of the built-in list, which is
# left out there with one notice naming them, and the same route listed in
# protect_extra is enforced by expansion (EACCES).  Controls: the same
# write with "protect": [] succeeds; git init/add/commit, worktree add and
# submodule add/status still work in a protected workspace.
. "$(dirname "$0")/common.sh"

MODES="mounts expansion nons"
if [ ! -x "$HELPERS/nons" ]; then
	echo "Bail out! $HELPERS/nons is missing (make tests)"
	exit 1
fi

# keys MODE — the profile keys of the mode.
keys() {
	case $1 in
	mounts) echo "" ;;
	expansion) echo "\"mounts\":\"off\",$UNF," ;;
	nons) echo "$UNF," ;;
	esac
}
# sb_on MODE / sb_off — run `as` under tests/helpers/nons in the nons mode.
sb_on() { NONS=; [ "$1" = nons ] && NONS=$HELPERS/nons; return 0; }
sb_off() { NONS=; }

# g WHO DIR ARGS... — git as WHO outside, no user config.
g() { gitas "$@" >/dev/null 2>&1; }

# route WHO MODE NAME WS PATH OP PROFILE_EXTRA PROTECT_EXTRA NAMED — one
# route: OP (append/create) on PATH inside workspace WS; NAMED is the
# protected path the left-out notice names (PATH itself, or the directory
# a new hook would go in).  PATH is restored afterwards.
route() {
	local who=$1 mode=$2 name=$3 ws=$4 path=$5 opn=$6 extra=$7 px=$8 named=${9:-$5}
	local save=$T/route.save
	[ -f "$path" ] && cp -p "$path" "$save"
	local t="$who/$mode: $name"
	local k
	k=$(keys "$mode")
	local p="{$k\"writable\":[\"$ws\"$extra]}"
	sb_on "$mode"
	if [ "$mode" = mounts ]; then
		expect "$t: $opn $path is refused (EROFS)" EROFS "$(op "$who" "$p" "$opn" "$path" "[core] fsmonitor = evil")"
	else
		expect "$t: without a namespace the built-in routes are left out: $opn works" ok \
			"$(op "$who" "$p" "$opn" "$path" "[core] fsmonitor = evil")"
		check_match "$t: ... and the one left-out notice names $path" \
			"^__sandbox: notice: left out: built-in protect of ([^;]*, )?$(re "$named")(,|[ ]\()" "$(errs)"
		check "$t: ... as its only left-out line" 1 "$(left_lines)"
		# the same route listed explicitly: expansion enforces it
		[ "$opn" = create ] && rm -f "$path"
		local pe="{$k\"writable\":[\"$ws\"$extra],\"protect_extra\":[\"$px\"]}"
		expect "$t: protect_extra \"$px\": $opn is refused (EACCES)" EACCES \
			"$(op "$who" "$pe" "$opn" "$path" "[core] fsmonitor = evil2")"
		check "$t: ... and nothing was written" "" "$(grep -s evil2 "$path")"
	fi
	local ctl="{$k\"writable\":[\"$ws\"$extra],\"protect\":[]}"
	expect "$t: control: with \"protect\": [] $opn works" ok \
		"$(op "$who" "$ctl" "$opn" "$path" "[core] fsmonitor = control")"
	sb_off
	[ "$opn" = create ] && rm -f "$path"
	[ -f "$save" ] && cat "$save" >"$path" && rm -f "$save"
	return 0
}

for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		if [ "$mode" = mounts ] && ! mounts_ok "$who"; then
			skip "$t: no mount namespace for $who on this machine"
			continue
		fi

		# --- core.hooksPath: husky's .husky/_ and a .githooks ---
		W=$(mkws "$who" "hp-$mode")
		mkrepo "$who" "$W/a"
		as "$who" mkdir -p "$W/a/.husky/_" "$W/a/.githooks"
		g "$who" "$W/a" config core.hooksPath .husky/_
		route "$who" "$mode" "core.hooksPath .husky/_" "$W" "$W/a/.husky/_/pre-commit" create "" "a/.husky/_/" "$W/a/.husky/_"
		if [ "$mode" = mounts ]; then
			check "$t: hookspath: --check names the route" \
				".protect (core.hooksPath in $W/a/.git/config)" \
				"$(as "$who" "$SB" --check "{\"writable\":[\"$W\"]}" 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(m["from"] for m in d["namespaces"]["mounts"] if m["path"] == sys.argv[1]))' "$W/a/.husky/_")"
		fi
		g "$who" "$W/a" config core.hooksPath .githooks
		route "$who" "$mode" "core.hooksPath .githooks" "$W" "$W/a/.githooks/post-checkout" create "" "a/.githooks/" "$W/a/.githooks"

		# --- include.path and includeIf targets ---
		W=$(mkws "$who" "inc-$mode")
		mkrepo "$who" "$W/r"
		as "$who" mkdir "$W/r/conf"
		echo "[user]" | as "$who" tee "$W/r/conf/one.inc" "$W/r/conf/cond.inc" >/dev/null
		g "$who" "$W/r" config include.path ../conf/one.inc
		g "$who" "$W/r" config 'includeIf.gitdir:/.path' ../conf/cond.inc
		route "$who" "$mode" "include.path" "$W" "$W/r/conf/one.inc" append "" "r/conf/one.inc"
		route "$who" "$mode" "includeIf" "$W" "$W/r/conf/cond.inc" append "" "r/conf/cond.inc"
		check "$t: include: git outside sees no core.fsmonitor from the sandbox" "" \
			"$(gitas "$who" "$W/r" config --get core.fsmonitor 2>/dev/null | grep -v control)"

		# --- linked worktree, "writable":[wt, R/.git] ---
		R=$(mkws "$who" "lw-$mode")/repo
		WT=$(mkws "$who" "lw-wt-$mode")/wt
		mkrepo "$who" "$R"
		g "$who" "$R" worktree add -q "$WT" -b "b-$mode"
		g "$who" "$R" config extensions.worktreeConfig true
		g "$who" "$WT" config --worktree user.name wt
		G=$R/.git/worktrees/wt
		for f in commondir gitdir config.worktree; do
			route "$who" "$mode" "linked worktree $f" "$WT" "$G/$f" append ",\"$R/.git\"" ".git/worktrees/wt/$f"
		done
		check "$t: worktree: git still works in the linked worktree outside" ok \
			"$(gitas "$who" "$WT" status --porcelain >/dev/null 2>&1 && echo ok)"

		# --- submodule gitfile and .git/modules ---
		W=$(mkws "$who" "sm-$mode")
		L=$(mkws "$who" "sm-lib-$mode")
		mkrepo "$who" "$L"
		mkrepo "$who" "$W/sup"
		g "$who" "$W/sup" -c protocol.file.allow=always submodule add -q "$L" vendor/lib
		if [ ! -f "$W/sup/vendor/lib/.git" ]; then
			not_ok "$t: fixture: a submodule with a gitfile"
		else
			route "$who" "$mode" "submodule gitfile" "$W" "$W/sup/vendor/lib/.git" append "" "sup/vendor/lib/.git"
			route "$who" "$mode" "submodule git dir" "$W" "$W/sup/.git/modules/vendor/lib/hooks/pre-commit" create "" "sup/.git/modules/" "$W/sup/.git/modules/vendor/lib/hooks"
		fi

		# --- a workspace holding two repositories ---
		W=$(mkws "$who" "nest-$mode")
		mkrepo "$who" "$W/one"
		mkrepo "$who" "$W/two/deeper"
		route "$who" "$mode" "nested repository config" "$W" "$W/one/.git/config" append "" "one/.git/config"
		route "$who" "$mode" "nested repository hook" "$W" "$W/two/deeper/.git/hooks/pre-commit" create "" "two/deeper/.git/hooks/" "$W/two/deeper/.git/hooks"

		# --- HOME inside the workspace ---
		W=$(mkws "$who" "home-$mode")
		H=$W/home
		as "$who" mkdir -p "$H/.ssh" "$H/.kube" "$H/.docker"
		for f in .ssh/config .gitconfig .bash_profile .kube/config .docker/config.json; do
			echo "# $f" | as "$who" tee "$H/$f" >/dev/null
		done
		for f in .ssh/config .gitconfig .bash_profile .kube/config .docker/config.json; do
			named=$H/$f
			[ "$f" = .ssh/config ] && named=$H/.ssh   # the whole directory
			route "$who" "$mode" "~/$f" "$W" "$H/$f" append ",\"$W\"],\"env\":{\"set\":{\"HOME\":\"$H\"}},\"readable\":[\"/\"" "home/$f" "$named"
		done
		check_match "$t: home: --check remarks that PATH directories in a writable home stay writable" \
			"holds the home $(re "$H"): its PATH directories" \
			"$(plan_q "$who" "{$(keys "$mode")\"writable\":[\"$W\"],\"env\":{\"set\":{\"HOME\":\"$H\"}}}" '"\n".join(d["remarks"])')"

		# --- HOME outside the workspace, its dotfiles symlinked into it
		# (a dotfiles repository): the names are found by listing the
		# home once, and each present one is followed to the tree; a
		# name under a symlinked directory (~/.config -> tree) too ---
		W=$(mkws "$who" "dotfiles-$mode")
		H=$(mkws "$who" "dotfiles-home-$mode")
		as "$who" mkdir -p "$W/dot/config/git" "$W/dot/ssh"
		for f in bashrc gitconfig config/git/config ssh/config; do
			echo "# $f" | as "$who" tee "$W/dot/$f" >/dev/null
		done
		as "$who" ln -sfn "$W/dot/bashrc" "$H/.bashrc"
		as "$who" ln -sfn "$W/dot/gitconfig" "$H/.gitconfig"
		as "$who" ln -sfn "$W/dot/config" "$H/.config"
		as "$who" ln -sfn "$W/dot/ssh" "$H/.ssh"
		for f in bashrc gitconfig config/git/config ssh/config; do
			named=$W/dot/$f
			[ "$f" = config/git/config ] && named=$W/dot/config/git
			[ "$f" = ssh/config ] && named=$W/dot/ssh
			route "$who" "$mode" "~ symlinked to dot/$f" "$W" "$W/dot/$f" append "],\"env\":{\"set\":{\"HOME\":\"$H\"}},\"readable\":[\"/\"" "dot/$f" "$named"
		done

		# --- ordinary work still works in a protected workspace ---
		W=$(mkws "$who" "work-$mode")
		L=$(mkws "$who" "work-lib-$mode")
		mkrepo "$who" "$L"
		mkrepo "$who" "$W/main"
		as "$who" mkdir -p "$W/main/.husky/_"
		g "$who" "$W/main" config core.hooksPath .husky/_
		p="{$(keys "$mode")\"writable\":[\"$W\"],$(gitenv "$W")}"
		sb_on "$mode"
		sbsh "$who" "$p" "cd '$W' && git init -q fresh && cd fresh && echo x > f && git add f && git commit -q -m c1 && echo init-ok"
		expect "$t: work: git init, add, commit in a new repository" init-ok "$out"
		sbsh "$who" "$p" "cd '$W/main' && echo y >> f.txt && git add f.txt && git commit -q -m c2 && git worktree add -q ../wt2 -b side && git -C ../wt2 status --porcelain && echo wt-ok"
		expect "$t: work: commit and git worktree add in a protected repository" wt-ok "$out"
		sbsh "$who" "$p" "cd '$W/main' && git -c protocol.file.allow=always submodule add -q '$L' sub && git submodule status >/dev/null && git commit -q -m sub && echo sm-ok"
		expect "$t: work: git submodule add, status and commit" sm-ok "$out"
		sb_off
	done
done
done_testing

#!/usr/bin/env bash
# git works unchanged inside the workspace: init, add, commit, branch, merge,
# gc — in a new repository and in one created outside the sandbox.
. "$(dirname "$0")/common.sh"
GIT=/usr/bin/git
if [ ! -x $GIT ]; then skip "$GIT is not installed"; done_testing; exit; fi

NEW='set -e
cd "$HOME"
git -c init.defaultBranch=main init -q proj
cd proj
echo hello > f.txt
mkdir -p src && echo "int x;" > src/a.c
git add f.txt src
git commit -q -m first
git log --format="%an <%ae> %s"
git rev-list --count HEAD
git status --porcelain | wc -l'

EXISTING='set -e
cd "$HOME/repo"
git checkout -q -b topic
echo more >> f.txt
git commit -q -am second
git checkout -q main
git merge -q --ff-only topic
git mv f.txt g.txt
git commit -q -m third
git gc -q
git log --format=%s | tr "\n" " "
git fsck --no-progress 2>&1 && echo fsck-ok'

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "git-$style")
		t="$who/$style"
		gitenv="\"env\":{\"set\":{\"HOME\":\"$ws\",\"GIT_CONFIG_NOSYSTEM\":\"1\",\"GIT_AUTHOR_NAME\":\"Sand Box\",\"GIT_AUTHOR_EMAIL\":\"sb@example.invalid\",\"GIT_COMMITTER_NAME\":\"Sand Box\",\"GIT_COMMITTER_EMAIL\":\"sb@example.invalid\"}}"
		p=$(prof "$style" "$ws" "$gitenv")

		sbrun "$who" "$p" sh -c "$NEW"
		expect "$t: git init, add, commit in a new repository" 0 "Sand Box <sb@example.invalid> first
1
0"
		check "$t: the commit is readable outside the sandbox" "first:f.txt src/a.c" \
			"$(as "$who" env HOME="$ws" GIT_CONFIG_NOSYSTEM=1 $GIT -C "$ws/proj" log --format=%s: --name-only 2>&1 | tr -s '\n' ' ' | sed 's/: /:/; s/ $//')"

		# a repository created outside, worked on inside
		as "$who" env HOME="$ws" GIT_CONFIG_NOSYSTEM=1 sh -c 'cd "$1" && git -c init.defaultBranch=main init -q repo && cd repo && echo one > f.txt && git add f.txt && git -c user.name=O -c user.email=o@o commit -q -m outside' sh "$ws"
		sbrun "$who" "$p" sh -c "$EXISTING"
		expect "$t: git branch, merge, mv, gc, fsck in an existing repository" 0 "third second outside fsck-ok"
		check "$t: working tree after the commands" "one
more" "$(cat "$ws/repo/g.txt" 2>&1)"
	done
done
done_testing

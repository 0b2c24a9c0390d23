#!/usr/bin/env bash
# Regressions from an attack review of the carve-outs (mounts mode unless
# said): the inherited working directory must not see under a mask or a
# read-only bind; git's .git/commondir, once it exists, cannot be pointed
# elsewhere (git outside keeps working) — a missing one gets no
# placeholder (issue 9: nothing is created in the user's tree): it is
# listed in --check's "unprotected", the command may create it, and the
# next run protects it; /dev/pts is a private instance (the host's other
# terminals are not there); a path with a newline cannot forge a
# diagnostic line; fd:0 leaves stdin open; read_only naming a writable
# tree itself is refused.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	t=$who
	ws=$(mkws "$who" "rev-ws")
	sec=$(mkws "$who" "rev-sec")
	as "$who" sh -c "echo TOPSECRET > '$sec/key'"
	as "$who" mkdir -p "$ws/vendor"

	# --- inherited cwd ---
	out=$(cd "$sec" && as "$who" "$SB" "{\"writable\":[\"$ws\"],\"hidden\":[\"$sec\"]}" -- /bin/sh -c 'cat ./key 2>&1; pwd' 2>/dev/null)
	check_match "$t: the inherited cwd under a hidden tree does not see its contents" 'No such file' "$out"
	out=$(cd "$sec" && as "$who" cat ./key 2>&1)
	check "$t: control: outside, ./key is readable from there" TOPSECRET "$out"
	out=$(cd "$ws/vendor" && as "$who" "$SB" "{\"writable\":[\"$ws\"],\"read_only\":[\"$ws/vendor\"]}" -- /bin/sh -c 'echo x > ./f 2>&1 || echo refused' 2>/dev/null)
	check_match "$t: the inherited cwd inside a read_only tree is read-only" 'refused|Read-only' "$out"
	check "$t: ... nothing was written" absent "$([ -e "$ws/vendor/f" ] && echo present || echo absent)"

	# --- .git/commondir ---
	repo=$(mkws "$who" "rev-repo")
	as "$who" sh -c "cd '$repo' && git init -q && git -c user.email=a@b -c user.name=t commit -q --allow-empty -m one"
	pr="{\"writable\":[\"$repo\"]}"
	check "$t: a missing .git/commondir is listed as unprotected" listed "$(listed "$repo/.git/commondir" "$(unprotected "$who" "$pr")")"
	out=$(as "$who" "$SB" "$pr" -- /bin/sh -c "cd '$repo'; [ -e .git/commondir ] && echo present || echo absent" 2>"$T/err")
	check "$t: ... no placeholder is there inside" absent "$out"
	check "$t: ... nor outside" absent "$([ -e "$repo/.git/commondir" ] && echo present || echo absent)"
	check "$t: ... and no notice names it" "" "$(grep commondir "$T/err")"
	out=$(as "$who" "$SB" "$pr" -- /bin/sh -c "cd '$repo'; echo . > .git/commondir && echo created" 2>/dev/null)
	check "$t: ... the command can create it (not protected while missing)" created "$out"
	out=$(as "$who" "$SB" "$pr" -- /bin/sh -c "cd '$repo'; cat .git/commondir; echo ../evil > .git/commondir 2>&1 || echo refused" 2>/dev/null)
	check_match "$t: once it exists, .git/commondir reads \".\" and cannot be rewritten" '^\.$' "$(printf '%s\n' "$out" | head -n1)"
	check_match "$t: ... the write was refused" 'refused|Read-only' "$out"
	check "$t: ... git outside still works" ok "$(cd "$repo" && as "$who" git status --porcelain >/dev/null 2>&1 && echo ok)"
	check "$t: ... and commondir names the git dir itself" "." "$(cat "$repo/.git/commondir")"
	check "$t: ... and it is no longer listed as unprotected" missing "$(listed "$repo/.git/commondir" "$(unprotected "$who" "$pr")")"

	# --- private /dev/pts ---
	out=$(as "$who" "$SB" '{}' -- /bin/sh -c 'ls /dev/pts' 2>/dev/null)
	check "$t: /dev/pts inside holds only ptmx (no host terminal)" ptmx "$out"
	out=$(as "$who" "$SB" '{}' -- $PY -c 'import os,pty; m,s=pty.openpty(); print(os.ttyname(s).startswith("/dev/pts/"))' 2>/dev/null)
	check "$t: a new pseudo-terminal can be opened inside" True "$out"

	# --- diagnostics cannot be forged ---
	err=$(as "$who" "$SB" '{"writable":["/nonexistent\n__sandbox: forged"]}' -- true 2>&1)
	check "$t: a newline in a path does not make a second line" 1 "$(printf '%s\n' "$err" | grep -c '^__sandbox:')"

	# --- fd:0 ---
	out=$(echo "{\"writable\":[\"$ws\"]}" | as "$who" "$SB" fd:0 -- /bin/sh -c 'readlink /proc/self/fd/0' 2>/dev/null)
	check "$t: after fd:0 the command's stdin is /dev/null, not a descriptor of the shim" /dev/null "$out"

	# --- read_only equal to a writable tree ---
	as "$who" "$SB" "{\"writable\":[\"$ws\"],\"read_only\":[\"$ws\"]}" -- true 2>"$T/err"
	check "$t: read_only naming a writable tree itself: 125" 125 "$?"
	check_match "$t: ... naming .read_only[0]" 'profile \.read_only\[0\].*is \.writable\[0\] itself' "$(cat "$T/err")"
done
done_testing

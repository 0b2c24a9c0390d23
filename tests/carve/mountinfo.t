#!/usr/bin/env bash
# Mount mode leaves nothing behind (issues 3 and 9), root and nobody: the
# host's /proc/self/mountinfo is identical (full contents) while a sandbox
# with carve-outs, masks, views, a private /tmp, /var/tmp and /dev/shm and
# a network namespace runs — propagation was made private first — and
# after it exits; and nothing is created in the user's tree (no
# placeholders for the protected names that do not exist: the workspace
# and its .git list the same entries before and after).  Control: inside,
# the carve-outs are really mounted.
# As root the fixtures sit on a shared bind mount of our own, so a shim
# that forgot to make propagation private would leak its mounts to the
# host's table (shown in the control); the host's / is often private.
. "$(dirname "$0")/common.sh"

base=$T
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/shared"
	chmod 755 "$T/shared"
	if mount --bind "$T/shared" "$T/shared" 2>/dev/null; then
		at_exit "umount -l '$T/shared'"
		mount --make-shared "$T/shared"
		base=$T/shared
		mkdir -p "$base/leak"
		# control: a namespace that keeps propagation leaks its mounts
		unshare -m --propagation unchanged mount -t tmpfs none "$base/leak"
		check "control: without private propagation a mount leaks to the host" 1 "$(grep -cF "$base/leak" /proc/self/mountinfo)"
		umount "$base/leak"
	else
		skip "cannot make a shared bind mount here: the host's own propagation is used"
	fi
fi

for who in $USERS; do
	if ! mounts_ok "$who"; then
		skip "$who: no mount namespace for $who on this machine"
		continue
	fi
	ws=$base/$who-mi
	home=$base/$who-mi-home
	mkdir -p "$ws" "$home"
	own "$who" "$ws"
	mkdir -p "$home/.ssh" && echo KEY >"$home/.ssh/id" && echo N >"$home/.netrc"
	own "$who" "$home"
	mkrepo "$who" "$ws"
	ln -s /nonexistent "$ws/.vscode"   # a covered symlink too
	p="{\"writable\":[\"$ws\"],\"hidden\":[\"$home/.ssh\",\"$home/.netrc\"],\"read_only\":[\"$ws/f.txt\"],\"network\":\"loopback\"}"

	tree_before=$(ls -A "$ws" "$ws/.git")
	before=$(cat /proc/self/mountinfo)
	# The command reports its own mount table, then waits for its stdin
	# to close: the host's table is compared while it runs.
	bg "mi$who" "$who" "$SB" "$p" -- /bin/sh -c 'echo "$(grep -c "" /proc/self/mountinfo) $(grep -cF "$0" /proc/self/mountinfo)"; cat >/dev/null' "$ws"
	read -r inside carved <<<"$BG_LINE"
	during=$(cat /proc/self/mountinfo)
	check "$who: the sandbox is running (its mount table has lines)" yes "$([ "${inside:-0}" -gt 0 ] && echo yes || echo no)"
	check_match "$who: control: inside, the workspace carries the carve-out mounts" '^([5-9]|[1-9][0-9]+)$' "$carved"
	if [ "$before" = "$during" ]; then
		ok "$who: the host's mountinfo is unchanged while the sandbox runs"
	else
		not_ok "$who: the host's mountinfo is unchanged while the sandbox runs"
		diag "$(diff <(echo "$before") <(echo "$during"))"
	fi
	bg_stop "mi$who"
	after=$(cat /proc/self/mountinfo)
	if [ "$before" = "$after" ]; then
		ok "$who: the host's mountinfo is unchanged after it exits"
	else
		not_ok "$who: the host's mountinfo is unchanged after it exits"
		diag "$(diff <(echo "$before") <(echo "$after"))"
	fi
	check "$who: no mount of the workspace on the host" 0 "$(grep -cF "$ws" /proc/self/mountinfo)"
	check "$who: nothing was created in the workspace or its .git (no placeholders)" "$tree_before" "$(ls -A "$ws" "$ws/.git")"
	check "$who: the key is intact outside" KEY "$(cat "$home/.ssh/id")"
done

done_testing

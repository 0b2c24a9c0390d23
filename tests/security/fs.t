#!/usr/bin/env bash
# Filesystem escapes: reading outside every granted tree and writing outside
# the writable ones are refused (Landlock, EACCES; with a mount namespace
# writes meet the read-only mounts first, EROFS); each denial is paired
# with the same operation succeeding outside the sandbox or with the tree
# granted, so a sandbox that lets it through fails the test.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	ws=$(mkws "$who" fs-ws)
	out=$(mkws "$who" fs-out)       # writable by $who, outside every grant
	sec=$(mkws "$who" fs-secret)    # readable by $who, outside every grant
	echo "secret" >"$sec/secret.txt"
	chmod 644 "$sec/secret.txt"
	ln -s "$sec/secret.txt" "$ws/link-to-secret"
	echo "old" >"$out/existing"
	if [ "$who" = nobody ]; then chown $NOBODY:$NOBODY "$out/existing"; fi
	# Only the helpers (to run) and the workspace are granted.
	narrow="\"readable\":[\"$HELPERS\"],\"writable\":[\"$ws\"]"

	# --- reading outside every granted tree ---
	expect "$who: control: the secret is readable outside the sandbox" ok \
		"$(outside "$who" open-read "$sec/secret.txt")"
	expect "$who: reading a file outside every granted tree is refused" EACCES \
		"$(inside "$who" "$narrow" open-read "$sec/secret.txt")"
	expect "$who: ... also through .. from a granted tree" EACCES \
		"$(inside "$who" "$narrow" open-read "$HELPERS/../$(basename "$sec")/secret.txt")"
	expect "$who: ... also through a symlink inside the workspace" EACCES \
		"$(inside "$who" "$narrow" open-read "$ws/link-to-secret")"
	expect "$who: control: the same read works once its tree is readable" ok \
		"$(inside "$who" "\"readable\":[\"$HELPERS\",\"$sec\"],\"writable\":[\"$ws\"]" open-read "$sec/secret.txt")"
	expect "$who: /etc/passwd is unreadable when / is not granted" EACCES \
		"$(inside "$who" "$narrow" open-read /etc/passwd)"

	# --- writing outside the writable trees (default: / readable) ---
	# With a mount namespace everything outside the writable trees is also
	# read-only at the mount level, which the kernel checks first (EROFS);
	# without one Landlock refuses (EACCES).
	for mode in mounts off; do
		if [ "$mode" = mounts ]; then E=EROFS; ro="\"writable\":[\"$ws\"]"; else E=EACCES; ro="\"mounts\":\"off\",\"writable\":[\"$ws\"]"; fi
		t="$who/$mode"
		echo "old" >"$out/existing"
		if [ "$who" = nobody ]; then chown $NOBODY:$NOBODY "$out/existing"; fi
		rm -rf "$out/new" "$out/dir" "$ws/new" "$ws/dir"
		expect "$t: creating a file outside the writable trees is refused" $E \
			"$(inside "$who" "$ro" open-write "$out/new")"
		if [ -e "$out/new" ]; then not_ok "$t: ... and nothing was created"; else ok "$t: ... and nothing was created"; fi
		expect "$t: writing an existing file outside the writable trees is refused" $E \
			"$(inside "$who" "$ro" open-write "$out/existing")"
		expect "$t: truncating it is refused" $E \
			"$(inside "$who" "$ro" truncate "$out/existing")"
		expect "$t: removing it is refused" $E \
			"$(inside "$who" "$ro" unlink "$out/existing")"
		expect "$t: creating a directory outside the writable trees is refused" $E \
			"$(inside "$who" "$ro" mkdir "$out/dir")"
		check "$t: ... and the file is intact" old "$(cat "$out/existing")"
		expect "$t: control: creating a file in the workspace works" ok \
			"$(inside "$who" "$ro" open-write "$ws/new")"
		expect "$t: control: truncating it works" ok \
			"$(inside "$who" "$ro" truncate "$ws/new")"
		expect "$t: control: creating a directory in the workspace works" ok \
			"$(inside "$who" "$ro" mkdir "$ws/dir")"
		expect "$t: control: the same write works outside the sandbox" ok \
			"$(outside "$who" open-write "$out/existing")"
		expect "$t: control: the same truncate works outside the sandbox" ok \
			"$(outside "$who" truncate "$out/existing")"
		expect "$t: control: the same mkdir works outside the sandbox" ok \
			"$(outside "$who" mkdir "$out/dir")"
		expect "$t: control: the same unlink works outside the sandbox" ok \
			"$(outside "$who" unlink "$out/existing")"
	done
done

# Raw block devices are never reachable through a readable tree (/dev is
# granted around): as root, reading the disk would walk past every rule.
if [ "$(id -u)" = 0 ]; then
	disk=
	for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda /dev/loop0; do
		if [ -b "$d" ] && [ "$(outside root open-read "$d")" = ok ]; then disk=$d; break; fi
	done
	if [ -n "$disk" ]; then
		expect "root: control: $disk is readable outside the sandbox" ok "$(outside root open-read "$disk")"
		expect "root: reading $disk through the default readable / is refused" EACCES \
			"$(inside root "" open-read "$disk")"
	else
		skip "no readable block device on this machine"
	fi
fi

done_testing

#!/usr/bin/env bash
# tmp: a private temporary directory, created 0700 when missing, writable even
# outside the readable trees, TMPDIR/TMP/TEMP pointing at it; refused (125,
# one line naming .tmp) when it is a symlink, someone else's, world writable
# or not a directory; group write on the user's own directory is accepted.
. "$(dirname "$0")/common.sh"
# refused NAME PATH REGEX — the last sbrun was refused with 125: one error line
# about .tmp PATH (notices aside), every line prefixed, nothing run
refused() {
	check "$1: exit 125" 125 "$rc"
	check "$1: one error line, every stderr line prefixed" "1 0" \
		"$(printf '%s\n' "$err" | grep -c .) $(grep -vc '^__sandbox: ' "$T/err")"
	check_match "$1: the line names .tmp and the path" "^__sandbox: profile \\.tmp \"$2\": $3" "$err"
	check "$1: the command did not run" "" "$out"
}

for who in $USERS; do
	uid=$(as "$who" id -u)
	other=$([ "$uid" = 0 ] && echo $NOBODY || echo 0)
	for style in default real; do
		ws=$(mkws "$who" "tmp-$style")
		par=$(mkws "$who" "tmpparent-$style") # outside every tree of the profile
		t="$who/$style"
		run='echo "$TMPDIR|$TMP|$TEMP"; echo data > "$TMPDIR/f" && cat "$TMPDIR/f"; m=$(mktemp) && echo "${m%/*}"; stat -c %a "$TMPDIR"'

		tmp=$par/new
		sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$tmp\"")" sh -c "$run"
		expect "$t: missing tmp is created, usable, TMPDIR/TMP/TEMP set, mktemp uses it" 0 "$tmp|$tmp|$tmp
data
$tmp
700"
		check "$t: created 0700, owned by the running user" "700 $uid" "$(stat -c '%a %u' "$tmp" 2>&1)"

		# created 0700 whatever the umask
		tmp=$par/umask0
		out=$(as "$who" sh -c 'umask 0; exec "$@"' sh "$SB" "$(prof "$style" "$ws" "\"tmp\":\"$tmp\"")" -- true 2>"$T/err" </dev/null); rc=$?
		check "$t: with umask 0 still created 0700" "0 700" "$rc $(stat -c %a "$tmp" 2>&1)"

		tmp=$par/existing
		mkdir -m 700 "$tmp"
		chown "$uid" "$tmp"
		sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$tmp\"")" sh -c "$run"
		expect "$t: an existing private directory is accepted" 0 "$tmp|$tmp|$tmp
data
$tmp
700"

		mkdir -m 700 "$par/target"
		chown "$uid" "$par/target"
		ln -s "$par/target" "$par/link"
		sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$par/link\"")" sh -c "$run"
		refused "$t: symlink" "$par/link" ".*symbolic link"

		if [ "$(id -u)" = 0 ]; then
			mkdir -m 700 "$par/theirs"
			chown "$other" "$par/theirs"
			sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$par/theirs\"")" sh -c "$run"
			refused "$t: owned by uid $other" "$par/theirs" ".*owned by uid $other"
		else
			skip "$t: a directory owned by another user needs root to create"
		fi

		# world writable: anyone could have planted entries there
		for mode in 777 1777 0757; do
			mkdir "$par/m$mode"
			chmod $mode "$par/m$mode"
			chown "$uid" "$par/m$mode"
			sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$par/m$mode\"")" sh -c "$run"
			refused "$t: mode $mode" "$par/m$mode" ".*world writable"
		done
		# group write on the user's own directory (umask 002, speccoder's
		# way of making it): accepted and left as it is
		for mode in 775 770; do
			mkdir "$par/g$mode"
			chmod $mode "$par/g$mode"
			chown "$uid" "$par/g$mode"
			sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$par/g$mode\"")" sh -c 'echo "$TMPDIR" && echo x > "$TMPDIR/f" && cat "$TMPDIR/f"'
			expect "$t: mode $mode owned by the user: accepted" 0 "$par/g$mode
x"
			check "$t: ... its mode is left as it was" "$mode" "$(stat -c %a "$par/g$mode")"
		done

		: >"$par/file"
		chown "$uid" "$par/file"
		sbrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$par/file\"")" sh -c "$run"
		refused "$t: a regular file" "$par/file" ".*not a directory"
	done
done
done_testing

#!/usr/bin/env bash
# Paths an earlier sandboxed run could have planted (issue 10, class 4): a
# profile path that goes through a symlink inside a writable tree is
# refused (125, naming the entry, the path, the link and the tree), so
# run 1 `ln -s /victim W/.cache` cannot make run 2's "tmp": "W/.cache/tmp"
# write into /victim.  As root and as uid 65534, in both carve modes.
# Controls: the real path works; a symlink outside every writable tree is
# followed as usual.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	for mode in mounts off; do
		t=$who/$mode
		mk=""
		[ "$mode" = off ] && mk="\"mounts\":\"off\","
		ws=$(mkws "$who" "pl-$mode")
		victim=$(mkws "$who" "pl-victim-$mode")
		# run 1: the command plants the link
		as "$who" "$SB" "{$mk$UNF,\"writable\":[\"$ws\"]}" -- ln -s "$victim" "$ws/.cache" 2>"$T/err"
		check "$t: run 1 plants a symlink in its workspace" "$victim" "$(readlink "$ws/.cache")"
		for key in tmp writable readable caches; do
			case $key in
			tmp) p="{$mk$UNF,\"writable\":[\"$ws\"],\"tmp\":\"$ws/.cache/tmp\"}"; w=.tmp ;;
			writable) p="{$mk$UNF,\"writable\":[\"$ws\",\"$ws/.cache/x\"]}"; w=".writable\\[1\\]" ;;
			readable) p="{$mk$UNF,\"readable\":[\"/usr\",\"/bin\",\"/lib\",\"/lib64\",\"$ws/.cache\"],\"writable\":[\"$ws\"]}"; w=".readable\\[4\\]" ;;
			caches) p="{$mk$UNF,\"writable\":[\"$ws\"],\"caches\":[\"$ws/.cache\"]}"; w=".caches\\[0\\]" ;;
			esac
			out=$(as "$who" "$SB" "$p" -- /bin/sh -c "echo ran" 2>"$T/err"); rc=$?
			check "$t: $key through the planted link: refused (125), nothing ran" "125 " "$rc $out"
			check_match "$t: ... naming $w, the link and the tree" \
				"^__sandbox: profile $w \".*\": goes through the symlink $ws/\.cache inside the writable tree $ws, " "$(cat "$T/err")"
		done
		check "$t: ... and nothing reached the victim" "" "$(ls -A "$victim")"
		out=$(as "$who" "$SB" "{$mk$UNF,\"writable\":[\"$ws\"],\"tmp\":\"$victim/tmp\"}" -- /bin/sh -c 'echo ok > "$TMPDIR/f" && cat "$TMPDIR/f"' 2>"$T/err"); rc=$?
		check "$t: control: the real path works" "0 ok" "$rc $out"
		rm -rf "$victim/tmp"
	done
done
done_testing

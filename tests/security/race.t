#!/usr/bin/env bash
# Race-free setup (issue 10, class 4): fit() refuses a profile path that
# goes through a symlink inside a writable tree, but a concurrent process
# (an earlier sandboxed run still going, in the same workspace) can swap
# a directory for a symlink between that check and the shim's mkdir,
# mount, Landlock rule or chdir.  Here a racer (tests/helpers/flip)
# exchanges $ws/d (a directory) and $ws/l (a symlink to a victim
# directory of the same user) as fast as it can while RUNS runs start,
# cycling through profiles that name $ws/d as tmp, writable, readable,
# caches, executable, cwd, a kept path inside an empty $HOME view, and an
# expansion sibling.  Every command tries to write into, and read from,
# the victim through both names.  Every run must either run (0) or
# refuse with 125 naming the path; nothing may ever land in the victim,
# nor its secret be read.  As root and as uid 65534; with mounts, with
# mounts "off", where namespaces are refused (tests/helpers/nons), and
# inside another sandbox (no openat2 there: the component walk).
. "$(dirname "$0")/common.sh"

FLIP=$HELPERS/flip
RUNS=${SB_RACE_RUNS:-60} # per user and mode: 240 per user
[ -x "$FLIP" ] || { echo "Bail out! $FLIP is missing: run make tests"; exit 1; }

for who in $USERS; do
	for mode in mounts off nons nested; do
		t=$who/$mode
		mk="" wrap=()
		[ "$mode" = off ] && mk='"mounts":"off",'
		[ "$mode" = nons ] && wrap=("$HELPERS/nons")
		# inside another sandbox that grants all of $T: its filter hides
		# openat2 (ENOSYS), so the shim walks component by component
		[ "$mode" = nested ] && wrap=("$SB" "{$UNF,\"writable\":[\"$T\"]}" --)
		home=$(mkws "$who" "race-home-$mode")
		ws=$home/ws
		victim=$(mkws "$who" "race-victim-$mode")
		mkdir -p "$ws/d" "$ws/ro"
		echo s3cret > "$victim/secret"
		ln -s "$victim" "$ws/l"
		[ "$who" = nobody ] && chown -hR $NOBODY:$NOBODY "$home" "$victim"
		sys='"/usr","/bin","/lib","/lib64","/etc"'
		profiles=(
			"tmp|{$mk$UNF,\"readable\":[$sys],\"writable\":[\"$ws\"],\"tmp\":\"$ws/d/tmp\"}"
			"writable|{$mk$UNF,\"readable\":[$sys],\"writable\":[\"$ws\",\"$ws/d\"]}"
			"readable|{$mk$UNF,\"readable\":[$sys,\"$ws/d\"],\"writable\":[\"$ws\"]}"
			"caches|{$mk$UNF,\"readable\":[$sys],\"writable\":[\"$ws\"],\"caches\":[\"$ws/d\"]}"
			"executable|{$mk$UNF,\"readable\":[$sys],\"writable\":[\"$ws\"],\"executable\":[$sys,\"$ws/d\"]}"
			"cwd|{$mk$UNF,\"readable\":[$sys],\"writable\":[\"$ws\"],\"cwd\":\"$ws/d\"}"
			"keep|{$mk$UNF,\"readable\":[$sys,\"$ws/d\"],\"writable\":[\"$ws\"],\"env\":{\"set\":{\"HOME\":\"$home\"}}}"
			"sibling|{$mk$UNF,\"readable\":[$sys],\"writable\":[\"$ws\"],\"read_only\":[\"$ws/ro\"]}"
		)
		# control, before the racer: each profile runs
		for pr in "${profiles[@]}"; do
			key=${pr%%|*}
			out=$(as "$who" "${wrap[@]}" "$SB" "${pr#*|}" -- /bin/sh -c 'echo ran' 2>"$T/err"); rc=$?
			check "$t: control: the $key profile runs while nothing races" "0 ran" "$rc $out"
			[ "$rc" = 0 ] || diag "stderr: $(cat "$T/err")"
		done
		rm -rf "$ws/d/tmp"
		rm -f "$T/flip.fifo"; mkfifo "$T/flip.fifo"
		"$FLIP" "$ws/d" "$ws/l" >"$T/flip.fifo" 2>"$T/flip.err" &
		fpid=$!
		exec {ffd}<"$T/flip.fifo"
		read -r line <&"$ffd"
		check "$t: the racer exchanges $ws/d and the symlink $ws/l" ready "$line"
		ran=0 refused=0 late=0 bad=0 leaked=0
		for i in $(seq 1 "$RUNS"); do
			pr=${profiles[$((i % ${#profiles[@]}))]}
			key=${pr%%|*}
			out=$(as "$who" "${wrap[@]}" "$SB" "${pr#*|}" -- /bin/sh -c '
				for n in d l; do echo x > "'"$ws"'/$n/pwn" 2>/dev/null; done
				[ -n "${TMPDIR:-}" ] && echo x > "$TMPDIR/pwn" 2>/dev/null
				echo x > ./pwn 2>/dev/null
				cat "'"$ws"'/l/secret" "'"$ws"'/d/secret" 2>/dev/null
				exit 0' 2>"$T/err"); rc=$?
			case $rc in
			0) ran=$((ran + 1)) ;;
			125)
				if grep -q "$ws/[dl]" "$T/err"; then
					refused=$((refused + 1))
					# refused by the shim's setup, not by fit()'s check
					grep -Eq 'appeared (after|since)|not the directory checked' "$T/err" && late=$((late + 1))
				else
					bad=$((bad + 1)); diag "$key: 125 without naming the path: $(cat "$T/err")"
				fi ;;
			*) bad=$((bad + 1)); diag "$key: exit $rc: $(cat "$T/err")" ;;
			esac
			case $out in *s3cret*) leaked=$((leaked + 1)); diag "$key: read the victim's secret" ;; esac
		done
		kill "$fpid"
		read -r flips <&"$ffd"
		wait "$fpid"
		exec {ffd}<&-
		diag "$t: $RUNS runs: $ran ran, $refused refused naming the path ($late of them at setup, after fit() had passed); $flips exchanges"
		check "$t: every run ran (0) or refused naming the path (125)" "0" "$bad"
		check "$t: ... the victim's secret was never read" "0" "$leaked"
		check "$t: ... and nothing landed in the victim" "secret" "$(ls -A "$victim" | tr '\n' ' ' | sed 's/ $//')"
		if [ "$ran" -gt 0 ] && [ "$refused" -gt 0 ]; then
			ok "$t: ... the race was real: some runs ran, some were refused"
		else
			skip "$t: the racer never hit a window this time ($ran ran, $refused refused)"
		fi
	done
done
done_testing

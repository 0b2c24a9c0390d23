#!/usr/bin/env bash
# A protected or read-only name removed on the host while the sandbox is
# being set up (issue 10 §6: the transient "125 with ENOENT during mount
# setup, for about 20 s" of 0.1.0).  fit() plans a read-only bind for each
# protect / read_only name that exists; the bind is made a moment later by
# name.  A host process that removed and recreated such a name meanwhile
# (git, an editor, a test cleaning its fixture while another ran) made the
# run fail with "binding it read-only failed: No such file or directory"
# for as long as it kept doing so — or, when it was the first mount, fall
# back to expansion and be refused there.  Such a name is now what a name
# missing at plan time is: not protected against creation.  A hidden path
# is never skipped (recreated during the run it would be readable).
# Root and uid 65534; mount mode only (expansion opens no mount by name).
. "$(dirname "$0")/../lib.sh"
N=${SB_VANISH_RUNS:-150}

for who in $USERS; do
	ws=$(mkws "$who" vanish)
	as "$who" mkdir -p "$ws/.git/hooks" "$ws/.git/info" "$ws/state"
	if ! as "$who" "$SB" "{\"writable\":[\"$ws\"],\"mounts\":\"required\"}" -- true 2>/dev/null; then
		skip "$who: no mount namespace here"
		continue
	fi
	P="{\"writable\":[\"$ws\"],\"read_only\":[\"$ws/state\"],\"mounts\":\"required\"}"
	# the host churns the names for as long as the runs take
	stop=$T/stop-$who
	rm -f "$stop"
	(while [ ! -e "$stop" ]; do
		as "$who" sh -c 'rm -rf "$1/.git/hooks" "$1/.git/info" "$1/state"; mkdir -p "$1/.git/hooks/x" "$1/.git/info" "$1/state"' sh "$ws"
	done) &
	churn=$!
	bad=0 ran=0 first=
	for _ in $(seq "$N"); do
		out=$(as "$who" "$SB" "$P" -- sh -c 'echo ran' </dev/null 2>"$T/err"); rc=$?
		if [ "$rc" = 0 ] && [ "$out" = ran ]; then
			ran=$((ran + 1))
		else
			bad=$((bad + 1))
			[ -n "$first" ] || first="rc=$rc $(grep -v '^__sandbox: notice: ' "$T/err" | head -n1)"
		fi
	done
	touch "$stop"
	wait "$churn"
	check "$who: $N runs while the host removes and recreates protected and read-only names: all run" \
		"$N 0" "$ran $bad${first:+ (first failure: $first)}"
	# control: the names are still protected when they stay put
	out=$(as "$who" "$SB" "$P" -- sh -c 'echo x > "$1/state/f" 2>/dev/null && echo written || echo refused; echo x > "$1/.git/hooks/h" 2>/dev/null && echo written || echo refused' sh "$ws" </dev/null 2>/dev/null)
	check "$who: control: unchanged names stay read-only" "refused refused" "$(echo $out)"
	# (a hidden path removed meanwhile still fails the run: 125, closed)
	as "$who" sh -c 'mkdir -p "$1/sec" && echo TOKEN > "$1/sec/t"' sh "$ws"
	out=$(as "$who" "$SB" "{\"writable\":[\"$ws\"],\"hidden\":[\"$ws/sec\"],\"mounts\":\"required\"}" -- sh -c 'cat "$1/sec/t" 2>/dev/null; echo done' sh "$ws" </dev/null 2>/dev/null)
	check "$who: control: a hidden directory stays unreadable" done "$out"
done
done_testing

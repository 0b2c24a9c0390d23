#!/usr/bin/env bash
# The network namespace of network "off" (with scoped unix sockets, the
# default) and "loopback": made by a helper beside the planning, joined by
# the shim before the mount namespace is made (shim/ns.c).  The command
# runs in a network namespace of its own where only lo exists, the helper
# is reaped before it starts, and a host that gives mount namespaces but
# refuses network ones (tests/helpers/errno-filter unshare-net=EPERM) is
# treated as one without namespaces, the same way on every run: the
# default profile refused naming CLONE_NEWNET, the command never run; one
# that leaves the pathname-socket scope out run without namespaces.  (A
# join deferred past the mounts made that outcome depend on whether the
# helper's refusal had arrived yet: these runs are repeated to catch it.)
. "$(dirname "$0")/common.sh"

if [ -n "$NONS" ]; then
	skip "namespaces are refused in this run (SB_NONS): this file is about the network namespace"
	done_testing
	exit
fi
EF=$HELPERS/errno-filter
# the interpreter itself, not a wrapper script (pyenv's shims): one that
# forks would reap a zombie before python could see it
PY3=/usr/bin/python3
[ -x "$PY3" ] || PY3=$(python3 -c 'import sys; print(sys.executable)')
host_net=$(readlink /proc/self/ns/net)

for who in $USERS; do
	mark=$T/ran-$who
	# the control: can this user have the namespaces at all?
	out=$(as "$who" "$SB" '{}' -- readlink /proc/self/ns/net 2>"$T/err" </dev/null)
	rc=$?
	if [ "$rc" != 0 ] && grep -q 'no mount namespace here' "$T/err"; then
		skip "$who: no mount namespace for this user here: $(head -1 "$T/err")"
		continue
	fi
	check "$who: default profile: exit 0" 0 "$rc"
	[ "$rc" = 0 ] || diag "$(cat "$T/err")"
	if [ -n "$out" ] && [ "$out" != "$host_net" ]; then
		ok "$who: default profile: the command is in a network namespace of its own"
	else
		not_ok "$who: default profile: the command is in a network namespace of its own"
		diag "host: $host_net" "command: $out"
	fi
	check "$who: ... where lo is the only interface" "lo" \
		"$(as "$who" "$SB" '{}' -- sh -c 'tail -n +3 /proc/self/net/dev | cut -d: -f1 | tr -d " "' 2>&1 </dev/null)"
	check "$who: ... and nothing on stderr" "" "$(cat "$T/err")"
	# each run its own: two runs at the same time never share one (one
	# after the other may: a freed namespace's inode number is reused)
	rm -f "$T/ns-a"
	as "$who" "$SB" '{}' -- sh -c 'readlink /proc/self/ns/net; exec sleep 5' >"$T/ns-a" 2>/dev/null </dev/null &
	pa=$!
	for _ in $(seq 100); do [ -s "$T/ns-a" ] && break; sleep 0.1; done
	b=$(as "$who" "$SB" '{}' -- readlink /proc/self/ns/net 2>/dev/null </dev/null)
	a=$(cat "$T/ns-a")
	kill "$pa" 2>/dev/null
	wait "$pa" 2>/dev/null
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]; then ok "$who: two runs at once get two network namespaces"; else
		not_ok "$who: two runs at once get two network namespaces"
		diag "$a" "$b"
	fi
	out=$(as "$who" "$SB" '{"network":"on"}' -- readlink /proc/self/ns/net 2>/dev/null </dev/null)
	check "$who: control: network \"on\" keeps the host's network namespace" "$host_net" "$out"
	out=$(as "$who" "$SB" '{"unix_sockets":"any"}' -- readlink /proc/self/ns/net 2>/dev/null </dev/null)
	check "$who: control: network \"off\" with unix_sockets \"any\" keeps the host's" "$host_net" "$out"
	# the helper that made it is gone before the command starts: the
	# command has no child, not even a zombie (python3 itself, as a
	# shell would reap one before it could be seen)
	out=$(as "$who" "$SB" '{}' -- "$PY3" -c '
import os, time
time.sleep(0.2)
try:
    print(os.waitpid(-1, os.WNOHANG))
except ChildProcessError:
    print("none")' 2>&1 </dev/null)
	check "$who: the command starts with no child process (the helper reaped)" none "$out"

	if [ "$(uname -m)" != x86_64 ]; then
		skip "$who: refused network namespaces: tests/helpers/errno-filter filters x86_64 only"
		continue
	fi
	rm -f "$mark"
	as "$who" "$EF" unshare-net=EPERM -- "$SB" '{}' -- sh -c "touch '$mark'" >/dev/null 2>"$T/err" </dev/null
	rc=$?
	check "$who: network namespaces refused, mount namespaces given: exit 125" 125 "$rc"
	check "$who: ... one line on stderr" 1 "$(wc -l <"$T/err")"
	# the plan made again without namespaces, refused for the pathname
	# socket scope: the reason names the refused unshare
	check_match "$who: ... naming unshare with CLONE_NEWNET and why" \
		'^__sandbox: this host cannot enforce .*unshare\([A-Z_|]*CLONE_NEWNET\): Operation not permitted' "$(cat "$T/err")"
	check "$who: ... the command did not run" absent "$([ -e "$mark" ] && echo present || echo absent)"
	# the same outcome every time, whichever of the helper and the shim
	# gets there first (one CPU makes the helper late)
	pin=
	command -v taskset >/dev/null && pin="taskset -c 0"
	outs=$(for i in 1 2 3 4 5 6 7 8 9 10; do
		as "$who" $pin "$EF" unshare-net=EPERM -- "$SB" '{"unenforced":{"host_sockets":true}}' -- readlink /proc/self/ns/net 2>/dev/null </dev/null
		echo "rc=$?"
	done | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
	check "$who: ... leaving the socket scope out: run without namespaces, 10 times of 10" "10 $host_net 10 rc=0 " "$outs"
	outs=$(for i in 1 2 3 4 5 6 7 8 9 10; do
		as "$who" $pin "$EF" unshare-net=EPERM -- "$SB" '{}' -- true 2>/dev/null </dev/null
		echo "rc=$?"
	done | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
	check "$who: ... the default profile: refused 10 times of 10" "10 rc=125 " "$outs"
	out=$(as "$who" "$EF" unshare-net=EPERM -- "$SB" '{"mounts":"off","unenforced":{"host_sockets":true}}' -- readlink /proc/self/ns/net 2>"$T/err" </dev/null)
	check "$who: ... with \"mounts\":\"off\" it runs, in the host's network namespace" "0 $host_net" "$? $out"
	out=$(as "$who" "$EF" unshare-net=EPERM -- "$SB" '{"network":"on"}' -- sh -c 'echo ran' 2>"$T/err" </dev/null)
	check "$who: ... with network \"on\" (no network namespace wanted) it runs" "0 ran" "$? $out"
done
done_testing

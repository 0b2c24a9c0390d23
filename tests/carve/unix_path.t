#!/usr/bin/env bash
# Pathname unix sockets with "unix_sockets": "scoped" (the default), issue 3,
# root and nobody, both carve modes.  Host listeners on sockets under /tmp,
# under /run (when writable), in the workspace and in a second writable
# tree under /tmp:
#  - Landlock ABI 9+: FS_RESOLVE_UNIX, so /tmp and /run sockets → EACCES;
#  - below, with mounts: /tmp and /run are empty read-only views (writable
#    trees inside brought back), so those sockets are not even there
#    (ENOENT), and /dev/shm is a private tmpfs;
#  - below, without mounts: refused (125) unless unenforced.workspace_sockets,
#    then the left-out notice is printed and the socket IS reachable;
#  - sockets inside writable trees stay reachable in every case.
# Controls: every connect works outside, and with "unix_sockets": "any".
. "$(dirname "$0")/common.sh"

me=$(echo "$USERS" | cut -d' ' -f1)
tmpd=$(mktemp -d /tmp/sbtest-sock.XXXXXX)
at_exit "rm -rf '$tmpd'"
chmod 755 "$tmpd"
bg tmpl "$me" $PY "$OP" unix-serve "$tmpd/s"
check "listener under /tmp is ready" ok "$BG_LINE"
rund=
if [ -w /run ] && rund=$(mktemp -d /run/sbtest-sock.XXXXXX 2>/dev/null); then
	at_exit "rm -rf '$rund'"
	chmod 755 "$rund"
	bg runl "$me" $PY "$OP" unix-serve "$rund/s"
	check "listener under /run is ready" ok "$BG_LINE"
fi
shmf=/dev/shm/sbtest-$$
if [ -w /dev/shm ] && echo shm >"$shmf" 2>/dev/null; then
	at_exit "rm -f '$shmf'"
	chmod 644 "$shmf"
else
	shmf=
fi

n=0
for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		n=$((n + 1))
		ws=$(mkws "$who" "unix-$mode")
		wt=$(mktemp -d /tmp/sbtest-wt.XXXXXX)
		at_exit "rm -rf '$wt'"
		chmod 755 "$wt"
		own "$who" "$wt"
		bg "ws$n" "$me" $PY "$OP" unix-serve "$ws/s"
		check "$t: listener in the workspace is ready" ok "$BG_LINE"
		bg "wt$n" "$me" $PY "$OP" unix-serve "$wt/s"
		check "$t: listener in a writable tree under /tmp is ready" ok "$BG_LINE"
		p="{$mk\"writable\":[\"$ws\",\"$wt\"]}"
		any="{$mk\"writable\":[\"$ws\",\"$wt\"],\"unix_sockets\":\"any\"}"

		for s in "$tmpd/s" ${rund:+"$rund/s"} "$ws/s" "$wt/s"; do
			expect "$t: control: $s is reachable outside" ok "$(outside "$who" unix-connect "$s")"
		done
		expect "$t: control: $tmpd/s is reachable with unix_sockets \"any\"" ok "$(op "$who" "$any" unix-connect "$tmpd/s")"
		expect "$t: the workspace socket is reachable" ok "$(op "$who" "$p" unix-connect "$ws/s")"
		expect "$t: the socket in the writable tree under /tmp is reachable" ok "$(op "$who" "$p" unix-connect "$wt/s")"

		if [ "$ABI" -ge 9 ]; then
			expect "$t: the /tmp socket is refused (FS_RESOLVE_UNIX)" EACCES "$(op "$who" "$p" unix-connect "$tmpd/s")"
			if [ -n "$rund" ]; then
				expect "$t: the /run socket is refused (FS_RESOLVE_UNIX)" EACCES "$(op "$who" "$p" unix-connect "$rund/s")"
			else
				skip "$t: /run is not writable here"
			fi
		elif [ "$mode" = mounts ]; then
			expect "$t: the /tmp socket is not there (empty view of /tmp)" ENOENT "$(op "$who" "$p" unix-connect "$tmpd/s")"
			expect "$t: /tmp shows only the writable tree inside it" "$(basename "$wt")" "$(op "$who" "$p" list /tmp)"
			if [ -n "$rund" ]; then
				expect "$t: the /run socket is not there (empty view of /run)" ENOENT "$(op "$who" "$p" unix-connect "$rund/s")"
			else
				skip "$t: /run is not writable here"
			fi
			expect "$t: /run is an empty view" "(empty)" "$(op "$who" "$p" list /run)"
			expect "$t: nothing can be created in the /tmp view" EROFS "$(op "$who" "$p" create /tmp/new)"
			if [ -n "$shmf" ]; then
				expect "$t: control: the host's /dev/shm file is readable outside" ok:shm "$(outside "$who" read "$shmf")"
				expect "$t: /dev/shm is private: the host's file is not there" ENOENT "$(op "$who" "$p" read "$shmf")"
				expect "$t: ... and it is writable" ok "$(op "$who" "$p" create "/dev/shm/sbtest-inside")"
				check "$t: ... without reaching the host's" absent "$([ -e /dev/shm/sbtest-inside ] && echo present || echo absent)"
			else
				skip "$t: /dev/shm is not writable here"
			fi
		else
			refused="{\"mounts\":\"off\",\"writable\":[\"$ws\",\"$wt\"]}"
			out=$(as "$who" "$SB" "$refused" -- /bin/true 2>&1)
			rc=$?
			check_match "$t: without unenforced.workspace_sockets the profile is refused (125)" \
				"^125 __sandbox: .*\.unix_sockets.*pathname unix socket scope.*set unenforced\.workspace_sockets" "$rc $out"
			expect "$t: with it, the /tmp socket stays reachable (left out)" ok "$(op "$who" "$p" unix-connect "$tmpd/s")"
			check_match "$t: ... and the notice says so" \
				'^__sandbox: notice: left out: pathname unix socket scope \(sockets outside writable trees stay reachable\): needs Landlock ABI 9.*\(allowed by \.unenforced\.workspace_sockets\)$' "$(errs)"
		fi
		bg_stop "ws$n"
		bg_stop "wt$n"
	done
done

done_testing

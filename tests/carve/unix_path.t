#!/usr/bin/env bash
# Pathname unix sockets with "unix_sockets": "scoped" (the default), issues
# 3 and 9, root and nobody, both carve modes.  Host listeners on sockets
# under /tmp (on purpose: the host's /tmp), under /run (when writable), in
# the workspace and in a second writable tree under /tmp:
#  - Landlock ABI 9+: FS_RESOLVE_UNIX, so /tmp and /run sockets → EACCES;
#  - below, with mounts: /run is an empty read-only view (EROFS) and /tmp
#    private (below), so those sockets are not even there (ENOENT), and
#    /dev/shm is a private tmpfs;
#  - with mounts, on any ABI, /tmp and /var/tmp are private writable tmpfs
#    (systemd's PrivateTmp: creating works and does not reach the host's),
#    the writable tree inside /tmp brought back ("keep"), whatever
#    unix_sockets says: with "any" the /tmp socket is still absent, unless
#    the profile lists /tmp itself (readable), which gets the host's /tmp;
#  - below, without mounts: refused (125, one error line; --check prints
#    the plan with "refused" and exits 125 too) unless the profile says
#    which trade it takes: unenforced.host_sockets, then the one "left
#    out:" notice line names the part and the socket IS reachable; or
#    speccoder's unenforced.workspace_sockets, then no unix socket is
#    reachable at all, the workspace's included (AF_UNIX refused, as
#    unix_sockets "none"); /tmp is the host's (not writable unless listed);
#  - sockets inside writable trees stay reachable in every case.
# Controls: every connect works outside, and with "unix_sockets": "any"
# (plus a readable /tmp with mounts).
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
		if [ "$mode" = mounts ]; then
			anytmp="{$mk\"writable\":[\"$ws\",\"$wt\"],\"readable\":[\"/\",\"/tmp\"],\"unix_sockets\":\"any\"}"
			expect "$t: control: $tmpd/s is reachable with unix_sockets \"any\" and /tmp readable (the host's /tmp)" ok "$(op "$who" "$anytmp" unix-connect "$tmpd/s")"
			check "$t: ... the plan has no private /tmp then" "" "$(mount_ops "$who" "$anytmp" | grep -x 'private_tmp /tmp')"
			expect "$t: with unix_sockets \"any\" alone /tmp is still private: the socket is not there" ENOENT "$(op "$who" "$any" unix-connect "$tmpd/s")"
		else
			expect "$t: control: $tmpd/s is reachable with unix_sockets \"any\"" ok "$(op "$who" "$any" unix-connect "$tmpd/s")"
		fi
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
			check "$t: the plan has a view of /run" listed "$(listed "view /run" "$(mount_ops "$who" "$p")")"
			expect "$t: the /tmp socket is not there (private /tmp)" ENOENT "$(op "$who" "$p" unix-connect "$tmpd/s")"
			expect "$t: /tmp shows only the writable tree inside it" "$(basename "$wt")" "$(op "$who" "$p" list /tmp)"
			if [ -n "$rund" ]; then
				expect "$t: the /run socket is not there (empty view of /run)" ENOENT "$(op "$who" "$p" unix-connect "$rund/s")"
			else
				skip "$t: /run is not writable here"
			fi
			expect "$t: /run is an empty view" "(empty)" "$(op "$who" "$p" list /run)"
			expect "$t: nothing can be created in the /run view" EROFS "$(op "$who" "$p" create /run/sbtest-new-$$)"
			check "$t: ... and nothing reached the host's /run" absent "$([ -e /run/sbtest-new-$$ ] && echo present || echo absent)"
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
			check "$t: without unenforced the profile is refused (125) on one line, suggesting the trade that closes more" \
				"125 __sandbox: this host cannot enforce .unix_sockets: pathname unix socket scope (sockets outside writable trees stay reachable) (needs Landlock ABI 9; this kernel has $ABI, or a mount namespace for a view of /run and a private /tmp (mounts \"off\")); to run without it, set in the profile: \"unenforced\":{\"workspace_sockets\":true} (workspace_sockets refuses every unix socket; \"host_sockets\":true instead leaves the host's reachable)" \
				"$rc $out"
			chk=$(as "$who" "$SB" --check "$refused" 2>"$T/err")
			rc=$?
			check "$t: ... --check exits 125 with the same line on stderr" "125 $out" "$rc $(errs)"
			check "$t: ... and prints the plan with the part in \"refused\"" ".unix_sockets unenforced.workspace_sockets" \
				"$(printf '%s' "$chk" | $PY -c 'import json,sys; print(" ".join(r["where"] + " " + r["allow_with"] for r in json.load(sys.stdin)["refused"]))' 2>&1)"
			expect "$t: with unenforced.host_sockets, the /tmp socket stays reachable (left out)" ok "$(op "$who" "$p" unix-connect "$tmpd/s")"
			check "$t: ... and the one notice line says so" \
				'__sandbox: notice: left out: pathname unix socket scope (sockets outside writable trees stay reachable) (needs Landlock ABI 9; this kernel has '"$ABI"', or a mount namespace for a view of /run and a private /tmp (mounts "off"); allowed by .unenforced.host_sockets)' \
				"$(errs)"
			# speccoder's meaning: closes more, never less
			ps="{\"mounts\":\"off\",\"unenforced\":{\"workspace_sockets\":true},\"writable\":[\"$ws\",\"$wt\"]}"
			expect "$t: with unenforced.workspace_sockets, the /tmp socket is not reachable (no AF_UNIX socket)" EAFNOSUPPORT "$(op "$who" "$ps" unix-connect "$tmpd/s")"
			check "$t: ... and the one notice line says so" \
				'__sandbox: notice: left out: unix sockets (every AF_UNIX socket refused, as unix_sockets "none", instead of a scope this host lacks) (needs Landlock ABI 9; this kernel has '"$ABI"', or a mount namespace for a view of /run and a private /tmp (mounts "off"); allowed by .unenforced.workspace_sockets)' \
				"$(errs)"
			expect "$t: ... nor the workspace's (\"unix sockets in writable trees are not reachable either\")" EAFNOSUPPORT "$(op "$who" "$ps" unix-connect "$ws/s")"
			expect "$t: ... the same with both names set: workspace_sockets wins" EAFNOSUPPORT \
				"$(op "$who" "{\"mounts\":\"off\",\"unenforced\":{\"workspace_sockets\":true,\"host_sockets\":true},\"writable\":[\"$ws\",\"$wt\"]}" unix-connect "$tmpd/s")"
			# no namespace: /tmp is the host's, writable only when listed
			new=sbtest-new-$$-$n
			expect "$t: /tmp is the host's, not writable unless listed" EACCES "$(op "$who" "$p" create "/tmp/$new")"
			expect "$t: control: with /tmp writable a new file there works" ok "$(op "$who" "{$mk\"writable\":[\"$ws\",\"/tmp\"]}" create "/tmp/$new")"
			check "$t: ... and is in the host's /tmp" present "$([ -e "/tmp/$new" ] && echo present || echo absent)"
			rm -f "/tmp/$new"
		fi
		if [ "$mode" = mounts ]; then
			# a private /tmp and /var/tmp (systemd's PrivateTmp), on any ABI
			ops=$(mount_ops "$who" "$p")
			check "$t: the plan has a private /tmp and /var/tmp, the writable tree in /tmp kept" \
				"listed listed listed" \
				"$(for r in "private_tmp /tmp" "private_tmp /var/tmp" "keep $wt"; do listed "$r" "$ops"; done | tr '\n' ' ' | sed 's/ $//')"
			check "$t: ... and no \"occupy\" rule" "" "$(printf '%s\n' "$ops" | grep '^occupy ')"
			new=sbtest-new-$$-$n
			expect "$t: a new file can be created in the private /tmp" ok "$(op "$who" "$p" create "/tmp/$new")"
			check "$t: ... it is not in the host's /tmp" absent "$([ -e "/tmp/$new" ] && echo present || echo absent)"
			expect "$t: ... and /var/tmp is private and writable too" ok "$(op "$who" "$p" create "/var/tmp/$new")"
			check "$t: ... not reaching the host's /var/tmp" absent "$([ -e "/var/tmp/$new" ] && echo present || echo absent)"
			expect "$t: control: the writable tree in /tmp is the host's one" ok "$(op "$who" "$p" create "$wt/$new")"
			check "$t: ... the file is there outside" present "$([ -e "$wt/$new" ] && echo present || echo absent)"
		fi
		bg_stop "ws$n"
		bg_stop "wt$n"
	done
done

done_testing

#!/usr/bin/env bash
# `user` (container entrypoint): switch to a user named in the image's own
# /etc/passwd and /etc/group, before confining.  A minimal root filesystem
# holding only the static __sandbox, busybox-static and the two files is
# entered with chroot: the binary needs nothing else from the image.
# Unprivileged: the key is refused (125) when the shim is not root, and in
# a user namespace (unshare -r) only the mapped uid 0 can be switched to.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
BUSYBOX=$(command -v busybox || true)

# rootfs DIR — the minimal image: /bin/busybox (+ applet links), /sbin/__sandbox,
# /etc/passwd, /etc/group, /home/app owned by app (1000:1000).
rootfs() {
	local r=$1
	mkdir -p "$r/bin" "$r/sbin" "$r/etc" "$r/home/app/data"
	cp "$BUSYBOX" "$r/bin/busybox"
	for a in sh id cat echo ls touch; do ln -s busybox "$r/bin/$a"; done
	cp "$SB" "$r/sbin/__sandbox"
	printf 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:App:/home/app:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\napp:x:1000:\nextra:x:2000:other,app\nnotme:x:3000:application\n' >"$r/etc/group"
	chown -R 1000:1000 "$r/home/app"
	chmod 755 "$r" "$r/home"
}

# in_root DIR PROFILE CMD... — run the shim chrooted in DIR; sets out, rc, err
in_root() {
	local r=$1 p=$2
	shift 2
	out=$(chroot "$r" /sbin/__sandbox "$p" -- "$@" </dev/null 2>"$T/err")
	rc=$?
	err=$(grep -v '^__sandbox: notice: ' "$T/err")
}

# "uid gid groups" of a process, from /proc/PID/status
ids_of() { awk '/^Uid:/{u=$2} /^Gid:/{g=$2} /^Groups:/{$1=""; s=$0} END{print u, g, "[" substr(s,2) "]"}'; }

if [ -z "$BUSYBOX" ] || ! file -L "$BUSYBOX" | grep -q 'statically linked'; then
	skip "busybox-static is not installed (scripts/setup installs it)"
	done_testing
	exit
fi
if [ "$(id -u)" != 0 ]; then
	skip "chroot needs root; run the suite as root for the container-entrypoint tests"
fi

# --- unprivileged: refused, never ignored -------------------------------
for who in $USERS; do
	[ "$who" = root ] && continue
	out=$(as "$who" "$SB" '{"user":{"uid":1000,"gid":1000},'"$UNF"'}' -- true 2>&1); rc=$?
	check "$who: user key refused when not root (exit)" 125 "$rc"
	check_match "$who: ... names .user and root" '^__sandbox: profile \.user: switching user needs the shim to start as root' "$out"
	out=$(as "$who" "$SB" --check '{"user":{"name":"nobody"},'"$UNF"'}' 2>&1 >/dev/null); rc=$?
	check "$who: --check refuses it the same way" "125 yes" "$rc $(printf '%s' "$out" | grep -q '\.user: switching user needs' && echo yes)"
done

[ "$(id -u)" = 0 ] || { done_testing; exit; }

R=$T/rootfs
rootfs "$R"
# the image holds nothing but these (no libc, no loader, no /proc, no /dev)
check "rootfs: only busybox, __sandbox, passwd, group" \
	"bin/busybox etc/group etc/passwd sbin/__sandbox" \
	"$(cd "$R" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//')"
check "__sandbox has no program interpreter (static)" "" "$(readelf -l "$R/sbin/__sandbox" | grep -i 'interpreter')"

APP='"user":{"name":"app"},"writable":["/home/app"],'"$UNF"

in_root "$R" "{$APP}" id
check "chroot, name app: id" "0 uid=1000(app) gid=1000(app) groups=2000(extra)" "$rc $out"
[ -n "$err" ] && diag "stderr: $err"

# inside a plain chroot "/" is no mount point, so no mount namespace: the
# carve-outs fall back to expansion (no new entries directly in /home/app);
# a subdirectory is fully writable
in_root "$R" "{$APP}" sh -c 'echo hi > /home/app/data/f && cat /home/app/data/f'
check "chroot: the user writes in the workspace" "0 hi" "$rc $out"
check "... the file belongs to app" "1000:1000" "$(stat -c %u:%g "$R/home/app/data/f")"
in_root "$R" "{$APP}" sh -c 'echo x > /etc/x'
check "chroot: writing outside the workspace is refused" "failed no" "$([ "$rc" != 0 ] && echo failed) $([ -e "$R/etc/x" ] && echo yes || echo no)"

# container-like: / of the image is a mount point (unshare -m + bind), so
# the mount namespace works and the workspace root takes new files
out=$(unshare -m sh -c 'mount --bind "$1" "$1" && exec chroot "$1" /sbin/__sandbox "$2" -- sh -c "echo ok > /home/app/direct && cat /home/app/direct && id -u"' sh "$R" "{$APP}" 2>"$T/err" </dev/null); rc=$?
check "container-like root: writes at the workspace root as app" "0 ok 1000" "$rc $(echo $out)"
[ "$rc" != 0 ] && diag "$(cat "$T/err")"

# examples/container-entrypoint.json as is, in the image (container-like root)
EXP=$REPO/examples/container-entrypoint.json
cp "$EXP" "$R/etc/profile.json" && chmod 644 "$R/etc/profile.json"
out=$(unshare -m sh -c 'mount --bind "$1" "$1" && exec chroot "$1" /sbin/__sandbox "@/etc/profile.json" -- sh -c "id; echo \$HOME \$TMPDIR; echo t > \$TMPDIR/f && cat \$TMPDIR/f"' sh "$R" 2>"$T/err" </dev/null); rc=$?
check "examples/container-entrypoint.json: runs as app with its HOME and tmp" \
	"0 uid=1000(app) gid=1000(app) groups=2000(extra) /home/app /home/app/.tmp t" "$rc $(echo $out)"
[ "$rc" != 0 ] && diag "$(cat "$T/err")"
out=$(chroot "$R" /sbin/__sandbox --check "@/etc/profile.json" 2>"$T/err"); rc=$?
check "examples/container-entrypoint.json: --check in the image exits 0" 0 "$rc"
if [ -d "$REPO/tests/node_modules/ajv" ]; then
	printf '%s' "$out" >"$T/plan-container.json"
	check "... its plan matches doc/plan.schema.json" "valid $T/plan-container.json" \
		"$(/usr/bin/node "$REPO/tests/schema/validate.js" "$REPO/doc/plan.schema.json" "$T/plan-container.json")"
else
	not_ok "ajv is installed in tests/node_modules (make tests runs npm ci --prefix tests)"
fi

# explicit ids; groups cleared unless listed
in_root "$R" '{"user":{"uid":1000,"gid":1000},'"$UNF"'}' id
check "uid/gid without groups: supplementary groups cleared" "0 uid=1000(app) gid=1000(app)" "$rc $out"
in_root "$R" '{"user":{"uid":1000,"gid":1000,"groups":[3000,2000]},'"$UNF"'}' id
check "uid/gid with groups: exactly those" "0 uid=1000(app) gid=1000(app) groups=2000(extra),3000(notme)" "$rc $out"
in_root "$R" '{"user":{"name":"app","groups":[]},'"$UNF"'}' id
check "name with groups []: /etc/group not used" "0 uid=1000(app) gid=1000(app)" "$rc $out"

# tmp created for the final user, and refused when it belongs to another
in_root "$R" '{"user":{"name":"app"},"tmp":"/home/app/tmp",'"$UNF"'}' sh -c 'echo t > "$TMPDIR/f" && cat "$TMPDIR/f"'
check "tmp is made for the final user" "0 t 1000 700" "$rc $out $(stat -c '%u %a' "$R/home/app/tmp")"
mkdir -p "$R/home/app/roottmp" && chmod 700 "$R/home/app/roottmp"
in_root "$R" '{"user":{"name":"app"},"tmp":"/home/app/roottmp",'"$UNF"'}' true
check "tmp owned by root, user app: refused" 125 "$rc"
check_match "... naming both uids" 'profile \.tmp "/home/app/roottmp": is owned by uid 0, not by uid 1000 running the command' "$err"

# --check shows the resolved user
out=$(chroot "$R" /sbin/__sandbox --check "{$APP}" 2>/dev/null | tr -d ' \n'); rc=$?
check_match "--check: resolved uid, gid, groups" '"user":\{"uid":1000,"gid":1000,"groups":\[2000\],"name":"app"\}' "$out"

# reading the image's files.  The shim parses them itself, strictly (a
# line it cannot read refuses the run), rather than with musl's
# fgetpwent/getpwnam_r: the cases marked "musl:" below are what musl
# reads wrongly (an empty or overflowing id becomes 0: root), and musl's
# getgrouplist also asks nscd over a socket — not "the image's own files".
bad() {
	local name=$1 file=$2 content=$3 prof=$4 want=$5
	local r=$T/bad-$name
	rootfs "$r"
	if [ -n "$content" ]; then printf '%b' "$content" >"$r/etc/$file"; else rm -f "$r/etc/$file"; fi
	in_root "$r" "$prof" id
	if [ "$rc" = 125 ] && printf '%s' "$err" | grep -Eq -- "$want"; then ok "$name"; else not_ok "$name"; diag "rc=$rc" "err: $err" "want: $want"; fi
}
bad "unknown name refused" passwd 'root:x:0:0::/:/bin/sh\n' "{$APP}" '\.user\.name "/etc/passwd": no user "app"'
bad "malformed passwd line refused (names the line)" passwd 'root:x:0:0::/:/bin/sh\napp:x:1000:1000\n' "{$APP}" '"/etc/passwd": line 2 is not a valid entry'
bad "non-numeric uid refused" passwd 'app:x:10a:1000::/:/bin/sh\n' "{$APP}" '"/etc/passwd": line 1: user "app" has no valid numeric uid and gid'
# musl reads these, wrongly: -1 ("no change": stay root), 0 for an empty
# field, 4294967296 wrapped to 0 (root)
bad "uid 4294967295 refused" passwd 'app:x:4294967295:1000::/:/bin/sh\n' "{$APP}" 'no valid numeric uid'
bad "empty uid refused (musl: 0)" passwd 'app:x::1000::/:/bin/sh\n' "{$APP}" 'line 1: user "app" has no valid numeric uid and gid'
bad "empty gid refused (musl: 0)" passwd 'app:x:1000:::/:/bin/sh\n' "{$APP}" 'line 1: user "app" has no valid numeric uid and gid'
bad "uid 4294967296 refused (musl: 0)" passwd 'app:x:4294967296:1000::/:/bin/sh\n' "{$APP}" 'line 1: user "app" has no valid numeric uid and gid'
bad "empty group gid refused (musl: 0)" group 'root:x:0:\nextra:x::app\n' "{$APP}" '"/etc/group": line 2: group "extra" has no valid numeric gid'
bad "group gid 4294967296 refused (musl: 0)" group 'extra:x:4294967296:app\n' "{$APP}" 'line 1: group "extra" has no valid numeric gid'
bad "duplicate user refused" passwd 'app:x:1000:1000::/:/bin/sh\napp:x:0:0::/:/bin/sh\n' "{$APP}" 'user "app" is listed twice \(lines 1 and 2\)'
# libc alone would skip the malformed line and take the second (uid 0)
bad "a malformed line before a duplicate refuses the run" passwd 'app:x:1000:1000\napp:x:0:0::/:/bin/sh\n' "{$APP}" '"/etc/passwd": line 1 is not a valid entry'
bad "missing passwd refused" passwd '' "{$APP}" '"/etc/passwd": cannot read the user database: No such file or directory'
bad "NUL byte refused" passwd 'app:x:1000:1000::/:/bin/sh\n\0\n' "{$APP}" '"/etc/passwd": cannot read the user database: Invalid argument'
# groups_of NAME CONTENT WANT — `id -G` of app with CONTENT as /etc/group
groups_of() {
	local r=$T/grp-$1
	rootfs "$r"
	printf '%b' "$2" >"$r/etc/group"
	in_root "$r" "{$APP}" id -G
	check "$1" "0 $3" "$rc $out"
}
# a malformed group line refuses the run (libc would skip it silently)
bad "malformed group line refused" group 'broken:x:2000\nextra:x:2001:app\n' "{$APP}" '"/etc/group": line 1 is not a valid entry'
# musl drops the last byte of a line as its newline: a last line without
# one would lose "app" (read "ap") or gain it ("appx" read "app")
groups_of "last group line without newline keeps its member" 'root:x:0:\nextra:x:2000:other,app' "1000 2000"
groups_of "last group line without newline gives no near-name" 'a:x:2001:app\nb:x:2002:appx' "1000 2001"
# a gid listed twice counts once; the own group, when it lists the name, stays
r=$T/grp-twice
rootfs "$r"
printf 'app:x:1000:app\nx:x:2000:app\ny:x:2000:app,app\n' >"$r/etc/group"
out=$(chroot "$r" /sbin/__sandbox --check "{$APP}" 2>/dev/null | tr -d ' \n')
check_match "groups: each gid once, in file order" '"user":\{"uid":1000,"gid":1000,"groups":\[1000,2000\],' "$out"
# an image without /etc/group: no supplementary groups
r=$T/nogroup
rootfs "$r"
rm "$r/etc/group"
in_root "$r" "{$APP}" id -G
check "no /etc/group: primary group only" "0 1000" "$rc $out"

# capabilities after the switch: none left in any set, the same locked
# securebits as a run without a user switch; a kept capability survives
# in the ambient set for the non-root user (host view, /proc available)
U='"user":{"uid":'$NOBODY',"gid":'$NOBODY'},'"$UNF"
SECB='import ctypes; print(ctypes.CDLL(None).prctl(27, 0, 0, 0, 0))' # PR_GET_SECUREBITS
st=$("$SB" "{$U}" -- sh -c 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs)" /proc/self/status | tr -s "\t" " "' 2>/dev/null)
check "switched: every capability set empty, no_new_privs" \
	"CapInh: 0000000000000000 CapPrm: 0000000000000000 CapEff: 0000000000000000 CapBnd: 0000000000000000 CapAmb: 0000000000000000 NoNewPrivs: 1" \
	"$(echo $st)"
sb_user=$("$SB" "{$U}" -- /usr/bin/python3 -c "$SECB" 2>/dev/null)
sb_root=$("$SB" "{$UNF}" -- /usr/bin/python3 -c "$SECB" 2>/dev/null)
check "switched: securebits locked as for root (nonzero, equal)" "yes $sb_root" "$([ "${sb_root:-0}" != 0 ] && echo yes) $sb_user"
st=$("$SB" "{$U,\"capabilities\":[\"CAP_NET_BIND_SERVICE\"]}" -- sh -c 'grep -E "^Cap(Prm|Eff|Bnd|Amb)" /proc/self/status | tr -s "\t" " "' 2>/dev/null)
check "switched: a kept capability stays (bit 10) and nothing else" \
	"CapPrm: 0000000000000400 CapEff: 0000000000000400 CapBnd: 0000000000000400 CapAmb: 0000000000000400" "$(echo $st)"
ids=$("$SB" "{$U}" -- cat /proc/self/status 2>/dev/null | ids_of)
check "switched on the host: uid, gid, no supplementary groups" "$NOBODY $NOBODY []" "$ids"

# uid 0 of a user namespace counts as root: unprivileged, unshare -r makes
# one (only uid 0 mapped, setgroups denied)
if setpriv --reuid $NOBODY --regid $NOBODY --clear-groups unshare -r true 2>/dev/null; then
	out=$(setpriv --reuid $NOBODY --regid $NOBODY --clear-groups unshare -r --root="$R" /sbin/__sandbox '{"user":{"uid":0,"gid":0},'"$UNF"'}' -- id 2>/dev/null </dev/null); rc=$?
	check "nobody in a user namespace: switch to the mapped uid 0" "0 uid=0(root) gid=0(root)" "$rc $out"
	out=$(setpriv --reuid $NOBODY --regid $NOBODY --clear-groups unshare -r --root="$R" /sbin/__sandbox '{"user":{"uid":1000,"gid":1000},'"$UNF"'}' -- id 2>&1 </dev/null); rc=$?
	check "nobody in a user namespace: an unmapped uid is refused" 125 "$rc"
	check_match "... saying it is not mapped" '\.user: switching to gid 1000 failed: Invalid argument \(gid not mapped in this user namespace\)' "$out"
else
	skip "unprivileged user namespaces are not available here"
	skip "unprivileged user namespaces are not available here"
	skip "unprivileged user namespaces are not available here"
fi
done_testing

#!/usr/bin/env bash
# TIOCSTI (push bytes into the terminal's input: CVE-2017-5226) is refused
# by seccomp, also with high bits set in the request (the kernel ignores
# them, an unmasked 64-bit compare would not: CVE-2019-10063).
#
# Making the EPERM mean "seccomp":
#  1. On a non-terminal (/dev/null) the kernel itself answers ENOTTY, with
#     no capability or tty check; seccomp runs first and answers EPERM.
#     seccomp.allow ["ioctl"] brings ENOTTY back.
#  2. On a real terminal (a pty made by python, the command's controlling
#     tty): outside, TIOCSTI works; inside it is EPERM — for root also with
#     CAP_SYS_ADMIN kept, so the tty layer's own checks
#     (dev.tty.legacy_tiocsti, controlling tty) cannot be why — and with
#     seccomp.allow ["ioctl"] it works again.
. "$(dirname "$0")/common.sh"

# pty WHO CMD [ARG...] — run CMD as WHO with a fresh pty as its controlling
# terminal (echo off: injected bytes are not echoed back) and print the
# last line it wrote there (the shim's notices come before the helper's).
PY=/usr/bin/python3
PTY='
import os, pty, sys, termios
pid, fd = pty.fork()
if pid == 0:
    try:
        a = termios.tcgetattr(0)
        a[3] &= ~termios.ECHO
        a[1] &= ~termios.OPOST
        termios.tcsetattr(0, termios.TCSANOW, a)
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
lines = [l for l in out.decode(errors="replace").replace("\r", "").split("\n") if l]
print(lines[-1] if lines else "")
'
pty() { local who=$1; shift; as "$who" "$PY" -c "$PTY" "$@"; }

legacy=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)
ALLOW='"seccomp":{"allow":["ioctl"]}'

for who in $USERS; do
	# --- 1. a non-terminal: ENOTTY from the kernel, EPERM from seccomp ---
	for op in tiocsti tiocsti-high; do
		expect "$who: control: $op on /dev/null answers ENOTTY outside" ENOTTY \
			"$(outside "$who" $op /dev/null)"
		expect "$who: $op on /dev/null is refused before the kernel looks" EPERM \
			"$(inside "$who" "" $op /dev/null)"
		expect "$who: control: $op on /dev/null answers ENOTTY with seccomp.allow [\"ioctl\"]" ENOTTY \
			"$(inside "$who" "$ALLOW" $op /dev/null)"
	done

	# TIOCLINUX (console input injection) the same way.
	for req in 0x541C 0xffffffff0000541C; do
		expect "$who: control: ioctl($req = TIOCLINUX) on /dev/null answers ENOTTY outside" ENOTTY \
			"$(outside "$who" ioctl /dev/null $req)"
		expect "$who: ioctl($req = TIOCLINUX) on /dev/null is refused" EPERM \
			"$(inside "$who" "" ioctl /dev/null $req)"
	done

	# --- 2. a real terminal ---
	if [ ! -x "$PY" ] || ! pty "$who" /usr/bin/tty 2>/dev/null | grep -q '^/dev/'; then
		skip "$who: no pseudo-terminal can be had here ($PY with pty.fork)"
		continue
	fi
	caps=
	[ "$who" = root ] && caps='"capabilities":["CAP_SYS_ADMIN"]'
	for op in tiocsti tiocsti-high; do
		if [ "$legacy" = 1 ] || [ "$who" = root ]; then
			check "$who: control: $op on the controlling terminal works outside" ok \
				"$(pty "$who" "$TRY" $op 2>&1)"
		else
			# Linux 6.2+ built without LEGACY_TIOCSTI (Debian since
			# trixie): the tty answers EIO without CAP_SYS_ADMIN, so
			# the EPERM below is still seccomp's, not the tty's
			check "$who: control: outside, the tty itself refuses $op without CAP_SYS_ADMIN (dev.tty.legacy_tiocsti 0: EIO)" EIO \
				"$(pty "$who" "$TRY" $op 2>&1)"
		fi
		check "$who: $op on the controlling terminal is refused" EPERM \
			"$(pty "$who" "$SB" "{$UNF}" -- "$TRY" $op 2>&1)"
		check "$who: $op through /dev/tty is refused" EPERM \
			"$(pty "$who" "$SB" "{$UNF}" -- "$TRY" $op /dev/tty 2>&1)"
		if [ -n "$caps" ]; then
			check "$who: $op is refused with CAP_SYS_ADMIN kept (so by seccomp)" EPERM \
				"$(pty "$who" "$SB" "{$UNF,$caps}" -- "$TRY" $op 2>&1)"
		fi
		if [ "$legacy" = 1 ] || [ -n "$caps" ]; then
			check "$who: control: $op works inside with seccomp.allow [\"ioctl\"]" ok \
				"$(pty "$who" "$SB" "{$UNF,$ALLOW${caps:+,$caps}}" -- "$TRY" $op 2>&1)"
		else
			skip "$who: dev.tty.legacy_tiocsti is 0: without CAP_SYS_ADMIN the tty refuses TIOCSTI itself, so no inside control"
		fi
	done
done

done_testing

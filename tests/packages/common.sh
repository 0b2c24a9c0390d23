# tests/packages/common.sh — sourced by tests/packages/*.t after tests/lib.sh.
#
# build_packages: `scripts/build-packages` into $PK for x86_64 and a fake
# aarch64 (this machine's binary with its ELF e_machine set to AArch64: it
# cannot run here, but every per-architecture choice can be checked
# against it by content).  mcp_fixture WHO: a workspace with files, a home
# with a hidden .ssh, the MCP filesystem server copied world-readable, and
# $PROFILE confining it (reads: the system, the server, the home; writes:
# the workspace; hidden: the key).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PK=$T/packages
FAKE_ARM=$T/fake-aarch64/__sandbox

build_packages() {
	mkdir -p "$(dirname "$FAKE_ARM")"
	cp "$SB" "$FAKE_ARM"
	# e_machine (offset 18, little endian) = 183, EM_AARCH64
	printf '\267\000' | dd of="$FAKE_ARM" bs=1 seek=18 conv=notrunc status=none
	if ! PACKAGES_ARCHES="x86_64 aarch64" PACKAGES_BIN_x86_64="$SB" PACKAGES_BIN_aarch64="$FAKE_ARM" \
	    "$REPO/scripts/build-packages" "$PK" >"$T/build.out" 2>&1; then
		echo "Bail out! scripts/build-packages failed: $(tail -n 3 "$T/build.out" | tr '\n' ' ')"
		exit 1
	fi
	chmod -R a+rX "$PK"
	WHEEL=$(ls "$PK"/sandbox_shim-*-manylinux_2_17_x86_64.*.whl)
	WHEEL_ARM=$(ls "$PK"/sandbox_shim-*-manylinux_2_17_aarch64.*.whl)
	TGZ=$(ls "$PK"/sandbox-shim-*.tgz)
}

# sha256 of a file
sum() { sha256sum "$1" | cut -d' ' -f1; }

mcp_fixture() {
	local who=$1
	need_mcp_server
	if [ ! -d "$T/node_modules" ]; then
		cp -r "$NM" "$T/node_modules"
		chmod -R a+rX "$T/node_modules"
	fi
	FS_SERVER=$T/node_modules/$PKG/dist/index.js
	WS=$(mkws "$who" ws)
	HOMEDIR=$(mkws "$who" home)
	mkdir -p "$HOMEDIR/.ssh"
	echo "ssh-private-key-$who" >"$HOMEDIR/.ssh/id_ed25519"
	echo "notes of $who" >"$WS/notes.txt"
	[ "$who" = nobody ] && chown -R $NOBODY:$NOBODY "$HOMEDIR" "$WS"
	PROFILE="{\"readable\":[\"/usr\",\"/etc\",\"/lib\",\"/lib64\",\"/bin\",\"$T/node_modules\",\"$HOMEDIR\"],
\"writable\":[\"$WS\"],\"hidden\":[\"$HOMEDIR/.ssh\"],\"network\":\"off\",
\"env\":{\"clear\":true,\"keep\":[\"PATH\",\"LANG\"]}}"
}

# check_mcp WHO WHAT OUTPUT — the lines every client prints: the server
# answered initialize, listed the workspace, refused the hidden key, and
# its stdout carried only JSON-RPC frames.
check_mcp() {
	check_match "$1: $2: initialize answered by the MCP filesystem server" '^init secure-filesystem-server' "$3"
	check_match "$1: $2: list_directory of the workspace" '^list ok .*\[FILE\] notes\.txt' "$3"
	check_match "$1: $2: reading the hidden key is refused" '^hidden error ' "$3"
	if printf '%s' "$3" | grep -q "ssh-private-key"; then not_ok "$1: $2: the key's content never came back"; else ok "$1: $2: the key's content never came back"; fi
	check_match "$1: $2: stdout carried only JSON-RPC frames" '^frames [0-9]+ clean$' "$3"
	check_match "$1: $2: the server exited 0 when stdin closed" '^exit 0$' "$3"
}

# denial_fixture WHO — for the denial report through each package's API:
# $DWS, a workspace holding try-syscall as $DWS/try; $FOUR, the command of
# tests/integration/report.t (unshare, mount, ptrace, io_uring_setup, each
# printing the errno it saw); $MANY, a command making $MANY_N refused
# io_uring_setup calls, paced (1 ms every 25) so that a reader draining
# concurrently keeps up even on a loaded machine, and well past what a
# reader draining only at the end could get: the 64 KiB pipe and the
# listener's 64 KiB queue, $MANY_MAX lines of 100 bytes or more;
# $REC_SB, a stand-in for __sandbox that records the descriptors it got
# ($REC.fds: "N TARGET FLAGS" per line; its own script descriptor, 10 and
# up, left out), the profile's (from its fd:N argument, $REC.pfd) and the
# profile ($REC.profile), then runs the real one with that profile inline
# and the other descriptors as they were.
denial_fixture() {
	DWS=$(mkws "$1" denials)
	cp "$HELPERS/try-syscall" "$DWS/try"
	chmod 755 "$DWS/try"
	FOUR="\"\$0/try\" unshare-user; \"\$0/try\" mount \"\$0\"; \"\$0/try\" ptrace-attach ppid; \"\$0/try\" io_uring_setup"
	MANY_N=3000
	MANY_MAX=$((131072 / 100))
	MANY="import ctypes, time
l = ctypes.CDLL(None)
for i in range($MANY_N):
    l.syscall(425, 1, 0)
    if i % 25 == 24:
        time.sleep(0.001)"
	REC=$T/rec-$1
	: >"$REC.fds"; : >"$REC.profile"; : >"$REC.pfd"
	chmod 666 "$REC.fds" "$REC.profile" "$REC.pfd"
	REC_SB=$T/bin/record-denials-sandbox
	cat >"$REC_SB" <<SH
#!/bin/sh
# listed by a child: a redirection here would open a descriptor of its own
sh -c 'for f in /proc/\$1/fd/*; do
	n=\${f##*/}
	[ "\$n" -lt 10 ] && echo "\$n \$(readlink "\$f" | sed "s/:\[[0-9]*\]\\\$//") \$(sed -n "s/^flags:[[:space:]]*//p" /proc/\$1/fdinfo/\$n)"
done' sh \$\$ >"$REC.fds"
pfd=\${1#fd:}
echo "\$pfd" >"$REC.pfd"
eval "cat <&\$pfd" >"$REC.profile"
eval "exec \$pfd<&-"
shift
exec "$SB" "\$(cat "$REC.profile")" "\$@"
SH
	chmod 755 "$REC_SB"
}

# check_denials WHO WHAT OUTPUT — the lines every client prints for the
# report: "follow" (the lines as they came: event, iterator or callback),
# "list" (the errors kept once the run ended), "seen" (the errnos the
# command printed), "same" (the caller's profile unchanged), "many" (how
# many io_uring_setup lines of $MANY_N, the sum of the dropped counts,
# how many other lines, the exit status),
# "without" (no report asked: none kept), "twice" (the profile naming
# denials as well: the error).
check_denials() {
	check "$1: $2: the four refused calls, one line each, as they came" \
		"follow unshare mount ptrace io_uring_setup" "$(echo "$3" | grep '^follow')"
	check "$1: $2: ... kept once the run ended, with the errnos the command saw" \
		"list EPERM EPERM EPERM ENOSYS|seen EPERM EPERM EPERM ENOSYS" "$(echo "$3" | grep -e '^list' -e '^seen' | paste -sd'|')"
	check "$1: $2: the caller's profile is not modified" "same true" "$(echo "$3" | grep '^same' | tr A-Z a-z)"
	# lines are lost only where the reader falls 64 KiB behind (the
	# listener never waits for it): said, not failed, on a loaded machine
	local calls dropped other code
	read -r _ calls dropped other _ code <<<"$(echo "$3" | grep '^many')"
	check "$1: $2: $MANY_N refused calls: the run ends (no deadlock), every line a refused io_uring_setup or a dropped count, none beyond $MANY_N" \
		"exit 0, other 0, within yes" "exit $code, other $other, within $([ $((calls + dropped)) -le "$MANY_N" ] && echo yes)"
	check "$1: $2: ... read while the command ran: more than the $MANY_MAX lines a reader draining only at its end could get" \
		"yes" "$([ "${calls:-0}" -gt "$MANY_MAX" ] && echo yes || echo "no: $calls")"
	[ "$calls" = "$MANY_N" ] || diag "$1: $2: $calls of $MANY_N lines, $dropped dropped (a reader 64 KiB behind: a loaded machine)"
	check "$1: $2: without the option no report is kept" "without none" "$(echo "$3" | grep '^without')"
	check "$1: $2: the option with a profile naming denials: an error saying so" \
		"twice the profile names \"denials\"" "$(echo "$3" | grep '^twice' | sed 's/^twice \(sandbox-shim: \|sandbox_shim: \|sandbox: \)/twice /; s/ and .*//')"
}

# check_recorded WHO WHAT WITH — what the shim got (through $REC_SB): with
# the option (WITH=1) stdio, the profile's descriptor and the report's, no
# other (the read end stays in the parent), the report's a pipe or a
# socket open for writing, named by the profile it got as denials.fd;
# without it, stdio and the profile's, and the profile as the caller wrote it.
check_recorded() {
	local got
	got=$(python3 - "$REC" "$3" <<'PY' 2>&1
import json, sys
rec, with_ = sys.argv[1], sys.argv[2] == "1"
fds = {int(l.split()[0]): l.split()[1:] for l in open(rec + ".fds") if l.strip()}
pfd = int(open(rec + ".pfd").read())
prof = json.load(open(rec + ".profile"))
rep = prof.get("denials", {}).get("fd") if isinstance(prof.get("denials"), dict) else None
want = {0, 1, 2, pfd} | ({rep} if rep is not None else set())
out = ["fds " + ("stdio+profile+report" if rep is not None and want == set(fds) else
                 "stdio+profile" if want == set(fds) else "%s (profile %d)" % (sorted(fds), pfd))]
if rep is not None:
    target, flags = fds.get(rep, ["none", "0"])[:2]
    out.append("report %s %s" % (target if target in ("pipe", "socket") else "other:" + target,
                                 "writable" if int(flags, 8) & 3 else "read-only"))
out.append("keys " + " ".join(sorted(prof)))
print(", ".join(out))
PY
)
	if [ "$3" = 1 ]; then
		check "$1: $2: the shim got stdio, the profile's and the report's descriptors, no other; the report's write end, named by the profile" \
			"fds stdio+profile+report, report pipe writable, keys denials writable" "$(echo "$got" | sed 's/report socket/report pipe/')"
	else
		check "$1: $2: without the option the shim got stdio and the profile's descriptor, the profile unchanged" \
			"fds stdio+profile, keys writable" "$got"
	fi
}

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

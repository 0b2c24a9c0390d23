#!/usr/bin/env bash
# scripts/build-packages (make packages): per-architecture selection and
# refusals, reproducible bytes, the TypeScript types checked against the
# schema.
#  - both architectures: the npm tarball holds bin/linux-x64 and
#    bin/linux-arm64 (cpu x64, arm64), one wheel per architecture, the Go
#    module both; the aarch64 binary is a fake (e_machine AArch64);
#  - no aarch64 binary: refused naming `make aarch64` and PACKAGES_ARCHES;
#    PACKAGES_ARCHES=x86_64 builds without it (cpu x64 only, one wheel, no
#    arm64 embed file);
#  - a binary of the wrong architecture, or a dynamically linked one, is
#    refused naming it;
#  - two builds give the same bytes;
#  - profile.d.ts equals what gen-types.js makes of the schema, and a
#    schema change (a copy of the tree) makes the build refuse.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
build_packages
B=$REPO/scripts/build-packages
listing() { tar -tzf "$1" | grep '/bin/' | sort | paste -sd' '; }
check "npm tarball: a binary per architecture" "package/bin/linux-arm64/__sandbox package/bin/linux-x64/__sandbox" "$(listing "$TGZ")"
check "npm package.json: cpu x64, arm64" '["x64","arm64"]' "$(tar -xzOf "$TGZ" package/package.json | node -p 'JSON.stringify(JSON.parse(require("fs").readFileSync(0)).cpu)')"
check "two wheels, tagged per architecture" \
	"sandbox_shim-$("$SB" --version | sed -n '1s/^__sandbox //p')-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl sandbox_shim-$("$SB" --version | sed -n '1s/^__sandbox //p')-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl" \
	"$(cd "$PK" && ls *.whl | paste -sd' ')"
check "WHEEL of the aarch64 wheel names its three tags, not purelib" \
	"Root-Is-Purelib: false|Tag: py3-none-manylinux_2_17_aarch64|Tag: py3-none-manylinux2014_aarch64|Tag: py3-none-musllinux_1_1_aarch64" \
	"$(/usr/bin/python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); print(z.read([n for n in z.namelist() if n.endswith("/WHEEL")][0]).decode())' "$WHEEL_ARM" | grep -E '^(Tag|Root)' | paste -sd'|')"

# reproducible: a second build gives the same bytes
PK2=$T/packages2
PACKAGES_ARCHES="x86_64 aarch64" PACKAGES_BIN_x86_64="$SB" PACKAGES_BIN_aarch64="$FAKE_ARM" "$B" "$PK2" >/dev/null 2>&1
check "a second build: the same tarball, wheels and Go module zip" "same" \
	"$(for f in "$(basename "$TGZ")" "$(basename "$WHEEL")" "$(basename "$WHEEL_ARM")"; do cmp -s "$PK/$f" "$PK2/$f" || echo "differs: $f"; done
	   diff -r "$PK/goproxy" "$PK2/goproxy" >/dev/null || echo "differs: goproxy"; echo same)" 

# no aarch64 binary
out=$(PACKAGES_ARCHES="x86_64 aarch64" PACKAGES_BIN_x86_64="$SB" PACKAGES_BIN_aarch64="$T/none" "$B" "$T/pk-missing" 2>&1); rc=$?
check "no aarch64 binary: refused, naming make aarch64 and PACKAGES_ARCHES=x86_64" \
	"1 build-packages: no aarch64 binary at $T/none: run \`make aarch64\` first, or set PACKAGES_ARCHES=x86_64 for a local build of this machine's architecture only" "$rc $out"
check "... nothing written" "" "$(ls "$T/pk-missing" 2>/dev/null)"
out=$(PACKAGES_ARCHES=x86_64 PACKAGES_BIN_x86_64="$SB" "$B" "$T/pk-x86" 2>&1); rc=$?
check "PACKAGES_ARCHES=x86_64: built" "0" "$rc"
check "... the tarball holds x64 only, cpu [x64]" 'package/bin/linux-x64/__sandbox ["x64"]' \
	"$(listing "$T"/pk-x86/*.tgz) $(tar -xzOf "$T"/pk-x86/*.tgz package/package.json | node -p 'JSON.stringify(JSON.parse(require("fs").readFileSync(0)).cpu)')"
check "... one wheel; the Go module without the arm64 embed file" "1 no" \
	"$(ls "$T"/pk-x86/*.whl | wc -l) $([ -e "$T/pk-x86/go/sandbox/embed_arm64.go" ] && echo yes || echo no)"
out=$(PACKAGES_ARCHES="x86_64 riscv64" "$B" "$T/pk-riscv" 2>&1); rc=$?
check_match "an unknown architecture is refused" "^build-packages: unknown architecture 'riscv64'" "$out"
# wrong architecture, dynamic binary
out=$(PACKAGES_ARCHES="x86_64 aarch64" PACKAGES_BIN_x86_64="$SB" PACKAGES_BIN_aarch64="$SB" "$B" "$T/pk-wrong" 2>&1); rc=$?
check "the x86_64 binary given as aarch64: refused" "1 build-packages: $SB is not a static aarch64 executable: ELF machine 62, want 183" "$rc $out"
out=$(PACKAGES_ARCHES=x86_64 PACKAGES_BIN_x86_64=/bin/ls "$B" "$T/pk-dyn" 2>&1); rc=$?
check "a dynamically linked binary: refused" "1 build-packages: /bin/ls is not a static x86_64 executable: dynamically linked (has an interpreter)" "$rc $out"
out=$(PACKAGES_ARCHES=x86_64 PACKAGES_BIN_x86_64="$REPO/README.md" "$B" "$T/pk-txt" 2>&1); rc=$?
check "not an ELF file: refused" "1 build-packages: $REPO/README.md is not a static x86_64 executable: not a 64-bit little-endian ELF file" "$rc $out"

# TypeScript types against the schema
check "profile.d.ts is what gen-types.js makes of the schema" "same" \
	"$(node "$REPO/packages/npm/gen-types.js" "$REPO/policy/profile.schema.json" | cmp -s - "$REPO/packages/npm/profile.d.ts" && echo same)"
check "profile.d.ts names every top-level key of the schema" "" \
	"$(for k in $(node -p 'Object.keys(require(process.argv[1]).properties).join(" ")' "$REPO/policy/profile.schema.json"); do grep -q "^	$k?: " "$REPO/packages/npm/profile.d.ts" || echo "$k"; done)"
C=$T/tree
mkdir -p "$C/shim" "$C/policy"
cp -r "$REPO/scripts" "$REPO/packages" "$C/"
cp "$REPO/shim/shim.h" "$C/shim/"
cp "$REPO/LICENSE" "$C/"
cp "$REPO/policy/profile.schema.json" "$C/policy/profile.schema.json"
node -e 'const f=process.argv[1], s=JSON.parse(require("fs").readFileSync(f)); s.properties.new_key={type:"boolean"}; require("fs").writeFileSync(f, JSON.stringify(s))' "$C/policy/profile.schema.json"
out=$(PACKAGES_ARCHES=x86_64 PACKAGES_BIN_x86_64="$SB" "$C/scripts/build-packages" "$T/pk-drift" 2>&1); rc=$?
check_match "a key added to the schema: the build refuses until profile.d.ts is regenerated" \
	"^1 build-packages: packages/npm/profile.d.ts differs from policy/profile.schema.json" "$rc $out"
node "$C/packages/npm/gen-types.js" "$C/policy/profile.schema.json" >"$C/packages/npm/profile.d.ts"
check "... regenerated: it holds the new key, and the build passes" "1 0" \
	"$(grep -c '^	new_key?: boolean;' "$C/packages/npm/profile.d.ts") $(PACKAGES_ARCHES=x86_64 PACKAGES_BIN_x86_64="$SB" "$C/scripts/build-packages" "$T/pk-drift" >/dev/null 2>&1; echo $?)"
done_testing

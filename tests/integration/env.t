#!/usr/bin/env bash
# env rules: clear, keep (exact names and PREFIX*), set, unset, and their
# order (unset after keep, set last; tmp's TMPDIR/TMP/TEMP before set).
. "$(dirname "$0")/common.sh"
# expect: common.sh's, but with the whole stderr (these runs bypass sbrun)
expect() { if [ "$rc" = "$2" ] && [ "$out" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "expected rc=$2 out: $3" "got rc=$rc out: $out" "stderr: $(cat "$T/err")"; fi; }
# envrun WHO PROFILE — run /usr/bin/env in a known outer environment; sorted output in $out
envrun() {
	out=$(as "$1" env -i PATH=/usr/bin:/bin FOO_A=1 FOO_B='two words' FOO=bare FOOBAR=x BAR_1=3 'WEIRD=a=b' \
		"$SB" "$2" -- /usr/bin/env </dev/null 2>"$T/err" | LC_ALL=C sort); rc=${PIPESTATUS[0]}
}

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "env-$style")
		t="$who/$style"

		envrun "$who" "$(prof "$style" "$ws")"
		expect "$t: no env rules: the environment is passed unchanged" 0 "$(env -i PATH=/usr/bin:/bin FOO_A=1 FOO_B='two words' FOO=bare FOOBAR=x BAR_1=3 'WEIRD=a=b' /usr/bin/env | LC_ALL=C sort)"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"clear":true}')"
		expect "$t: clear" 0 ""

		envrun "$who" "$(prof "$style" "$ws" '"env":{"clear":true,"keep":["FOO_*","WEIRD"]}')"
		expect "$t: clear + keep FOO_* and an exact name" 0 "FOO_A=1
FOO_B=two words
WEIRD=a=b"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"clear":true,"keep":["FOO"]}')"
		expect "$t: keep an exact name does not match longer names" 0 "FOO=bare"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"clear":true,"keep":["FOO*"]}')"
		expect "$t: keep FOO* matches FOO itself and every longer name" 0 "FOO=bare
FOOBAR=x
FOO_A=1
FOO_B=two words"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"clear":true,"keep":["*"]}')"
		expect "$t: keep * keeps everything" 0 "$(env -i PATH=/usr/bin:/bin FOO_A=1 FOO_B='two words' FOO=bare FOOBAR=x BAR_1=3 'WEIRD=a=b' /usr/bin/env | LC_ALL=C sort)"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"unset":["FOO_B","FOO","NOT_THERE"]}')"
		expect "$t: unset without clear" 0 "BAR_1=3
FOOBAR=x
FOO_A=1
PATH=/usr/bin:/bin
WEIRD=a=b"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"clear":true,"keep":["FOO_*"],"unset":["FOO_A"],"set":{"NEW":"v=1","FOO_B":"replaced","EMPTY":""}}')"
		expect "$t: clear + keep + unset + set (set overrides a kept one)" 0 "EMPTY=
FOO_B=replaced
NEW=v=1"

		envrun "$who" "$(prof "$style" "$ws" '"env":{"set":{"BAR_1":"new"},"unset":["BAR_1"]}')"
		check_match "$t: set wins over unset of the same name" "^BAR_1=new$" "$out"

		envrun "$who" "$(prof "$style" "$ws" "\"tmp\":\"$ws/tmp\",\"env\":{\"clear\":true,\"set\":{\"TMP\":\"/elsewhere\"}}")"
		expect "$t: tmp sets TMPDIR/TMP/TEMP, env.set overrides one" 0 "TEMP=$ws/tmp
TMP=/elsewhere
TMPDIR=$ws/tmp"
	done
done
done_testing

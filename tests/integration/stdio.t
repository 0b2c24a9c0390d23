#!/usr/bin/env bash
# The shim writes nothing to stdout (it belongs to the command: MCP and other
# stdio protocols run over it); the command's stdin, stdout and stderr pass
# through byte-exact.
. "$(dirname "$0")/common.sh"
size() { wc -c < "$1" | tr -d ' '; }

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "io-$style")
		p=$(prof "$style" "$ws")
		t="$who/$style"
		o=$T/out-$who-$style e=$T/err-$who-$style

		as "$who" "$SB" "$p" -- true </dev/null >"$o" 2>"$e"
		check "$t: '__sandbox P -- true' exits 0" 0 $?
		check "$t: ... and writes 0 bytes to stdout" 0 "$(size "$o")"
		# notices (if any) went to stderr, each prefixed
		check "$t: every stderr line is a __sandbox: line" 0 "$(grep -vc '^__sandbox: ' "$e")"

		# the command's status, 127, 126 and 125: still nothing on stdout
		for c in exit7 missing dir badjson; do
			case $c in
			exit7) as "$who" "$SB" "$p" -- sh -c 'exit 7' ;;
			missing) as "$who" "$SB" "$p" -- "$ws/nonexistent" ;;
			dir) as "$who" "$SB" "$p" -- "$ws" ;;
			badjson) as "$who" "$SB" '{bad' -- true ;;
			esac </dev/null >"$o" 2>"$e"
			s=$?
			case $c in exit7) want=7 ;; missing) want=127 ;; dir) want=126 ;; *) want=125 ;; esac
			check "$t: $c: exit status" "$want" "$s"
			check "$t: $c: no stdout" 0 "$(size "$o")"
		done

		# every byte value, NULs, no trailing newline, > a pipe buffer
		/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 4099 + b"\0\r\n\0tail")' >"$ws/blob"
		[ "$who" = nobody ] && chown $NOBODY "$ws/blob"
		as "$who" "$SB" "$p" -- cat "$ws/blob" </dev/null >"$o" 2>"$e"
		check "$t: cat FILE: stdout byte-exact" "$(sha256sum <"$ws/blob")" "$(sha256sum <"$o")"
		check "$t: cat FILE: same size" "$(size "$ws/blob")" "$(size "$o")"

		as "$who" "$SB" "$p" -- cat <"$ws/blob" 2>"$e" | sha256sum >"$o.sum"
		check "$t: stdin -> cat -> pipe: byte-exact" "$(sha256sum <"$ws/blob")" "$(cat "$o.sum")"

		as "$who" "$SB" "$p" -- sh -c 'printf "out\n"; printf "err\0x" >&2' </dev/null >"$o" 2>"$e"
		check "$t: command stdout unchanged" "out" "$(cat "$o")"
		check "$t: command stderr passes through after the notices" "$(printf 'err\0x' | od -An -c)" \
			"$(tail -c 5 "$e" | od -An -c)"
		check "$t: ... preceded only by __sandbox: lines" 0 "$(head -c -5 "$e" | grep -vc '^__sandbox: ')"
	done
done
done_testing

#!/usr/bin/env bash
# The exit-code table (exit_codes.tsv): usage and profile errors 125,
# "found but cannot execute" 126 with the reason (file mode vs profile),
# "not found" 127, and the command's own status (signals as the shell
# reports them: 128+N).  Every shim error is exactly one stderr line
# "__sandbox: ..." (notices about left-out parts aside, each also prefixed),
# and the shim never writes to stdout.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
TSV=$(dirname "$0")/exit_codes.tsv
# run WHO ERRFILE ARGV... — through sh, which reports a signal death as 128+N
# the way a shell does; ARGV's stderr goes to ERRFILE, the shell's own
# "Terminated"/"Killed" report does not
run() { as "$1" sh -c 'e=$1; shift; ("$@" 2>"$e"); exit $?' sh "${@:2}" 2>/dev/null; }

rows=0
for who in $USERS; do
	ws=$(mkws "$who" cases)
	printf '#!/bin/sh\necho should not run\n' >"$ws/plain.sh"
	chmod 644 "$ws/plain.sh"
	printf '#!/bin/sh\nexit 4\n' >"$ws/script.sh"
	chmod 755 "$ws/script.sh"
	mkdir -p "$ws/dir"
	ERR=$T/err-$who
	: >"$ERR"
	[ "$who" = nobody ] && chown -R $NOBODY "$ws" "$ERR"

	while IFS=$'\t' read -r -a f; do
		[ "${#f[@]}" = 0 ] && continue
		case ${f[0]} in \#*) continue ;; esac
		n=${#f[@]}
		if [ "$n" -lt 4 ]; then not_ok "malformed row: ${f[*]}"; continue; fi
		name="$who: ${f[0]}"
		want=${f[n - 2]}
		re=${f[n - 1]}
		re=${re//@WS@/$ws}
		args=()
		for a in "${f[@]:1:n-3}"; do
			a=${a//@WS@/$ws}
			args+=("${a//@UNF@/$UNF}")
		done
		[ "${args[0]}" = "(none)" ] && args=()
		rows=$((rows + 1))

		run "$who" "$ERR" "$SB" "${args[@]}" </dev/null >"$T/out" 9<&-
		rc=$?
		errl=$(grep -v '^__sandbox: notice: ' "$ERR")
		nerr=$(printf '%s' "$errl" | grep -c '^')

		if [ "$rc" = "$want" ]; then ok "$name: exit $want"; else
			not_ok "$name: exit $want"
			diag "argv: ${args[*]}" "got: $rc" "stderr: $(cat "$ERR")"
		fi
		check "$name: nothing on stdout" 0 "$(wc -c <"$T/out" | tr -d ' ')"
		check "$name: every stderr line starts with '__sandbox: '" 0 "$(grep -vc '^__sandbox: ' "$ERR")"
		if [ "$re" = '^$' ]; then
			check "$name: no diagnostic besides notices" "" "$errl"
			# the command ran: the same argv without the sandbox exits the same
			cmd=()
			for ((i = 0; i < ${#args[@]}; i++)); do
				if [ "${args[i]}" = -- ]; then cmd=("${args[@]:i+1}"); break; fi
			done
			run "$who" /dev/null "${cmd[@]}" </dev/null >/dev/null 9<&-
			check "$name: same status as without the sandbox (${cmd[*]})" "$rc" "$?"
		else
			check "$name: exactly one diagnostic line" 1 "$nerr"
			check_match "$name: diagnostic" "$re" "$errl"
		fi
	done <"$TSV"
done
[ "$rows" -gt 0 ] || not_ok "no rows read from $TSV"
done_testing

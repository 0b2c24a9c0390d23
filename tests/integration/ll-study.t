#!/usr/bin/env bash
# tests/helpers/ll-study (`make bench-landlock`): every case of the per-open
# study builds its domain and measures, the table has one row per case with
# a positive cost, the effect the study is about shows (a file 32 levels
# below a read-only rule costs more to open than one just below a writable
# rule: Landlock's walk), and --filter-on-fd3 hands over the shim's default
# seccomp filter (a BPF program that starts by loading the architecture,
# as long as the table says).  2,000 opens per case and at most 100 rules:
# this checks the helper, not the machine's figures.
. "$(dirname "$0")/common.sh"
L=$HELPERS/ll-study
if [ ! -x "$L" ]; then
	not_ok "the helper is built (make tests): $L"
	done_testing
	exit
fi

"$L" >/dev/null 2>&1
check "usage error without arguments" 2 "$?"

for who in $USERS; do
	t=$who
	d=$(mkws "$who" llstudy)
	out=$(as "$who" "$L" "$d/tree" 1 2000 100 2>"$T/err")
	rc=$?
	if [ "$rc" = 77 ]; then
		skip "$t: no Landlock on this kernel: $(cat "$T/err")"
		continue
	fi
	check "$t: the study runs (stderr: $(head -c 200 "$T/err"))" 0 "$rc"
	rows=$(printf '%s\n' "$out" | grep -c '^| \(bare\|(\)')
	# 3 cases use the shim's default filter, linked in by the Makefile's
	# native rule (a build without it says so under the table)
	want=32
	case $out in *"filter was not linked in"*) want=29 ;; esac
	check "$t: one row per case up to 100 rules" "$want" "$rows"
	bad=$(printf '%s\n' "$out" | grep '^| \(bare\|(\)' |
		awk -F' [|] ' '$7 + 0 <= 0 || $9 + 0 <= 0 { print $2 }')
	check "$t: every case has a positive time and ratio" "" "$bad"
	# column 7: ns per open
	ro32=$(printf '%s\n' "$out" | awk -F' [|] ' '$1 == "| (b) depth" && $2 == "read-only rule" && $4 == 32 { print $7 }')
	rw1=$(printf '%s\n' "$out" | awk -F' [|] ' '$1 == "| (a) rules" && $2 == "writable rules" && $3 == 1 { print $7 }')
	if [ -n "$ro32" ] && [ -n "$rw1" ] && [ "$ro32" -gt "$rw1" ]; then
		ok "$t: 32 levels below a read-only rule cost more than 1 below a writable one ($ro32 > $rw1 ns)"
	else
		not_ok "$t: 32 levels below a read-only rule cost more than 1 below a writable one ($ro32 > $rw1 ns)"
	fi
done

insns=$(printf '%s\n' "${out:-}" | sed -n 's/.*| default, \([0-9]*\) insns |.*/\1/p' | head -n1)
if [ -z "$insns" ]; then
	skip "--filter-on-fd3: no table naming the default filter's length (no Landlock, or not linked in)"
else
	bytes=$("$L" --filter-on-fd3 sh -c 'wc -c <&3')
	check "--filter-on-fd3: the default filter, 8 bytes per instruction ($insns)" "$((insns * 8))" "$bytes"
	# BPF_LD|BPF_W|BPF_ABS (0x20) of seccomp_data.arch (offset 4)
	first=$("$L" --filter-on-fd3 sh -c 'od -An -tx1 -N8 <&3' | tr -s ' ' | sed 's/^ //')
	check "--filter-on-fd3: the program starts by loading the architecture" "20 00 00 00 04 00 00 00" "$first"
fi
"$L" --filter-on-fd3 /nonexistent/command 2>/dev/null
check "--filter-on-fd3: a command that cannot be executed fails" 1 "$?"

done_testing

#!/usr/bin/env bash
# sh and coreutils work unchanged in the workspace, with the default profile
# (readable ["/"]) and with a realistic one (readable /usr, /etc, /bin, /lib*).
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "cu-$style")
		p=$(prof "$style" "$ws")
		t="$who/$style"

		sbrun "$who" "$p" sh -c 'cd "$1" && echo hello > a.txt && cat a.txt' sh "$ws"
		expect "$t: sh writes and cats a file" 0 hello
		check "$t: file is on disk with the content" hello "$(cat "$ws/a.txt" 2>&1)"

		sbrun "$who" "$p" mkdir -p "$ws/d1/d2"
		expect "$t: mkdir -p" 0 ""
		check "$t: directories exist" yes "$([ -d "$ws/d1/d2" ] && echo yes || echo no)"

		sbrun "$who" "$p" cp "$ws/a.txt" "$ws/d1/d2/b.txt"
		expect "$t: cp" 0 ""
		check "$t: copy has the content" hello "$(cat "$ws/d1/d2/b.txt" 2>&1)"

		sbrun "$who" "$p" mv "$ws/d1/d2/b.txt" "$ws/c.txt"
		expect "$t: mv across directories" 0 ""
		check "$t: moved file" "no hello" "$([ -e "$ws/d1/d2/b.txt" ] && echo yes || echo no) $(cat "$ws/c.txt" 2>&1)"

		printf 'pear\napple\nfig\napple\n' > "$ws/fruit"
		[ "$who" = nobody ] && chown $NOBODY "$ws/fruit"
		sbrun "$who" "$p" sh -c 'sort -u "$1/fruit" > "$1/sorted" && wc -l < "$1/sorted" && cat "$1/sorted"' sh "$ws"
		expect "$t: sort and wc" 0 "$(sort -u "$ws/fruit" | wc -l; sort -u "$ws/fruit")"

		sbrun "$who" "$p" ls -1 "$ws"
		expect "$t: ls lists the workspace" 0 "$(ls -1 "$ws")"

		sbrun "$who" "$p" rm -r "$ws/d1" "$ws/c.txt"
		expect "$t: rm -r" 0 ""
		check "$t: removed" "no no" "$([ -e "$ws/d1" ] && echo yes || echo no) $([ -e "$ws/c.txt" ] && echo yes || echo no)"

		sbrun "$who" "$p" sh -c 'ln -s a.txt "$1/link" && readlink "$1/link" && touch "$1/t" && chmod 600 "$1/t" && stat -c %a "$1/t" && head -c 3 "$1/a.txt" | tr a-z A-Z' sh "$ws"
		expect "$t: ln, touch, chmod, stat, head, tr" 0 "$(printf 'a.txt\n600\nHEL')"

		# a pipeline of several coreutils inside one sh
		sbrun "$who" "$p" sh -c 'seq 1 100 | tail -n 5 | paste -sd+ | tr + " " | xargs printf "%s|"'
		expect "$t: pipeline (seq, tail, paste, tr, xargs)" 0 "96|97|98|99|100|"

		# writing outside the workspace is refused (the confinement is real),
		# in a directory WHO may write to without the sandbox
		o=$(mkws "$who" "cu-out-$style")
		sbrun "$who" "$p" sh -c 'echo x > "$1/f"' sh "$o"
		check "$t: write outside the workspace fails" "2 no" "$rc $([ -e "$o/f" ] && echo yes || echo no)"
	done
done
done_testing

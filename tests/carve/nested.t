#!/usr/bin/env bash
# Nested grants (issue 11 §4): the more specific entry wins, in both carve
# modes, as root and as uid 65534.  codex's split policies (a writable
# root inside a read-only or an unreadable one) and orch's worktree under
# a read-only tree need it.  One fixture:
#   R            writable[0]
#   R/sub        read_only, holding R/sub/wt (writable) and the file
#                R/sub/log.txt (writable)
#   R/sec        hidden, holding R/sec/inner (writable), R/sec/pub
#                (readable), R/sec/bin (executable) and R/sec/secret
#   O            hidden, outside every writable tree, holding O/w
#                (writable), O/r (readable) and O/secret
# Each grant inside is usable as granted and no more; what the carve-out
# covers stays covered; the shim's mount points are made in its own
# tmpfs only (the user's tree is left exactly as it was).  Controls: the
# same operations outside the sandbox, and the carve-outs' contents
# readable without them.
. "$(dirname "$0")/common.sh"

# refused RESULT — "refused" for any errno, else the result itself.
refused() { case $1 in E[A-Z]*) echo refused ;; *) echo "$1" ;; esac; }

for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		R=$(mkws "$who" "nest-$mode")
		O=$(mkws "$who" "nest-out-$mode")
		mkdir -p "$R/sub/wt" "$R/sec/inner" "$R/sec/pub" "$R/sec/bin" "$O/w" "$O/r"
		echo OTHER >"$R/sub/other.txt"
		echo LOG >"$R/sub/log.txt"
		echo SECRET >"$R/sec/secret"
		echo INNER >"$R/sec/inner/f"
		echo PUB >"$R/sec/pub/p"
		printf '#!/bin/sh\necho tool-ran\n' >"$R/sec/bin/tool"
		chmod 755 "$R/sec/bin/tool"
		echo OSECRET >"$O/secret"
		echo OR >"$O/r/f"
		own "$who" "$R" "$O"
		before=$(cd "$R" && find . "$O" | sort)
		p="{$mk\"readable\":[\"/\",\"$R/sec/pub\",\"$O/r\"],\"executable\":[\"/\",\"$R/sec/bin\"],"
		p="$p\"writable\":[\"$R\",\"$R/sub/wt\",\"$R/sub/log.txt\",\"$R/sec/inner\",\"$O/w\"],"
		p="$p\"read_only\":[\"$R/sub\"],\"hidden\":[\"$R/sec\",\"$O\"]}"
		plain="{$mk\"writable\":[\"$R\"]}"
		check "$t: the plan carves by $mode" "$mode" "$(carve_of "$who" "$p")"

		# controls
		expect "$t: control: the secret is readable outside" ok:SECRET "$(outside "$who" read "$R/sec/secret")"
		expect "$t: control: ... and inside without the carve-outs" ok:SECRET "$(op "$who" "$plain" read "$R/sec/secret")"
		expect "$t: control: the outside tree's secret is readable outside" ok:OSECRET "$(outside "$who" read "$O/secret")"

		# a writable tree (and a writable file) inside a read-only one
		expect "$t: writable inside read_only: a file can be created" ok "$(op "$who" "$p" create "$R/sub/wt/new")"
		check "$t: ... and it is in the real tree" present "$([ -e "$R/sub/wt/new" ] && echo present || echo absent)"
		expect "$t: ... renamed inside it" ok "$(op "$who" "$p" rename "$R/sub/wt/new" "$R/sub/wt/new2")"
		expect "$t: a writable file inside read_only can be appended to" ok "$(op "$who" "$p" append "$R/sub/log.txt" more)"
		check "$t: ... and it was" "LOG more" "$(tr '\n' ' ' <"$R/sub/log.txt" | sed 's/ $//')"
		expect "$t: the read-only tree around them stays read-only (create)" refused "$(refused "$(op "$who" "$p" create "$R/sub/x")")"
		expect "$t: ... (append to a sibling file)" refused "$(refused "$(op "$who" "$p" append "$R/sub/other.txt" no)")"
		expect "$t: ... and readable" ok:OTHER "$(op "$who" "$p" read "$R/sub/other.txt")"

		# grants inside a hidden tree inside the workspace
		expect "$t: writable inside hidden: readable" ok:INNER "$(op "$who" "$p" read "$R/sec/inner/f")"
		expect "$t: ... and writable" ok "$(op "$who" "$p" create "$R/sec/inner/new")"
		check "$t: ... in the real tree" present "$([ -e "$R/sec/inner/new" ] && echo present || echo absent)"
		expect "$t: readable inside hidden: readable" ok:PUB "$(op "$who" "$p" read "$R/sec/pub/p")"
		expect "$t: ... and not writable" refused "$(refused "$(op "$who" "$p" append "$R/sec/pub/p" no)")"
		sbsh "$who" "$p" "'$R/sec/bin/tool'"
		check "$t: executable inside hidden: runs" "0 tool-ran" "$rc $out"
		expect "$t: the hidden secret around them stays unreadable" refused "$(refused "$(op "$who" "$p" read "$R/sec/secret")")"
		expect "$t: ... and nothing new can be made in the hidden tree" refused "$(refused "$(op "$who" "$p" create "$R/sec/planted")")"
		if [ "$mode" = mounts ]; then
			expect "$t: mounts: the hidden tree shows only the grants brought back" "bin inner pub" "$(op "$who" "$p" list "$R/sec")"
		fi

		# grants inside a hidden tree outside every writable tree
		expect "$t: writable inside a hidden tree outside the workspace: writable" ok "$(op "$who" "$p" create "$O/w/new")"
		expect "$t: readable inside it: readable" ok:OR "$(op "$who" "$p" read "$O/r/f")"
		expect "$t: ... not writable" refused "$(refused "$(op "$who" "$p" create "$O/r/new")")"
		expect "$t: its secret stays unreadable" refused "$(refused "$(op "$who" "$p" read "$O/secret")")"

		# no notice of a grant skipped ("No such file or directory")
		sbsh "$who" "$p" true
		check "$t: no grant is skipped (no notice)" "0 " "$rc $(grep -E 'skipped|No such file' "$T/err")"

		# nothing created in the user's tree for a mount point
		rm -f "$R/sub/wt/new2" "$R/sec/inner/new" "$O/w/new"
		check "$t: the user's tree holds exactly what it held" "$before" "$(cd "$R" && find . "$O" | sort)"
	done
done
done_testing

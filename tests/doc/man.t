#!/usr/bin/env bash
# doc/__sandbox.1: renders without a warning (groff -ww, man --warnings),
# names every key of the profile schema and every field of the --probe and
# --check output schemas, the exit statuses; --help points at it;
# make install puts it (and the schemas) in place.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
MAN=$REPO/doc/__sandbox.1
NODE=/usr/bin/node

if command -v groff >/dev/null; then
	w=$(groff -man -Tutf8 -ww -z "$MAN" 2>&1)
	check "groff -man -ww renders it without a warning" "" "$w"
	text=$(groff -man -Tascii -rHY=0 -rLL=250n -P-cbou "$MAN" 2>/dev/null)
else
	skip "groff is not installed (apt-get install groff-base)"
	text=$(sed 's/\\f[BIRP]//g; s/\\-/-/g' "$MAN")
fi
if command -v man >/dev/null; then
	w=$(MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null)
	check "man --warnings -l renders it without a warning" "" "$w"
else
	skip "man is not installed (apt-get install man-db)"
fi
# the words of the rendered page (hyphenation off, wide lines, so no key
# is split; words are matched whole)
words=$(printf '%s\n' "$text" | tr -c 'A-Za-z0-9_@-' '\n' | sort -u)
missing() { for k in "$@"; do printf '%s\n' "$words" | grep -qxF -- "$k" || printf '%s ' "$k"; done; }

keys() { "$NODE" -e "
const s = require('$1'); const out = new Set();
const walk = (o, depth) => { for (const [k, v] of Object.entries(o.properties || {})) { out.add(k); if (depth > 0) walk(v, depth - 1); for (const a of (v.allOf || [])) if (a.properties) walk(a, depth - 1); } };
walk(s, $2); console.log([...out].join(' '))"; }
check "every profile key (nested ones too) is in the man page" "" "$(missing $(keys "$REPO/policy/profile.schema.json" 3))"
check "every --probe field is in the man page" "" "$(missing $(keys "$REPO/doc/probe.schema.json" 3))"
check "every --check field is in the man page" "" "$(missing $(keys "$REPO/doc/plan.schema.json" 2))"
groups=$("$NODE" -e "console.log(require('$REPO/policy/profile.schema.json')['\$defs'].syscall.anyOf[1].enum.join(' '))")
check "every seccomp group and rlimit name is in the man page" "" \
	"$(missing $groups $("$NODE" -e "console.log(require('$REPO/policy/profile.schema.json').properties.rlimits.propertyNames.enum.join(' '))"))"
check "exit statuses 125, 126, 127 and the sections are there" "" \
	"$(missing 125 126 127 EXIT STATUS DIAGNOSTICS EXAMPLES PROBE CHECK OUTPUT)"

out=$("$SB" --help); rc=$?
check "--help exits 0" 0 "$rc"
check_match "--help points at the man page" 'man __sandbox' "$out"

if [ "$(id -u)" = 0 ]; then
	D=$T/destdir
	if make -s -C "$REPO" install DESTDIR="$D" PREFIX=/usr >"$T/make.out" 2>&1; then
		ok "make install DESTDIR=... PREFIX=/usr"
	else
		not_ok "make install DESTDIR=... PREFIX=/usr"
		diag "$(cat "$T/make.out")"
	fi
	check "installed: binary, man page, schemas (modes)" \
		"755 644 644 644 644" \
		"$(stat -c %a "$D/usr/bin/__sandbox" "$D/usr/share/man/man1/__sandbox.1" \
			"$D/usr/share/__sandbox/profile.schema.json" "$D/usr/share/__sandbox/probe.schema.json" \
			"$D/usr/share/__sandbox/plan.schema.json" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
	check "the installed man page is doc/__sandbox.1" "same" "$(cmp -s "$MAN" "$D/usr/share/man/man1/__sandbox.1" && echo same)"
else
	skip "make install is checked as root"
fi

# The container example runs where the runtime refuses namespaces
# (tests/helpers/nons), its user switch aside (that needs the image's
# /etc/passwd: tests/user/user.t) and its workspace made here.
ex=$(awk '/^# \/etc\/sandbox.json/ {on=1; next} on && /^#/ {next} on {print} on && /}}$/ {exit}' "$MAN")
check_match "the container example is in the man page" '"user": \{"name": "app"\}' "$ex"
if [ ! -x "$HELPERS/nons" ]; then
	skip "build/helpers/nons not built (make tests)"
elif [ "$ABI" -lt 6 ]; then
	skip "Landlock ABI $ABI: the example's default signal scope needs ABI 6"
else
	cws=$T/container-home
	mkdir -p "$cws"
	p=$(printf '%s' "$ex" | /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("user"); d["writable"] = [sys.argv[1]]; print(json.dumps(d))' "$cws")
	out=$("$HELPERS/nons" "$SB" "$p" -- /bin/sh -c 'echo ok > "$1/f" && cat "$1/f"' sh "$cws" 2>"$T/err"); rc=$?
	check "the container example runs with namespaces refused" "0 ok" "$rc $out"
	[ "$rc" = 0 ] || diag "$(cat "$T/err")"
fi
done_testing

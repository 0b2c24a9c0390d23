#!/usr/bin/env bash
# policy/profile.schema.json against the C parser: every example profile
# of the repository is schema-valid and accepted by --check; documents that
# are schema-invalid (tests/schema/invalid, with the location the shim must
# name in tests/schema/invalid/expect.tsv) are refused by both; the schema
# names exactly the keys, parts, limits, groups and capabilities the parser
# knows.  ajv (strict, draft 2020-12) from tests/node_modules (make tests).
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
NODE=/usr/bin/node
S=$REPO/tests/schema
SCHEMA=$REPO/policy/profile.schema.json
validate() { "$NODE" "$S/validate.js" "$SCHEMA" "$@"; }

if [ ! -d "$REPO/tests/node_modules/ajv" ]; then
	not_ok "ajv is installed in tests/node_modules (make tests runs npm ci --prefix tests)"
	done_testing
	exit
fi

out=$(echo '{}' | validate - 2>&1)
check "the schema compiles in ajv's strict mode" "valid -" "$out"

# --- the schema names what the parser knows ------------------------------
jq_keys() { "$NODE" -e "const s=require('$SCHEMA'); console.log(($1).sort().join(' '))"; }
c_keys=$(grep -o '{"[a-z_]*", k_[a-z_]*}' "$REPO/policy/profile.c" | sed 's/{"\([a-z_]*\)".*/\1/' | sort | tr '\n' ' ' | sed 's/ $//')
check "top-level keys: schema = parser's key table" "$c_keys" "$(jq_keys 'Object.keys(s.properties)')"
c_unf=$(sed -n '/unenforced_names\[\] = {/,/^};/p' "$REPO/policy/profile.c" | grep -o '{"[a-z_]*"' | tr -d '{"' | sort | tr '\n' ' ' | sed 's/ $//')
check "unenforced parts: schema = parser" "$c_unf" "$(jq_keys 'Object.keys(s.properties.unenforced.properties)')"
c_rl=$(sed -n '/struct rl rlimits\[\] = {/,/^};/p' "$REPO/policy/names.c" | grep -o '{"[a-z]*"' | tr -d '{"' | sort | tr '\n' ' ' | sed 's/ $//')
check "rlimit names: schema = parser" "$c_rl" "$(jq_keys 's.properties.rlimits.propertyNames.enum')"
c_grp=$(sed -n '/sc_group_names\[\] = {/,/};/p' "$REPO/policy/names.c" | grep -o '"@[a-z-]*"' | tr -d '"' | sort | tr '\n' ' ' | sed 's/ $//')
check "seccomp groups: schema = parser" "$c_grp" "$(jq_keys 's["$defs"].syscall.anyOf[1].enum')"
for k in env user seccomp; do
	c=$(sed -n "/^static int k_$k(/,/^}/p" "$REPO/policy/profile.c" | grep -o 'strcmp(k, "[a-z_]*")' | sed 's/.*"\(.*\)")/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//')
	check "$k keys: schema = parser" "$c" "$(jq_keys "Object.keys(s.properties.$k.properties)")"
done
undesc=$("$NODE" -e "
const s=require('$SCHEMA'); const miss=[];
const walk=(o,p)=>{ for (const [k,v] of Object.entries(o.properties||{})) { if (!v.description) miss.push(p+k); walk(v,p+k+'.'); } };
walk(s,''); console.log(miss.join(' '))")
check "every key has a description" "" "$undesc"

# --- example profiles: schema-valid and accepted by --check -------------
# Paths under /srv in the examples are made under $T (same layout) so the
# workspace exists; the container entrypoint (user) is checked in
# tests/user/user.t inside its image.
ex=("$REPO"/examples/*.json)
if [ ! -e "${ex[0]}" ]; then
	not_ok "examples/*.json exist"
else
	while read -r verdict file rest; do
		check "schema: $(basename "$file")" "valid" "$verdict${rest:+ $rest}"
	done < <(validate "${ex[@]}")
	for f in "${ex[@]}"; do
		grep -q '"user"' "$f" && continue
		p=$(sed "s#\"/srv/#\"$T/srv/#g" "$f")
		for d in $(grep -o '"/srv/[^"]*"' "$f" | tr -d '"'); do mkdir -p "$T$d"; done
		for who in $USERS; do
			out=$(as "$who" "$SB" --check "$p" 2>&1 >/dev/null); rc=$?
			check "$who: --check accepts $(basename "$f")" 0 "$rc"
			[ "$rc" = 0 ] || diag "$out"
		done
	done
fi

# --- edge-valid documents: both accept ----------------------------------
while read -r verdict file rest; do
	check "schema: valid/$(basename "$file")" "valid" "$verdict${rest:+ $rest}"
done < <(validate "$S"/valid/*.json)
for f in "$S"/valid/*.json; do
	for who in $USERS; do
		out=$(as "$who" "$SB" --check "$(cat "$f")" 2>&1 >/dev/null); rc=$?
		check "$who: --check accepts valid/$(basename "$f")" 0 "$rc"
		[ "$rc" = 0 ] || diag "$out"
	done
done

# --- invalid documents: both refuse, the shim naming the location -------
declare -A want
while IFS=$'\t' read -r f rx; do
	case $f in '#'*|'') continue ;; esac
	want[$f]=$rx
done <"$S/invalid/expect.tsv"
n=0
for f in "$S"/invalid/*.json; do n=$((n + 1)); done
check "at least 15 invalid documents, each with an expectation" "yes ${#want[@]}" "$([ $n -ge 15 ] && echo yes) $n"
declare -A verdict
while read -r v file rest; do verdict[$(basename "${file%:}")]=$v; done < <(validate "$S"/invalid/*.json)
for f in "$S"/invalid/*.json; do
	b=$(basename "$f")
	check "schema refuses invalid/$b" invalid "${verdict[$b]:-none}"
	rx=${want[$b]:-}
	[ -n "$rx" ] || { not_ok "invalid/$b has a line in expect.tsv"; continue; }
	for who in $USERS; do
		out=$(as "$who" "$SB" --check "@$f" 2>&1 >"$T/stdout"); rc=$?
		if [ "$rc" = 125 ] && [ ! -s "$T/stdout" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		   printf '%s' "$out" | grep -Eq -- "^__sandbox: profile $rx"; then
			ok "$who: --check refuses invalid/$b naming the location"
		else
			not_ok "$who: --check refuses invalid/$b naming the location"
			diag "rc=$rc stdout=$(head -c 100 "$T/stdout")" "stderr: $out" "want: $rx"
		fi
		run=$(as "$who" "$SB" "@$f" -- true 2>&1); rrc=$?
		check "$who: a run prints the same line (and exits 125)" "125 $out" "$rrc $run"
	done
done

# --- capability names: any case, CAP_ prefix optional --------------------
# (parser level: as root, keeping one the container lacks is a fit refusal,
# "is not held", never "is not a capability name")
mkdir -p "$T/caps"
names=$("$NODE" -e "const s=require('$SCHEMA'); const p=s.properties.capabilities.items.pattern;
console.log(p.split('(')[2].split(')')[0].split('|').map(a=>a.replace(/\[(.)(.)\]/g,'\$1')).join(' '))")
check "the schema lists 41 capabilities" 41 "$(echo $names | wc -w)"
i=0
for c in $names; do
	u=$(echo "$c" | tr a-z A-Z)
	m=$(echo "$c" | sed 's/^\(.\)/\U\1/')
	for form in "$c" "CAP_$u" "Cap_$m"; do
		i=$((i + 1))
		echo "{\"capabilities\":[\"$form\"],$UNF}" >"$T/caps/ok$i.json"
	done
done
for bad in cap_ CAP_CAP_CHOWN chown2 CAP-CHOWN " chown" epollwakeup all; do
	i=$((i + 1))
	echo "{\"capabilities\":[\"$bad\"],$UNF}" >"$T/caps/bad$i.json"
done
declare -A cv
while read -r v file rest; do cv[$(basename "${file%:}")]=$v; done < <(validate "$T"/caps/*.json)
disagree=""
for f in "$T"/caps/*.json; do
	b=$(basename "$f")
	out=$("$SB" --check "@$f" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 0 ] || printf '%s' "$out" | grep -q 'is not held by this process'; then c_ok=valid
	elif printf '%s' "$out" | grep -q 'is not a capability name'; then c_ok=invalid
	else c_ok="other: $out"; fi
	exp=valid; case $b in bad*) exp=invalid ;; esac
	[ "$c_ok" = "$exp" ] && [ "${cv[$b]}" = "$exp" ] || disagree="$disagree $(cat "$f") C:$c_ok schema:${cv[$b]};"
done
check "capability names: schema and parser agree on $i forms" "" "$disagree"
done_testing

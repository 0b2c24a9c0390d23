#!/usr/bin/env bash
# --probe and --check print JSON of the documented shapes (doc/probe.schema.json,
# doc/plan.schema.json, validated with ajv), and --probe tells the truth:
# each value is compared with what the system says, inside and outside the
# sandbox, and with features made to fail by a seccomp filter
# (tests/helpers/errno-filter.c): Landlock absent (ENOSYS) vs disabled
# (EOPNOTSUPP), namespaces refused, no seccomp.
. "$(dirname "$0")/../lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
NODE=/usr/bin/node
V() { "$NODE" "$REPO/tests/schema/validate.js" "$@"; }
PROBE_SCHEMA=$REPO/doc/probe.schema.json
PLAN_SCHEMA=$REPO/doc/plan.schema.json
# get FILE EXPR — a value from a JSON file (JavaScript expression on `d`)
get() { "$NODE" -e "const d=JSON.parse(require('fs').readFileSync('$1','utf8')); const v=($2); console.log(typeof v === 'string' ? v : JSON.stringify(v))"; }

if [ ! -d "$REPO/tests/node_modules/ajv" ]; then
	not_ok "ajv is installed in tests/node_modules (make tests runs npm ci --prefix tests)"
	done_testing
	exit
fi

# --- --probe -------------------------------------------------------------
for who in $USERS; do
	P=$T/probe-$who.json
	as "$who" "$SB" --probe >"$P" 2>"$T/err"; rc=$?
	check "$who: --probe exits 0, nothing on stderr" "0 " "$rc $(cat "$T/err")"
	check "$who: --probe output matches doc/probe.schema.json" "valid $P" "$(V "$PROBE_SCHEMA" "$P")"
	check "$who: kernel is uname -r" "$(uname -r)" "$(get "$P" d.kernel)"
	check "$who: uid and gid" "$(as "$who" id -u) $(as "$who" id -g)" "$(get "$P" d.uid) $(get "$P" d.gid)"
	check "$who: no_new_privs false outside a sandbox" false "$(get "$P" d.no_new_privs)"
	check "$who: seccomp: not filtered outside a sandbox" false "$(get "$P" d.seccomp.filtered)"
	check "$who: version as --version" "$("$SB" --version | head -n1 | cut -d' ' -f2)" "$(get "$P" d.version)"
	check "$who: libseccomp as --version" "$("$SB" --version | sed -n 's/^libseccomp \(.*\) (runtime.*/\1/p')" "$(get "$P" d.libraries.libseccomp)"
	# capabilities: as /proc/self/status says (permitted set, hex)
	prm=$(as "$who" sh -c 'grep ^CapPrm /proc/self/status' | awk '{print $2}')
	n=$(get "$P" 'd.capabilities.permitted.length')
	check "$who: as many permitted capabilities as CapPrm has bits" "$(python3 -c "print(bin(0x$prm).count('1'))")" "$n"
	if [ "$who" = nobody ]; then
		check "nobody: no effective capabilities" "[]" "$(get "$P" d.capabilities.effective)"
		check "nobody: a mount namespace would need a user namespace" user_namespace "$(get "$P" d.namespaces.mount.via)"
	else
		check "root: CAP_SYS_ADMIN effective" true "$(get "$P" 'd.capabilities.effective.includes("CAP_SYS_ADMIN")')"
	fi
	# Landlock: ABI matches the rights said to be there (one table per ABI)
	abi=$(get "$P" d.landlock.abi)
	check "$who: landlock abi as tests/lib.sh read it" "$ABI" "$abi"
	check "$who: rights follow the ABI (truncate 3, bind_tcp 4, ioctl_dev 5, signal 6, log flags 7, tsync 8, resolve_unix 9, bind_udp 10)" \
		"$([ "$abi" -ge 3 ] && echo true || echo false) $([ "$abi" -ge 4 ] && echo true || echo false) $([ "$abi" -ge 5 ] && echo true || echo false) $([ "$abi" -ge 6 ] && echo true || echo false) $([ "$abi" -ge 7 ] && echo true || echo false) $([ "$abi" -ge 8 ] && echo true || echo false) $([ "$abi" -ge 9 ] && echo true || echo false) $([ "$abi" -ge 10 ] && echo true || echo false)" \
		"$(get "$P" '[d.landlock.access_fs.truncate, d.landlock.access_net.bind_tcp, d.landlock.access_fs.ioctl_dev, d.landlock.scoped.signal, d.landlock.restrict_self.log_new_exec_on, d.landlock.restrict_self.tsync, d.landlock.access_fs.resolve_unix, d.landlock.access_net.bind_udp].join(" ")')"
	# namespaces: the answer --probe gives is what unshare(1) finds
	if as "$who" unshare -U true 2>/dev/null; then u=true; else u=false; fi
	check "$who: namespaces.user.available as unshare -U finds" "$u" "$(get "$P" d.namespaces.user.available)"
done

# inside the sandbox: no_new_privs, filtered, no capabilities, and the
# namespaces refused by the default filter (EPERM)
for who in $USERS; do
	P=$T/probe-in-$who.json
	as "$who" "$SB" "{\"executable\":[\"$T\",\"/usr\",\"/bin\"],\"readable\":[\"$T\",\"/usr\",\"/etc\",\"/bin\",\"/lib\",\"/lib64\",\"/proc\"],$UNF}" -- "$SB" --probe >"$P" 2>"$T/err"; rc=$?
	check "$who: --probe inside the sandbox exits 0" 0 "$rc"
	[ "$rc" = 0 ] || diag "$(cat "$T/err")"
	check "$who: ... matches the schema" "valid $P" "$(V "$PROBE_SCHEMA" "$P" 2>&1)"
	check "$who: ... no_new_privs, filtered, no capabilities left" "true true [] []" \
		"$(get "$P" '[d.no_new_privs, d.seccomp.filtered, JSON.stringify(d.capabilities.permitted), JSON.stringify(d.capabilities.bounding)].join(" ")')"
	check "$who: ... namespaces refused (EPERM)" "false EPERM false EPERM" \
		"$(get "$P" '[d.namespaces.user.available, d.namespaces.user.errno, d.namespaces.mount.available, d.namespaces.mount.errno].join(" ")')"
done

# features made to fail: what --probe says, and what a run then does
EF=$HELPERS/errno-filter
if [ -x "$EF" ]; then
	for c in "landlock_create_ruleset=ENOSYS absent ENOSYS no Landlock" \
		 "landlock_create_ruleset=EOPNOTSUPP disabled EOPNOTSUPP built into this kernel but disabled at boot"; do
		set -- $c
		spec=$1 status=$2 e=$3
		shift 3
		msg="$*"
		P=$T/probe-ef.json
		"$EF" "$spec" -- "$SB" --probe >"$P"; rc=$?
		check "$spec: --probe exits 0 and matches the schema" "0 valid $P" "$rc $(V "$PROBE_SCHEMA" "$P")"
		check "$spec: status $status, errno $e, abi 0, no right" "$status $e 0 false false" \
			"$(get "$P" '[d.landlock.status, d.landlock.errno, d.landlock.abi, d.landlock.access_fs.read_file, d.landlock.scoped.signal].join(" ")')"
		out=$("$EF" "$spec" -- "$SB" "{$UNF}" -- true 2>&1); rc=$?
		check_match "$spec: a run refuses (125) saying so" "^125 __sandbox: .*$msg.*refusing to run unconfined" "$rc $out"
	done
	P=$T/probe-ef.json
	"$EF" clone=EPERM -- "$SB" --probe >"$P"
	check "clone=EPERM: namespaces unavailable, EPERM, with strerror" "false EPERM Operation not permitted false EPERM" \
		"$(get "$P" '[d.namespaces.user.available, d.namespaces.user.errno, d.namespaces.user.error, d.namespaces.mount.available, d.namespaces.mount.errno].join(" ")')"
	"$EF" seccomp=EINVAL -- "$SB" --probe >"$P"
	check "seccomp=EINVAL: no filter, no user_notif, no action" "false EINVAL false false" \
		"$(get "$P" '[d.seccomp.filter, d.seccomp.errno, d.seccomp.user_notif, d.seccomp.actions.errno].join(" ")')"
else
	skip "build/helpers/errno-filter not built (make tests)"
fi

# --- --check -------------------------------------------------------------
ws=$(mkws root out-ws)
mkdir -p "$ws/ro" "$ws/secret"
n=0
for p in "{$UNF}" \
	"{\"writable\":[\"$ws\"],\"read_only\":[\"$ws/ro\"],\"hidden\":[\"$ws/secret\"],\"tmp\":\"$ws/tmp\",\"cwd\":\"$ws\",$UNF}" \
	"{\"writable\":[\"$ws\"],\"mounts\":\"off\",\"read_only\":[\"$ws/ro\"],\"protect_extra\":[\".config\"],\"unenforced\":{\"workspace_sockets\":true,\"carve\":true}}" \
	"{\"network\":\"on\",\"tcp_bind\":[0,8080],\"tcp_connect\":[443],\"udp_connect\":[53],\"unenforced\":{\"workspace_sockets\":true,\"udp_ports\":true}}" \
	"{\"network\":\"loopback\",\"env\":{\"clear\":true,\"keep\":[\"PATH\"],\"set\":{\"A\":\"b\"},\"unset\":[\"X\"]},\"rlimits\":{\"nofile\":[64,128]},\"seccomp\":{\"deny\":[\"uname\"]},$UNF}" \
	"{\"best_effort\":true,\"signals\":\"any\",\"unix_sockets\":\"none\"}"; do
	n=$((n + 1))
	for who in $USERS; do
		as "$who" "$SB" --check "$p" >"$T/plan-$who-$n.json" 2>"$T/err"; rc=$?
		check "$who: --check plan $n exits 0" 0 "$rc"
		[ "$rc" = 0 ] || diag "$(cat "$T/err")"
	done
done
while read -r v f rest; do
	check "plan $(basename "$f") matches doc/plan.schema.json" valid "$v${rest:+ $rest}"
done < <(V "$PLAN_SCHEMA" "$T"/plan-*.json)
P=$T/plan-root-2.json
check "plan: workspace rule with its resolved path and rights by name" "$ws .writable[0] true" \
	"$(get "$P" 'd.landlock.path_rules.filter(r => r.path === "'"$ws"'" && r.from === ".writable[0]").map(r => [r.path, r.from, r.access.includes("write_file")].join(" "))[0]')"
check "plan: seccomp names the syscalls (ptrace refused with EPERM)" "EPERM" \
	"$(get "$P" 'd.seccomp.rules.filter(r => r.syscall === "ptrace").map(r => r.action)[0]')"
check "plan: tmp is to be created" "true" "$(get "$P" 'd.landlock.path_rules.filter(r => r.from === ".tmp").map(r => r.create)[0]')"
check "plan 3: carve-outs left out are listed with the key allowing it" ".unenforced.carve" \
	"$(get "$T/plan-root-3.json" 'd.left_out.map(l => l.allowed_by).filter(k => k === ".unenforced.carve")[0]')"
check "plan 5: env and rlimits" '["A=b"] [64,128]' "$(get "$T/plan-root-5.json" 'JSON.stringify(d.env.set) + " " + JSON.stringify(d.rlimits.nofile)')"
# a refused profile: nothing on stdout, the run's line on stderr, 125
out=$("$SB" --check '{"writable":["/nonexistent/ws"]}' 2>"$T/err"); rc=$?
run=$("$SB" '{"writable":["/nonexistent/ws"]}' -- true 2>&1)
check "a profile error: --check prints nothing, exits 125 with the line a run prints" "125  $run" "$rc $out $(cat "$T/err")"
# a part this host cannot enforce: --check still prints the plan, with
# the refused parts, and exits 125 with the line a run prints
if [ -x "$EF" ]; then
	"$EF" landlock_create_ruleset=EOPNOTSUPP -- "$SB" --check '{"signals":"any"}' >"$T/plan-refused.json" 2>"$T/err"; rc=$?
	run=$("$EF" landlock_create_ruleset=EOPNOTSUPP -- "$SB" '{"signals":"any"}' -- true 2>&1)
	check "refused part: --check exits 125 with the line a run prints" "125 $run" "$rc $(cat "$T/err")"
	check "refused part: the plan is printed and matches doc/plan.schema.json" "valid $T/plan-refused.json" "$(V "$PLAN_SCHEMA" "$T/plan-refused.json" 2>&1)"
	check "refused part: the plan lists it with the key that would allow it" "Landlock best_effort" \
		"$(get "$T/plan-refused.json" 'd.refused.map(r => r.part + " " + r.allow_with).join(",")')"
	check_match "refused part: the line gives the JSON to add" '"best_effort":true$' "$run"
else
	skip "build/helpers/errno-filter not built (make tests)"
fi
done_testing

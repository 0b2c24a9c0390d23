#!/usr/bin/env bash
# Privileges and process state: as root, the command has no capability in
# any set (effective, permitted, bounding, ambient, inheritable), runs with
# no_new_privs and a seccomp filter, and cannot mount (EPERM); a secret
# environment variable is gone after env.clear.  Controls: the same
# /proc/self/status outside shows capabilities and no_new_privs 0; mount
# works outside as root; the variable is present without env.clear.
. "$(dirname "$0")/common.sh"

# status WHO KEYS|- FIELD — FIELD of /proc/self/status of cat(1), run as
# WHO inside the sandbox (KEYS) or outside (-).  Inside, /proc is readable
# through the default readable "/".
status() {
	local who=$1 keys=$2 field=$3
	if [ "$keys" = - ]; then
		as "$who" cat /proc/self/status
	else
		as "$who" "$SB" "{$UNF${keys:+,$keys}}" -- cat /proc/self/status 2>"$T/err"
	fi | sed -n "s/^$field:[[:space:]]*//p"
}

Z=0000000000000000
for who in $USERS; do
	# --- capabilities, no_new_privs, seccomp ---
	if [ "$who" = root ]; then
		out_eff=$(status root - CapEff)
		if [ -n "$out_eff" ] && [ "$out_eff" != $Z ]; then
			ok "root: control: CapEff outside is $out_eff"
		else
			skip "root holds no capability outside (CapEff $out_eff): the capability checks below cannot fail here"
		fi
		fields="CapEff CapPrm CapBnd CapAmb CapInh"
	else
		# Without CAP_SETPCAP the bounding set cannot shrink (nothing
		# can be gained from it under no_new_privs).
		fields="CapEff CapPrm CapAmb CapInh"
	fi
	# The checks below can only fail if these start out unset.
	for f in NoNewPrivs Seccomp; do
		v=$(status "$who" - $f)
		if [ "$v" = 0 ]; then
			ok "$who: control: $f outside is 0"
		else
			skip "$who: $f is already $v outside (is this test itself sandboxed?): the $f check below cannot fail here"
		fi
	done
	for f in $fields; do
		expect "$who: $f is zero inside" $Z "$(status "$who" "" $f)"
	done
	expect "$who: NoNewPrivs is 1 inside" 1 "$(status "$who" "" NoNewPrivs)"
	expect "$who: Seccomp is 2 (filter) inside" 2 "$(status "$who" "" Seccomp)"
	if [ "$who" = root ]; then
		# The reading is real: a kept capability shows up in it.
		expect "root: control: a kept capability (CAP_NET_BIND_SERVICE) shows in CapEff" \
			0000000000000400 "$(status root '"capabilities":["CAP_NET_BIND_SERVICE"]' CapEff)"
	fi

	# --- mount ---
	mnt=$(mkws "$who" mnt)
	if [ "$who" = root ]; then
		expect "root: control: mount works outside" ok "$(outside root mount "$mnt")"
		expect "root: control: fsopen works outside" ok "$(outside root fsopen)"
	else
		expect "$who: control: mount is refused outside too (no CAP_SYS_ADMIN)" EPERM "$(outside "$who" mount "$mnt")"
	fi
	expect "$who: mount is refused" EPERM "$(inside "$who" "" mount "$mnt")"
	expect "$who: fsopen (new mount API) is refused" EPERM "$(inside "$who" "" fsopen)"
	if [ "$who" = root ]; then
		# Even with CAP_SYS_ADMIN kept and mount allowed by seccomp,
		# Landlock refuses mounts to a sandboxed process.
		expect "root: mount is refused even with CAP_SYS_ADMIN kept" EPERM \
			"$(inside root '"capabilities":["CAP_SYS_ADMIN"]' mount "$mnt")"
		expect "root: ... and with seccomp.allow [\"mount\"] too (Landlock)" EPERM \
			"$(inside root '"capabilities":["CAP_SYS_ADMIN"],"seccomp":{"allow":["mount"]}' mount "$mnt")"
	fi
	if grep -q " $mnt " /proc/self/mounts; then
		not_ok "$who: nothing stayed mounted on $mnt"
		umount -l "$mnt"
	else
		ok "$who: nothing stayed mounted on $mnt"
	fi

	# --- environment ---
	export SB_TEST_SECRET=hunter2
	expect "$who: control: the secret is in the environment without env.clear" set \
		"$(inside "$who" "" getenv SB_TEST_SECRET)"
	expect "$who: the secret is absent after env.clear" unset \
		"$(inside "$who" '"env":{"clear":true}' getenv SB_TEST_SECRET)"
	expect "$who: control: env.clear with keep [\"SB_TEST_*\"] keeps it" set \
		"$(inside "$who" '"env":{"clear":true,"keep":["SB_TEST_*"]}' getenv SB_TEST_SECRET)"
	expect "$who: the secret is absent after env.unset" unset \
		"$(inside "$who" '"env":{"unset":["SB_TEST_SECRET"]}' getenv SB_TEST_SECRET)"
	unset SB_TEST_SECRET
done

done_testing

#!/usr/bin/env bash
# Syscalls the default seccomp filter refuses (DESIGN.md "Default seccomp
# filter"): io_uring (ENOSYS: invisible to seccomp), user namespaces
# through unshare and clone (EPERM), clone3 (ENOSYS: flags unreadable),
# ptrace of the parent (EPERM: seccomp, and Landlock too), personality
# changes (EPERM), bpf (EPERM).  Each paired with the same call working
# outside the sandbox (or answering differently there) and, where the
# profile can relax it, working under seccomp.allow.
. "$(dirname "$0")/common.sh"

allow() { printf '"seccomp":{"allow":["%s"]}' "$1"; }

# Persona of this process, inherited by the command: setting it again is
# allowed, any other value is a change.
cur=$(cat /proc/self/personality)
other=$(printf '0x%x' $((0x$cur ^ 0x0040000))) # toggle ADDR_NO_RANDOMIZE

for who in $USERS; do
	# --- io_uring ---
	expect "$who: control: io_uring_setup works outside" ok "$(outside "$who" io_uring_setup)"
	expect "$who: io_uring_setup is refused" ENOSYS "$(inside "$who" "" io_uring_setup)"
	expect "$who: control: io_uring_setup works with seccomp.allow" ok \
		"$(inside "$who" "$(allow io_uring_setup)" io_uring_setup)"

	# --- user namespaces ---
	for op in unshare-user clone-newuser; do
		expect "$who: control: $op works outside" ok "$(outside "$who" $op)"
		expect "$who: $op is refused" EPERM "$(inside "$who" "" $op)"
	done
	expect "$who: control: unshare-user works with seccomp.allow [\"unshare\"]" ok \
		"$(inside "$who" "$(allow unshare)" unshare-user)"
	expect "$who: control: clone3 works outside" ok "$(outside "$who" clone3)"
	expect "$who: clone3 is refused (so libc falls back to clone)" ENOSYS "$(inside "$who" "" clone3)"

	# --- ptrace of the parent (a dedicated sh owned by $who) ---
	check "$who: control: PTRACE_ATTACH to the parent works outside" ok \
		"$(under_sh "$who" "$TRY" ptrace-attach ppid 2>&1)"
	check "$who: PTRACE_ATTACH to the parent is refused" EPERM \
		"$(under_sh "$who" "$SB" "{$UNF}" -- "$TRY" ptrace-attach ppid 2>&1 | tail -n1)"
	# Root keeps CAP_SYS_PTRACE here, so neither seccomp nor the
	# capability check can be why: only Landlock (a process outside the
	# domain) is left.
	keys=$(allow ptrace)
	[ "$who" = root ] && keys="$keys,\"capabilities\":[\"CAP_SYS_PTRACE\"]"
	check "$who: ... and still by Landlock with {$keys}" EPERM \
		"$(under_sh "$who" "$SB" "{$UNF,$keys}" -- "$TRY" ptrace-attach ppid 2>&1 | tail -n1)"

	# /proc/PARENT/environ (the parent's secrets) needs ptrace read access:
	# Landlock refuses it for a process outside the domain.
	check "$who: control: the parent's /proc/PID/environ is readable outside" ok \
		"$(under_sh "$who" "$TRY" open-read /proc/ppid/environ 2>&1)"
	check "$who: the parent's /proc/PID/environ is refused" EACCES \
		"$(under_sh "$who" "$SB" "{$UNF}" -- "$TRY" open-read /proc/ppid/environ 2>&1 | tail -n1)"

	# --- personality ---
	expect "$who: control: personality($other) works outside" ok "$(outside "$who" personality "$other")"
	expect "$who: personality($other) (a change) is refused" EPERM "$(inside "$who" "" personality "$other")"
	expect "$who: personality(0x$cur) (the current one) works" ok "$(inside "$who" "" personality "0x$cur")"
	expect "$who: control: personality($other) works with seccomp.allow" ok \
		"$(inside "$who" "$(allow personality)" personality "$other")"

	# --- bpf ---
	o=$(outside "$who" bpf)
	if [ "$o" = ok ]; then
		ok "$who: control: bpf(BPF_MAP_CREATE) works outside"
	else
		skip "$who: bpf(BPF_MAP_CREATE) is refused outside too ($o: kernel.unprivileged_bpf_disabled); bpf-badcmd below is the control"
	fi
	expect "$who: bpf(BPF_MAP_CREATE) is refused" EPERM "$(inside "$who" "" bpf)"
	expect "$who: control: bpf with an invalid command answers EINVAL outside" EINVAL \
		"$(outside "$who" bpf-badcmd)"
	expect "$who: bpf with an invalid command is refused before the kernel looks" EPERM \
		"$(inside "$who" "" bpf-badcmd)"
done

done_testing

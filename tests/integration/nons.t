#!/usr/bin/env bash
# tests/helpers/nons refuses namespaces the way container runtimes do
# (unshare and clone with CLONE_NEW* → EPERM, clone3 → ENOSYS) and nothing
# else: under it `unshare -U` fails and `__sandbox --probe` reports no user
# or mount namespace; without it (the control) both work where this machine
# allows them.  `make check` runs tests/integration under it (SB_NONS=1,
# build/tests/nons/*.t); this file calls the helper itself.
. "$(dirname "$0")/common.sh"
NONS= # never wrap this file's own runs: it compares with and without
N=$HELPERS/nons
TRY=$HELPERS/try-syscall
UNSHARE=$(command -v unshare)
if [ ! -x "$N" ] || [ ! -x "$TRY" ]; then
	not_ok "the helpers are built (make tests): $N $TRY"
	done_testing
	exit
fi
# userns_avail [PREFIX...] — "true"/"false" from --probe's namespaces.user
userns_avail() {
	"$@" "$SB" --probe | tr -d ' \n' | sed -n 's/.*"namespaces":{"user":{"available":\([a-z]*\).*/\1/p'
}

for who in $USERS; do
	t=$who

	# under nons
	e=$(as "$who" "$N" "$UNSHARE" -U true 2>&1)
	rc=$?
	check_match "$t: nons: unshare -U true fails with EPERM (rc=$rc)" \
		'unshare failed: Operation not permitted' "$rc $e"
	check "$t: nons: unshare(CLONE_NEWUSER)" EPERM "$(as "$who" "$N" "$TRY" unshare-user 2>&1)"
	check "$t: nons: clone(CLONE_NEWUSER)" EPERM "$(as "$who" "$N" "$TRY" clone-newuser 2>&1)"
	check "$t: nons: clone3 (libcs fall back to clone)" ENOSYS "$(as "$who" "$N" "$TRY" clone3 2>&1)"
	check "$t: nons: fork, exec and pipes still work" "a b" "$(as "$who" "$N" sh -c 'echo a | (cat; /bin/echo b)' | tr '\n' ' ' | sed 's/ $//')"
	check "$t: nons: the filter is inherited across exec" EPERM "$(as "$who" "$N" sh -c '"$1" unshare-user' sh "$TRY" 2>&1)"
	probe=$(as "$who" "$N" "$SB" --probe 2>&1)
	check "$t: nons: --probe: user namespaces unavailable" false "$(userns_avail as "$who" "$N")"
	check_match "$t: nons: --probe names EPERM for the user namespace" \
		'"user":\{"available":false,"errno":"EPERM"' "$(printf '%s' "$probe" | tr -d ' \n')"
	check_match "$t: nons: --probe: no mount namespace either" \
		'"mount":\{"available":false,"errno":"EPERM"' "$(printf '%s' "$probe" | tr -d ' \n')"
	ws=$(mkws "$who" nons)
	err=$(as "$who" "$N" "$SB" "$(prof default "$ws" '"mounts":"required"')" -- true </dev/null 2>&1 >/dev/null)
	check "$t: nons: mounts required is refused (125)" 125 "$?"
	check_match "$t: nons: ... naming .mounts, the refused step and the errno" \
		'^__sandbox: this host cannot enforce \.mounts: a mount namespace \(mounts "required"\) \(no mount namespace here: unshare\(CLONE_NEW[A-Z|_]*\): Operation not permitted\); to run without it, set in the profile: "mounts":"auto"$' "$err"
	out=$(as "$who" "$N" "$SB" "$(prof default "$ws")" -- sh -c 'echo ran' </dev/null 2>"$T/err")
	rc=$?
	check "$t: nons: the shim still runs a command (no namespace: expansion)" "0 ran" "$rc $out"

	# A plan made again after the namespaces are refused gets the first
	# plan's answers from memory: no path is looked up more often than
	# by one plan made without namespaces at all ("mounts":"off"), but
	# for git's configuration files, read once per plan.  (A second
	# lookup of every path, and a second descriptor kept for each, is
	# what it cost before.)
	if command -v strace >/dev/null && [ -x /usr/bin/python3 ]; then
		mkdir -p "$ws/a/x" && chown -R "$(stat -c %u "$ws")" "$ws/a"
		rp='"read_only":["'$ws/a/x'"],"best_effort":true'
		as "$who" "$N" strace -f -qq -o "$T/replan.st" "$SB" "$(prof real "$ws" "$rp")" -- /bin/true </dev/null >/dev/null 2>&1
		as "$who" strace -f -qq -o "$T/once.st" "$SB" "$(prof real "$ws" "$rp,\"mounts\":\"off\"")" -- /bin/true </dev/null >/dev/null 2>&1
		as "$who" strace -f -qq -o "$T/mounts.st" "$SB" "$(prof real "$ws" "$rp")" -- /bin/true </dev/null >/dev/null 2>&1
		more=$(/usr/bin/python3 - "$T/replan.st" "$T/once.st" "$T/mounts.st" "$SB" <<'PY'
import collections, re, sys
def counts(f, sb):
    pid, on, c = None, False, collections.Counter()
    for l in open(f):
        m = re.match(r'(\d+) +(\w+)\((?:AT_FDCWD, )?"([^"]*)"', l)
        if not m:
            if on and pid and l.startswith(pid + ' ') and 'execve(' in l:
                break
            continue
        p, call, path = m.groups()
        if call == 'execve':
            if path == sb and not on:
                pid, on = p, True
                continue
            if on and p == pid:
                break
        if on and p == pid:
            c[path] += 1
    return c
sb = sys.argv[4]
a = counts(sys.argv[1], sb)
# once: the most either single plan (without namespaces, or with them)
# looks a path up
once = {p: max(counts(sys.argv[2], sb)[p], counts(sys.argv[3], sb)[p]) for p in a}
print(' '.join('%s:%d>%d' % (p, n, once[p]) for p, n in sorted(a.items())
               if n > once[p] + ('gitconfig' in p or p.endswith('/config')) and not p.startswith('/proc/self/')) or 'none')
PY
)
		check "$t: nons: a plan made again looks no path up more often than one plan (paths over)" none "$more"
	else
		skip "$t: nons: a plan made again looks no path up twice (strace or python3 missing)"
	fi

	# the control, without nons
	if [ "$(userns_avail as "$who")" != true ]; then
		why=$(as "$who" "$SB" --probe | tr -d '\n' | sed -n 's/.*"user": *{[^}]*"error": *\("[^"]*"\).*/\1/p')
		skip "$t: control: unshare -U true works without nons (this machine refuses user namespaces to $who: $why)"
		skip "$t: control: --probe: user namespaces available (refused here: $why)"
		continue
	fi
	e=$(as "$who" "$UNSHARE" -U true 2>&1)
	check "$t: control: unshare -U true works without nons" "0 " "$? $e"
	check "$t: control: --probe: user namespaces available" true "$(userns_avail as "$who")"
done
done_testing

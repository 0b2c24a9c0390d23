#!/usr/bin/env python3
"""mecha's Landlock backend (seeds/002: mecha_core sandbox.rs) as the
shim's profile JSON.

  mecha_profile.py WORKSPACE TMP [network=true] [env=NAME,...]
                   [readable=PATH,...] [writable=PATH,...]

What mecha's SandboxConfig and landlock_ruleset say, mapped key by key:
  - the system read-only: /usr /etc /opt /bin /sbin /lib /lib32 /lib64
    /proc /run, each only when it exists (a missing one adds no rule),
    plus `readable` (the same rule);
  - the workspace writable (it must exist: writable[0]), plus `writable`
    entries that exist;
  - /tmp: mecha grants the host's shared /tmp ("the honest cost of having
    no mount namespace"); here TMP is a private temporary directory
    (TMPDIR), and with a mount namespace also the command's /tmp;
  - /dev: the shim's default devices (null, zero, urandom, tty, ...);
  - network = false: "off" (TCP denied by Landlock, and every socket
    family but unix refused by seccomp: UDP too, which mecha's Landlock
    backend cannot close); true: "on";
  - the environment: cleared; PATH the fixed one mecha sets, HOME the
    workspace, then the names in `env` passed through, so a PATH named
    there wins over the fixed one (env.keep, applied before env.set:
    the fixed PATH is only set when PATH is not kept);
  - bwrap's --new-session and --die-with-parent: new_session, and the
    shim's default die_with_parent;
  - what mecha's backend does not ask for (a signal scope, the pathname
    unix socket scope) is left to the host: unenforced;
  - never unconfined: best_effort is false, so a host that cannot enforce
    the file policy refuses (125) instead of running the command.
Prints the JSON."""
import json
import os
import sys

SYSTEM = ["/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/proc", "/run"]
FIXED_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def main():
    ws, tmp = sys.argv[1:3]
    opt = dict(a.split("=", 1) for a in sys.argv[3:])
    split = lambda k: [x for x in opt.get(k, "").split(",") if x]
    ws = os.path.realpath(ws, strict=True)  # absolute(): canonicalize or fail
    readable = [d for d in SYSTEM + split("readable") if os.path.exists(d)]
    writable = [ws] + [d for d in split("writable") if os.path.exists(d)]
    names = split("env")
    env = {"clear": True, "keep": names, "set": {"HOME": ws}}
    if "PATH" not in names:
        env["set"]["PATH"] = FIXED_PATH
    prof = {
        "readable": readable,
        "writable": writable,
        "tmp": tmp,
        "network": "on" if opt.get("network") == "true" else "off",
        "env": env,
        "cwd": ws,
        "new_session": True,
        "unenforced": {"signal_scope": True, "host_sockets": True},
    }
    print(json.dumps(prof, separators=(",", ":")))


main()

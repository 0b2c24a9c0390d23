#!/usr/bin/env python3
"""codex's Linux sandbox (seeds/003: linux-sandbox bwrap.rs, bubblewrap
plus seccomp) as the shim's profile JSON.

  codex_profile.py CWD [root=PATH ...] [read=PATH ...] [none=PATH ...]
                   [network=isolated|full] [pidns=yes]

A FileSystemSandboxPolicy with full read access ("the filesystem is
read-only by default") and its entries, mapped key by key:
  - writable roots (CWD first, then each root=PATH in order): `writable`,
    every one as given, missing ones included — codex skips a missing
    root itself; the shim skips a missing one but the first with a notice
    and refuses a missing first one (the workspace);
  - the sensitive subpaths of every writable root, `.git` and `.codex`,
    "remain read-only even when their parent root is writable": `read_only`
    where they exist (a missing one cannot be occupied: the shim never
    creates in the user's tree; its built-in protect list names .codex/);
  - read=PATH (an explicit read entry, e.g. docs/ inside the workspace
    with docs/public a writable root: codex's split policy): `read_only`;
  - none=PATH (FileSystemAccessMode::None, an unreadable carve-out):
    `hidden`; a writable root inside it stays writable (more specific wins);
  - --new-session, --die-with-parent: new_session, die_with_parent;
  - network isolated (--unshare-net): "loopback", a fresh network
    namespace (enforced as "off" where namespaces are refused); full: "on";
  - the command's cwd, canonical: `cwd`;
  - pidns=yes (bwrap --unshare-pid --proc, which codex passes unless
    it runs without a PID namespace): `no_survivors`, a PID namespace
    with a minimal init and a fresh /proc where namespaces can be had;
  - what bwrap's PID namespace gives codex (signals only inside) and what
    it leaves open (host unix sockets under a read-only root) are left to
    the host: unenforced signal_scope and host_sockets.
Prints the JSON."""
import json
import os
import sys


def main():
    cwd = sys.argv[1]
    roots, read, none, network, pidns = [cwd], [], [], "isolated", False
    for a in sys.argv[2:]:
        k, v = a.split("=", 1)
        if k == "root":
            roots.append(v)
        elif k == "read":
            read.append(v)
        elif k == "none":
            none.append(v)
        elif k == "network":
            network = v
        elif k == "pidns":
            pidns = v == "yes"
        else:
            sys.exit("codex_profile.py: unknown " + k)
    read_only = []
    for r in roots:
        for sub in (".git", ".codex"):
            p = os.path.join(r, sub)
            if os.path.lexists(p):
                read_only.append(p)
    read_only += read
    prof = {
        "writable": roots,
        "read_only": read_only,
        "hidden": none,
        "network": "loopback" if network == "isolated" else "on",
        "new_session": True,
        "die_with_parent": True,
        "cwd": os.path.realpath(cwd),
        "unenforced": {"signal_scope": True, "host_sockets": True},
    }
    if pidns:
        prof["no_survivors"] = True
    print(json.dumps(prof, separators=(",", ":")))


main()

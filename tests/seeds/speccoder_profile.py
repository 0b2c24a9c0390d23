#!/usr/bin/env python3
"""speccoder's Profile JSON, as its serde derive writes it (seeds/000:
sandbox.rs): the fields in declaration order, compact, `caches` skipped
when empty, `unenforced` always present with its four booleans.

  speccoder_profile.py VARIANT ROOT HOME [KEY=VALUE...]

VARIANT: default (Profile::new with the default [sandbox] config: network
"loopback"), off (network "off"), fetching (network "on": the caches join
the writable trees), carve (default, then Profile::carve with ROOT/.git
read-only and the ignored ROOT/.env hidden).  KEY=VALUE: unenforced flags
(trust_handoff=true, ...) as speccoder's fit or runner would set them;
writable=PATH appends a [sandbox] writable entry.  Prints the JSON; the tmp
directory is created as speccoder does (create_dir_all, the caller's
umask)."""
import hashlib
import json
import os
import sys

# seeds/000: HIDDEN and CACHES, relative to the home directory.
HIDDEN = [".ssh", ".aws", ".azure", ".gnupg", ".netrc", ".docker", ".kube",
          ".npmrc", ".pypirc", ".git-credentials", ".password-store",
          ".config/gh", ".config/gcloud", ".config/hub", ".cargo/credentials",
          ".cargo/credentials.toml", ".local/share/keyrings", "Library/Keychains"]
CACHES = [".cargo/registry", ".cargo/git", ".cargo/.package-cache",
          ".cargo/.package-cache-mutate", ".cargo/.global-cache", ".cache",
          ".npm", ".pnpm-store", ".yarn/berry/cache", "go/pkg/mod",
          "Library/Caches"]


def canonical(p):
    # std::fs::canonicalize, or the path as it is when that fails
    try:
        return os.path.realpath(p, strict=True)
    except OSError:
        return p


def main():
    variant, root, home = sys.argv[1:4]
    extra = dict(a.split("=", 1) for a in sys.argv[4:])
    root = canonical(root)
    home = canonical(home)
    writable = [root]
    if "writable" in extra:
        writable.append(canonical(extra.pop("writable")))
    digest = hashlib.sha256(root.encode()).hexdigest()[:12]
    tmp = os.path.join(canonical(os.environ.get("TMPDIR", "/tmp")), "speccoder-" + digest)
    network = {"default": "loopback", "carve": "loopback", "off": "off",
               "fetching": "on"}[variant]
    caches = [os.path.join(home, c) for c in CACHES]
    if network == "on":  # Profile::fetching
        writable += [c for c in caches if c not in writable]
    read_only, hidden = [], [os.path.join(home, h) for h in HIDDEN]
    if variant == "carve":
        read_only.append(canonical(os.path.join(root, ".git")))
        hidden.append(canonical(os.path.join(root, ".env")))
    unenforced = {k: extra.get(k) == "true"
                  for k in ("trust_handoff", "workspace_sockets", "signal_scope", "carve")}
    unknown = set(extra) - set(unenforced)
    if unknown:
        sys.exit("speccoder's Unenforced has no " + ", ".join(sorted(unknown)))
    os.makedirs(tmp, exist_ok=True)
    prof = {"writable": writable, "hidden": hidden, "read_only": read_only,
            "network": network, "tmp": tmp}
    if caches:
        prof["caches"] = caches
    prof["unenforced"] = unenforced
    print(json.dumps(prof, separators=(",", ":")))


main()

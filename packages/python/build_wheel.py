#!/usr/bin/env python3
"""build_wheel.py SRC_DIR MACHINE BINARY VERSION OUT_DIR — write one wheel.

A wheel is a zip with a dist-info directory (PEP 427); this one is written
by hand so that only Debian's python3 is needed (no PyPI, no build
backend), and byte for byte reproducible: fixed timestamps, sorted entries,
modes 0644/0755.  SRC_DIR holds the package (sandbox_shim/ with
mcp_defaults.json and profile.schema.json already staged); BINARY becomes
sandbox_shim/bin/linux-MACHINE/__sandbox.  The binary is static, so the
wheel is tagged for every glibc (manylinux_2_17 and its legacy alias
manylinux2014) and musl (musllinux_1_1) Linux on MACHINE; pip's
--no-index install picks it by those tags.  Prints the wheel's path.
"""
import base64
import hashlib
import os
import sys
import zipfile

NAME = "sandbox_shim"
SUMMARY = ("__sandbox: confine a command (an MCP server, a tool) with Landlock, seccomp "
           "and namespaces, then exec it; the static binary, a spawn/check/probe API and "
           "an MCP configuration wrapper")
EPOCH = (1980, 1, 1, 0, 0, 0)


def tags(machine):
    return [f"py3-none-manylinux_2_17_{machine}", f"py3-none-manylinux2014_{machine}",
            f"py3-none-musllinux_1_1_{machine}"]


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main(src, machine, binary, version, out_dir):
    files = {}  # archive name -> (bytes, mode)
    for root, dirs, names in os.walk(os.path.join(src, NAME)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith(".pyc"):
                continue
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, src)] = (f.read(), 0o644)
    with open(binary, "rb") as f:
        files[f"{NAME}/bin/linux-{machine}/__sandbox"] = (f.read(), 0o755)
    info = f"{NAME}-{version}.dist-info"
    files[f"{info}/METADATA"] = ("\n".join([
        "Metadata-Version: 2.1", f"Name: sandbox-shim", f"Version: {version}",
        f"Summary: {SUMMARY}", "License: MIT AND LGPL-2.1-or-later",
        "Requires-Python: >=3.8", "Classifier: Operating System :: POSIX :: Linux", "", ""]).encode(), 0o644)
    files[f"{info}/WHEEL"] = ("\n".join(
        ["Wheel-Version: 1.0", "Generator: sandbox-shim build_wheel.py", "Root-Is-Purelib: false"]
        + [f"Tag: {t}" for t in tags(machine)] + ["", ""]).encode(), 0o644)
    files[f"{info}/entry_points.txt"] = ("\n".join([
        "[console_scripts]", "sandbox-shim = sandbox_shim.__main__:console",
        "sandbox-shim-mcp = sandbox_shim.mcp:console", "", ""]).encode(), 0o644)
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, (d, _) in sorted(files.items()))
    record += f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = (record.encode(), 0o644)
    # the dist-info last, RECORD at the very end (PEP 427 recommends it)
    order = sorted(n for n in files if not n.startswith(info)) + \
        sorted(n for n in files if n.startswith(info) and not n.endswith("RECORD")) + [f"{info}/RECORD"]
    plat = ".".join(t.split("-", 2)[2] for t in tags(machine))
    wheel = os.path.join(out_dir, f"{NAME}-{version}-py3-none-{plat}.whl")
    tmp = wheel + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n in order:
            zi = zipfile.ZipInfo(n, EPOCH)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o100000 | files[n][1]) << 16
            zi.create_system = 3  # Unix: pip reads the mode from here
            z.writestr(zi, files[n][0])
    os.replace(tmp, wheel)
    print(wheel)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__.splitlines()[0])
    main(*sys.argv[1:])

#!/usr/bin/env python3
"""Start a command under __sandbox from Python: a thin user of the
sandbox_shim package (packages/python), imported from this checkout (an
installed wheel when the file is used elsewhere).

The package hands the profile to the shim on a pipe (``fd:N``, never the
command line), the shim becomes the command (same pid, same stdin/stdout),
and a command that never ran comes back from ``wait()`` as
``SandboxRefused`` (125), ``CommandNotExecutable`` (126) or
``CommandNotFound`` (127), each a ``SandboxError`` carrying the shim's one
line.  The binary is $SANDBOX, else the package's own (a wheel carries
one), else __sandbox on PATH.

As a module, the package's API with that binary::

    from sandboxed import spawn, wait
    proc = spawn({"writable": [workspace]}, ["my-mcp-server"],
                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ...                      # speak to proc.stdin / proc.stdout
    wait(proc)               # exit status, or a SandboxError

As a program: ``sandboxed.py WORKSPACE -- COMMAND [ARG...]`` runs COMMAND
with WORKSPACE writable, the system directories readable, no network and a
cleared environment, stdin and stdout passed through.  It asks for the
denial report (``spawn(..., denials=True)``) and, under a failed run,
prints the system calls the sandbox refused (a file Landlock did not let
the command open is not among them).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packages", "python"))
import sandbox_shim  # noqa: E402
from sandbox_shim import (  # noqa: E402,F401  (re-exported for `from sandboxed import ...`)
    CommandNotExecutable, CommandNotFound, SandboxError, SandboxRefused, wait)

WHAT = {125: "the sandbox refused to start", 126: "the sandbox could not execute",
        127: "the sandbox could not find"}


def sandbox_binary():
    """$SANDBOX, else the package's binary, else __sandbox on PATH."""
    try:
        return sandbox_shim.binary_path()
    except FileNotFoundError:
        return "__sandbox"


def spawn(profile, argv, **kw):
    """sandbox_shim.spawn with the binary above (``sandbox=`` overrides)."""
    kw.setdefault("sandbox", sandbox_binary())
    return sandbox_shim.spawn(profile, argv, **kw)


def workspace_profile(workspace):
    """A profile for a tool working in one directory."""
    return {
        "readable": ["/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin"],
        "writable": [workspace],
        "network": "off",
        "env": {"clear": True, "keep": ["PATH", "LANG", "LC_*", "TERM"]},
    }


def main(args):
    if len(args) < 3 or args[1] != "--":
        print("usage: sandboxed.py WORKSPACE -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    proc = spawn(workspace_profile(args[0]), args[2:], denials=True)
    try:
        code = wait(proc)
    except SandboxError as e:
        print(f"sandboxed.py: {WHAT[e.exit_code]} {args[2]}: {e}", file=sys.stderr)
        return e.exit_code
    if code != 0 and proc.denials:
        print(f"sandboxed.py: {args[2]} exited {code}; the sandbox refused it:", file=sys.stderr)
        for d in proc.denials:
            if "dropped" in d:
                print(f"  ({d['dropped']} more, not reported: this process read too slowly)", file=sys.stderr)
            elif "raw" in d:
                print(f"  {d['raw']}", file=sys.stderr)
            else:
                print(f"  {d.get('syscall') or d.get('nr')}: {d.get('error')} (pid {d.get('pid')})", file=sys.stderr)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

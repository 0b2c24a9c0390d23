#!/usr/bin/env python3
"""Start a command under __sandbox from Python.

The profile travels on a pipe (``fd:N``), never on the command line, so it
is neither limited by ARG_MAX nor visible in /proc/PID/cmdline.  The shim
then becomes the command: same pid, same stdin/stdout (an MCP server speaks
its protocol on them unchanged).  If the shim refuses to start the command
(exit status 125 and one ``__sandbox: ...`` line on stderr), ``wait()``
raises ``SandboxRefused`` with that line.

    from sandboxed import spawn, wait
    proc = spawn({"writable": [workspace]}, ["my-mcp-server"],
                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ...                      # speak to proc.stdin / proc.stdout
    wait(proc)               # exit status, or SandboxRefused

As a program: ``sandboxed.py WORKSPACE -- COMMAND [ARG...]`` runs COMMAND
with WORKSPACE writable, the system directories readable, no network and a
cleared environment, stdin and stdout passed through.  Set SANDBOX to the
path of __sandbox if it is not on PATH.
"""
import json
import os
import subprocess
import sys
import threading


class SandboxRefused(RuntimeError):
    """__sandbox did not start the command; str() is the shim's message."""


def spawn(profile, argv, sandbox=None, **popen_kw):
    """Popen of ``argv`` confined by ``profile`` (a dict).

    stderr is read by a thread (``proc.stderr`` is None): the command's own
    lines and the shim's notices are copied to this process's stderr, the
    shim's error line is kept for ``wait()``.  Other keyword arguments go
    to subprocess.Popen; communicate() works on stdin and stdout."""
    sandbox = sandbox or os.environ.get("SANDBOX", "__sandbox")
    r, w = os.pipe()
    try:
        proc = subprocess.Popen([sandbox, f"fd:{r}", "--", *argv],
                                pass_fds=(r,), stderr=subprocess.PIPE,
                                **popen_kw)
    finally:
        os.close(r)
    # Written once the shim runs: a profile larger than the pipe buffer
    # would block a write made before.
    with os.fdopen(w, "wb") as f:
        try:
            f.write(json.dumps(profile).encode())
        except BrokenPipeError:
            pass  # the shim already stopped; its exit status says why
    proc.sandbox_errors = []
    # Read by the thread alone: communicate() must not read it too.
    stderr, proc.stderr = proc.stderr, None

    def pump():
        for raw in stderr:
            line = raw.decode(errors="replace")
            if line.startswith("__sandbox: ") and not line.startswith("__sandbox: notice: "):
                proc.sandbox_errors.append(line.rstrip("\n"))
            else:
                sys.stderr.write(line)
                sys.stderr.flush()
        stderr.close()

    proc.stderr_thread = threading.Thread(target=pump, daemon=True)
    proc.stderr_thread.start()
    return proc


def wait(proc, timeout=None):
    """The command's exit status; SandboxRefused if the shim refused."""
    code = proc.wait(timeout)
    proc.stderr_thread.join()
    # After exec the shim prints nothing more, so a shim error line means
    # the command never ran (and 125 is the shim's, not the command's).
    if code == 125 and proc.sandbox_errors:
        raise SandboxRefused(proc.sandbox_errors[-1])
    return code


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
    proc = spawn(workspace_profile(args[0]), args[2:])
    try:
        return wait(proc)
    except SandboxRefused as e:
        print(f"sandboxed.py: the sandbox refused to start {args[2]}: {e}", file=sys.stderr)
        return 125


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Start a command under __sandbox from Python.

The profile travels on a pipe (``fd:N``), never on the command line, so it
is neither limited by ARG_MAX nor visible in /proc/PID/cmdline.  The shim
then becomes the command: same pid, same stdin/stdout (an MCP server speaks
its protocol on them unchanged).  If the command never ran, the shim exits
with one ``__sandbox: ...`` line on stderr and ``wait()`` raises, with that
line as the message and the status in ``exit_code``:

- ``SandboxRefused`` (125): the sandbox could not be set up (profile, a
  required part this host cannot enforce, a setup syscall);
- ``CommandNotExecutable`` (126): the command exists but could not be
  executed (the line says whether the file mode or the profile is why);
- ``CommandNotFound`` (127): the command was not found.

All three are ``SandboxError``s.

    from sandboxed import spawn, wait
    proc = spawn({"writable": [workspace]}, ["my-mcp-server"],
                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ...                      # speak to proc.stdin / proc.stdout
    wait(proc)               # exit status, or a SandboxError

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


class SandboxError(RuntimeError):
    """__sandbox did not run the command; str() is the shim's one-line
    message, ``exit_code`` its exit status (125, 126 or 127)."""

    exit_code = None
    what = "the sandbox did not run"


class SandboxRefused(SandboxError):
    """125: the sandbox could not be set up, nothing ran."""

    exit_code = 125
    what = "the sandbox refused to start"


class CommandNotExecutable(SandboxError):
    """126: the command exists but could not be executed."""

    exit_code = 126
    what = "the sandbox could not execute"


class CommandNotFound(SandboxError):
    """127: the command was not found (on the sandbox's PATH)."""

    exit_code = 127
    what = "the sandbox could not find"


ERRORS = {c.exit_code: c for c in (SandboxRefused, CommandNotExecutable, CommandNotFound)}


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
    """The command's exit status; a SandboxError (SandboxRefused,
    CommandNotExecutable, CommandNotFound) if it never ran."""
    code = proc.wait(timeout)
    proc.stderr_thread.join()
    # After exec the shim prints nothing more, so a shim error line means
    # the command never ran (and 125, 126 or 127 is the shim's, not the
    # command's own).
    if code in ERRORS and proc.sandbox_errors:
        raise ERRORS[code](proc.sandbox_errors[-1])
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
    except SandboxError as e:
        print(f"sandboxed.py: {e.what} {args[2]}: {e}", file=sys.stderr)
        return e.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

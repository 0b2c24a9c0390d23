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

With ``denials=True`` the shim also reports every system call its seccomp
filter refused (profile key ``denials``: one JSON line each on a pipe of
this process's); ``wait()`` leaves them in ``proc.denials`` (a list of
dicts: syscall, nr, errno, error, pid, arch, monotonic), to show under a
failed run.  They are the refused *system calls* only: a file Landlock
did not let the command open is not among them.

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


def spawn(profile, argv, sandbox=None, denials=False, **popen_kw):
    """Popen of ``argv`` confined by ``profile`` (a dict).

    stderr is read by a thread (``proc.stderr`` is None): the command's own
    lines and the shim's notices are copied to this process's stderr, the
    shim's error line is kept for ``wait()``.  ``denials``: collect the
    refused system calls (see the module's doc).  Other keyword arguments
    go to subprocess.Popen; communicate() works on stdin and stdout."""
    sandbox = sandbox or os.environ.get("SANDBOX", "__sandbox")
    r, w = os.pipe()
    pass_fds = [r]
    report = None
    if denials:
        # The shim's listener, not the command, holds the write end: it
        # ends once every process of the sandbox is gone.
        report, report_w = os.pipe()
        profile = dict(profile, denials={"fd": report_w})
        pass_fds.append(report_w)
    try:
        proc = subprocess.Popen([sandbox, f"fd:{r}", "--", *argv],
                                pass_fds=pass_fds, stderr=subprocess.PIPE,
                                **popen_kw)
    finally:
        os.close(r)
        if report is not None:
            os.close(report_w)
    proc.denials = []
    proc.denials_thread = None
    if report is not None:
        # Read while the command runs: a full pipe would hold up the
        # listener's lines (never the command: it answers first).
        def collect():
            with os.fdopen(report, "rb") as f:
                for raw in f:
                    try:
                        proc.denials.append(json.loads(raw))
                    except ValueError:
                        pass
        proc.denials_thread = threading.Thread(target=collect, daemon=True)
        proc.denials_thread.start()
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
    if proc.denials_thread is not None:
        # The report ends when the last process of the sandbox has gone;
        # a daemon the command left behind keeps it open, so do not wait
        # for that forever.
        proc.denials_thread.join(5)
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
    proc = spawn(workspace_profile(args[0]), args[2:], denials=True)
    try:
        code = wait(proc)
    except SandboxError as e:
        print(f"sandboxed.py: {e.what} {args[2]}: {e}", file=sys.stderr)
        return e.exit_code
    if code != 0 and proc.denials:
        print(f"sandboxed.py: {args[2]} exited {code}; the sandbox refused it:", file=sys.stderr)
        for d in proc.denials:
            print(f"  {d.get('syscall') or d.get('nr')}: {d.get('error')} (pid {d.get('pid')})",
                  file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

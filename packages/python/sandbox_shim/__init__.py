"""sandbox_shim: run a command under __sandbox from Python.

The wheel carries the static ``__sandbox`` binary built for its platform
(``bin/linux-<machine>/__sandbox``), picked by ``platform.machine()``.  The
profile travels on a pipe (``fd:N``), never on the command line: no ARG_MAX
limit, nothing in /proc/PID/cmdline.  The shim becomes the command (same
pid, same stdin/stdout), so an MCP server speaks its protocol unchanged.  If
the command never ran, the shim exits with one ``__sandbox: ...`` line on
stderr and ``wait()`` raises, with that line as the message:

- ``SandboxRefused`` (125): the sandbox could not be set up (profile, a
  required part this host cannot enforce, a setup syscall);
- ``CommandNotExecutable`` (126): the command exists but could not be
  executed (the line says whether the file mode or the profile is why);
- ``CommandNotFound`` (127): the command was not found.

All three are ``SandboxError`` with ``exit_code``.  ``spawn``/``wait`` are
the subprocess form, ``spawn_async``/``wait_async`` the asyncio form;
``check`` and ``probe`` return the shim's JSON parsed;
``stdio_server_parameters`` gives the keyword arguments of the MCP SDK's
``StdioServerParameters`` (the SDK is not needed here).
"""
import asyncio
import json
import os
import platform
import subprocess
import sys
import threading

__all__ = [
    "SandboxError", "SandboxRefused", "CommandNotExecutable", "CommandNotFound",
    "binary_for", "binary_path", "spawn", "wait", "spawn_async", "wait_async",
    "check", "probe", "stdio_server_parameters",
]

_HERE = os.path.dirname(os.path.abspath(__file__))


class SandboxError(RuntimeError):
    """__sandbox did not run the command; str() is the shim's one-line
    message, ``exit_code`` its exit status (125, 126 or 127)."""

    exit_code = None

    def __init__(self, message, exit_code=None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class SandboxRefused(SandboxError):
    """125: the sandbox could not be set up, nothing ran."""

    exit_code = 125


class CommandNotExecutable(SandboxError):
    """126: the command exists but could not be executed."""

    exit_code = 126


class CommandNotFound(SandboxError):
    """127: the command was not found (on the sandbox's PATH)."""

    exit_code = 127


_ERRORS = {c.exit_code: c for c in (SandboxRefused, CommandNotExecutable, CommandNotFound)}


def binary_for(machine=None, system=None):
    """The packaged binary for ``machine`` (default ``platform.machine()``).

    Raises FileNotFoundError naming what the package holds when it has
    none for this machine (a wheel for another platform, forced in)."""
    machine = machine or platform.machine()
    system = system or platform.system()
    path = os.path.join(_HERE, "bin", f"{system.lower()}-{machine}", "__sandbox")
    if os.path.isfile(path):
        return path
    try:
        held = sorted(os.listdir(os.path.join(_HERE, "bin")))
    except OSError:
        held = []
    raise FileNotFoundError(
        f"sandbox_shim: no __sandbox binary for {system.lower()}-{machine} in this package "
        f"(it holds: {', '.join(held) or 'none'}); set SANDBOX to the path of one")


def binary_path(sandbox=None):
    """``sandbox``, else ``$SANDBOX``, else the packaged binary."""
    return sandbox or os.environ.get("SANDBOX") or binary_for()


def _is_error_line(line):
    return line.startswith("__sandbox: ") and not line.startswith("__sandbox: notice: ")


def spawn(profile, argv, sandbox=None, stderr=None, **popen_kw):
    """subprocess.Popen of ``argv`` confined by ``profile`` (a dict).

    stderr is read by a thread (``proc.stderr`` is None): the command's own
    lines and the shim's notices go to ``stderr`` (default sys.stderr), the
    shim's error line is kept for ``wait()``.  Other keyword arguments go to
    Popen; communicate() works on stdin and stdout."""
    argv = list(argv)
    if not argv:
        raise ValueError("argv must not be empty")
    r, w = os.pipe()
    try:
        proc = subprocess.Popen([binary_path(sandbox), f"fd:{r}", "--", *argv],
                                pass_fds=(r,), stderr=subprocess.PIPE, **popen_kw)
    except BaseException:
        os.close(w)
        raise
    finally:
        os.close(r)
    # written once the shim runs: a profile larger than the pipe buffer
    # would block a write made before
    with os.fdopen(w, "wb") as f:
        try:
            f.write(json.dumps(profile).encode())
        except BrokenPipeError:
            pass  # the shim already stopped; its exit status says why
    proc.sandbox_errors = []
    err_pipe, proc.stderr = proc.stderr, None
    out = stderr or sys.stderr

    def pump():
        for raw in err_pipe:
            line = raw.decode(errors="replace")
            if _is_error_line(line):
                proc.sandbox_errors.append(line.rstrip("\n"))
            else:
                out.write(line)
                out.flush()
        err_pipe.close()

    proc.stderr_thread = threading.Thread(target=pump, daemon=True)
    proc.stderr_thread.start()
    return proc


def _outcome(code, errors):
    # After exec the shim prints nothing more, so a shim error line with
    # 125, 126 or 127 means the command never ran.
    if code in _ERRORS and errors:
        raise _ERRORS[code](errors[-1])
    return code


def wait(proc, timeout=None):
    """The command's exit status (negative: killed by that signal); a
    SandboxError if it never ran."""
    code = proc.wait(timeout)
    proc.stderr_thread.join()
    return _outcome(code, proc.sandbox_errors)


async def spawn_async(profile, argv, sandbox=None, stderr=None, **kw):
    """asyncio.create_subprocess_exec of ``argv`` confined by ``profile``;
    stdin and stdout default to pipes.  stderr is read by a task as in
    spawn(); ``await wait_async(proc)`` gives the status or raises."""
    argv = list(argv)
    if not argv:
        raise ValueError("argv must not be empty")
    kw.setdefault("stdin", asyncio.subprocess.PIPE)
    kw.setdefault("stdout", asyncio.subprocess.PIPE)
    r, w = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            binary_path(sandbox), f"fd:{r}", "--", *argv,
            pass_fds=(r,), stderr=asyncio.subprocess.PIPE, **kw)
    except BaseException:
        os.close(w)
        raise
    finally:
        os.close(r)
    data = json.dumps(profile).encode()
    loop = asyncio.get_running_loop()

    def write_profile():
        with os.fdopen(w, "wb") as f:
            try:
                f.write(data)
            except BrokenPipeError:
                pass  # the shim already stopped; its exit status says why

    # a thread: a profile larger than the pipe buffer must not block the loop
    proc.profile_written = loop.run_in_executor(None, write_profile)
    proc.sandbox_errors = []
    out = stderr or sys.stderr

    async def pump(reader):
        while True:
            raw = await reader.readline()
            if not raw:
                break
            line = raw.decode(errors="replace")
            if _is_error_line(line):
                proc.sandbox_errors.append(line.rstrip("\n"))
            else:
                out.write(line)
                out.flush()

    # read by the task alone: communicate() must not read it too
    proc.stderr_task = asyncio.ensure_future(pump(proc.stderr))
    proc.stderr = None
    return proc


async def wait_async(proc):
    """The exit status of a spawn_async() process; a SandboxError if the
    command never ran."""
    code = await proc.wait()
    await proc.stderr_task
    await proc.profile_written
    return _outcome(code, proc.sandbox_errors)


def _run_shim(args, profile=None, sandbox=None):
    fds = ()
    r = w = None
    if profile is not None:
        r, w = os.pipe()
        fds = (r,)
        args = [a.replace("fd:PROFILE", f"fd:{r}") for a in args]
    try:
        proc = subprocess.Popen([binary_path(sandbox), *args], pass_fds=fds, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        if r is not None:
            os.close(r)
    if w is not None:
        with os.fdopen(w, "wb") as f:
            try:
                f.write(json.dumps(profile).encode())
            except BrokenPipeError:
                pass
    out, err = proc.communicate()
    return proc.returncode, out.decode(), err.decode(errors="replace")


def _error_line(stderr):
    lines = [l for l in stderr.splitlines() if _is_error_line(l)]
    return lines[-1] if lines else stderr.strip()


def check(profile, sandbox=None):
    """The plan ``__sandbox --check`` prints for ``profile``, parsed: for a
    profile this host would run (``plan["refused"]`` empty, exit 0) and
    for one it would refuse (``refused`` names each part, exit 125).  A
    profile that is not valid has no plan: SandboxRefused with the line."""
    code, out, err = _run_shim(["--check", "fd:PROFILE"], profile, sandbox)
    if code in (0, 125) and out.strip():
        return json.loads(out)
    raise SandboxRefused(_error_line(err) or f"__sandbox --check exited {code}")


def probe(sandbox=None):
    """What this host can enforce (``__sandbox --probe``), parsed."""
    code, out, err = _run_shim(["--probe"], None, sandbox)
    if code != 0:
        raise SandboxError(_error_line(err) or f"__sandbox --probe exited {code}", code)
    return json.loads(out)


def stdio_server_parameters(profile, command, args=(), env=None, cwd=None, sandbox=None):
    """Keyword arguments of the MCP SDK's ``StdioServerParameters`` that
    start ``command args`` under __sandbox with ``profile``:

        from mcp import StdioServerParameters
        params = StdioServerParameters(**stdio_server_parameters(profile, "mcp-server-x", [ws]))

    The SDK starts the process itself and passes no extra descriptor, so
    the profile is inline JSON in argv here (visible in /proc/PID/cmdline,
    bounded by ARG_MAX: about 128 KiB per argument).  ``env`` and ``cwd``
    (None: the SDK's defaults) are for the shim, whose profile env rules
    then apply."""
    params = {
        "command": binary_path(sandbox),
        "args": [json.dumps(profile, separators=(",", ":")), "--", command, *args],
        "env": dict(env) if env is not None else None,
        "cwd": os.fspath(cwd) if cwd is not None else None,
    }
    return params

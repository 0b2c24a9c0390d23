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

With ``denials=True`` spawn/spawn_async also ask for the shim's denial
report (profile key ``denials``): every system call the seccomp filter
refused, one dict per line (syscall, nr, errno, error, pid, arch,
monotonic; ``{"dropped": N}`` when lines were lost to a reader that fell
64 KiB behind).  ``proc.denials`` is the list, filled while the command
runs and complete once ``wait``/``wait_async`` returned;
``follow_denials``/``follow_denials_async`` yield each line as it comes.
Landlock refusals (files, ports) are not in it.
"""
import asyncio
import fcntl
import json
import os
import platform
import subprocess
import sys
import threading
import time

__all__ = [
    "SandboxError", "SandboxRefused", "CommandNotExecutable", "CommandNotFound",
    "binary_for", "binary_path", "spawn", "wait", "spawn_async", "wait_async",
    "check", "probe", "stdio_server_parameters", "follow_denials", "follow_denials_async",
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


def _pipe():
    """os.pipe() with both ends above 2 (a parent started with stdin
    closed gets 0 from pipe(), which the child's stdin would replace);
    both close-on-exec: only pass_fds reach the child."""
    fds = []
    for fd in os.pipe():
        if fd < 3:
            new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
            os.close(fd)
            fd = new
        fds.append(fd)
    return fds[0], fds[1]


def _parse_denial(raw):
    """One report line as a dict; a line that is not JSON (a listener
    killed mid-write) as {"raw": line}, so that nothing is dropped
    silently."""
    text = raw.decode(errors="replace").rstrip("\n")
    try:
        d = json.loads(text)
    except ValueError:
        d = None
    return d if isinstance(d, dict) else {"raw": text}


class _Report:
    """The denial report of one run: the parsed lines (``proc.denials``)
    and whether the descriptor reached its end, which it does once every
    process of the sandbox has gone (and, before Linux 6.1, been reaped).
    Read by a thread of its own, also under asyncio: the listener never
    waits for a reader that falls 64 KiB behind (it counts the lines
    instead), so the pipe is drained however busy the caller's event loop
    is.  ``loop``: the event loop to wake followers on (spawn_async)."""

    def __init__(self, fd, loop=None):
        self.lines = []
        self.ended = False
        self.cond = threading.Condition()
        self.loop = loop
        if loop is not None:
            self.changed = asyncio.Event()  # replaced at each change
            self.done = loop.create_future()
        self.thread = threading.Thread(target=self._read, args=(fd,), daemon=True)
        self.thread.start()

    def _read(self, fd):
        # whole chunks, one wake-up per chunk: a thread that waits for
        # the GIL once per line falls behind a fast command
        partial = b""
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                *whole, partial = (partial + chunk).split(b"\n")
                if whole:
                    batch = [_parse_denial(raw) for raw in whole]
                    with self.cond:
                        self.lines.extend(batch)
                        self.cond.notify_all()
                    self._wake_loop()
            if partial:
                with self.cond:
                    self.lines.append(_parse_denial(partial))
        finally:
            os.close(fd)
            with self.cond:
                self.ended = True
                self.cond.notify_all()
            self._wake_loop()

    def _wake_loop(self):
        if self.loop is None:
            return
        try:
            self.loop.call_soon_threadsafe(self._wake)
        except RuntimeError:
            pass  # the loop is closed: nobody follows any more

    def _wake(self):
        # in the loop: a fresh event per change, each follower waits on
        # the one it saw before looking at the lines
        self.changed.set()
        self.changed = asyncio.Event()
        if self.ended and not self.done.done():
            self.done.set_result(None)


def _report_pipe(profile, denials):
    """(profile, read end, write end) for denials=True: a pipe, and a copy
    of profile naming its write end as the denial report (the write end's
    number is the same in the child: pass_fds; the caller's dict is left
    as it is); ValueError if the profile names one itself.  Without
    denials: (profile, None, None)."""
    if not denials:
        return profile, None, None
    if not isinstance(profile, dict):
        raise TypeError("sandbox_shim: with denials=True the profile must be a dict")
    if "denials" in profile:
        raise ValueError('sandbox_shim: the profile names "denials" and denials=True was given: '
                         "spawn makes the report's pipe itself; drop one of the two")
    rep_r, rep_w = _pipe()
    return dict(profile, denials={"fd": rep_w}), rep_r, rep_w


def spawn(profile, argv, sandbox=None, stderr=None, denials=False, **popen_kw):
    """subprocess.Popen of ``argv`` confined by ``profile`` (a dict).

    stderr is read by a thread (``proc.stderr`` is None): the command's own
    lines and the shim's notices go to ``stderr`` (default sys.stderr), the
    shim's error line is kept for ``wait()``.  ``denials=True``: the denial
    report on a pipe of this process's, read by a thread into
    ``proc.denials`` (None without it; see the module's doc); the profile
    must not name ``denials`` itself (ValueError).  Other keyword arguments
    go to Popen; communicate() works on stdin and stdout."""
    argv = list(argv)
    if not argv:
        raise ValueError("argv must not be empty")
    profile, rep_r, rep_w = _report_pipe(profile, denials)
    r, w = _pipe()
    try:
        proc = subprocess.Popen([binary_path(sandbox), f"fd:{r}", "--", *argv],
                                pass_fds=(r,) if rep_w is None else (r, rep_w),
                                stderr=subprocess.PIPE, **popen_kw)
    except BaseException:
        os.close(w)
        if rep_r is not None:
            os.close(rep_r)
        raise
    finally:
        os.close(r)
        if rep_w is not None:
            # the shim's listener holds the only write end: the report
            # ends when the last process of the sandbox is gone
            os.close(rep_w)
    proc.denials = None
    proc.denials_thread = None
    if rep_r is not None:
        proc.denial_report = _Report(rep_r)
        proc.denials = proc.denial_report.lines
        proc.denials_thread = proc.denial_report.thread
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
    SandboxError if it never ran.  With denials=True it also waits for the
    report's end, so ``proc.denials`` is complete: a process the command
    left running (``no_survivors`` prevents that) holds it, and ``timeout``
    (seconds, for both) then raises subprocess.TimeoutExpired."""
    deadline = None if timeout is None else time.monotonic() + timeout
    code = proc.wait(timeout)
    proc.stderr_thread.join()
    if proc.denials_thread is not None:
        proc.denials_thread.join(None if deadline is None else max(0, deadline - time.monotonic()))
        if proc.denials_thread.is_alive():
            raise subprocess.TimeoutExpired(proc.args, timeout)
    return _outcome(code, proc.sandbox_errors)


def _report_of(proc):
    report = getattr(proc, "denial_report", None)
    if report is None:
        raise ValueError("sandbox_shim: this process was spawned without denials=True")
    return report


def follow_denials(proc):
    """Yield each line of a spawn(..., denials=True) process's report as it
    arrives (a dict, as in ``proc.denials``), from the first; return when
    the report ends, which is once every process of the sandbox has gone.
    Reaps the command meanwhile (before Linux 6.1 the report ends only
    then), so call it from the thread that would call wait(), or any."""
    report = _report_of(proc)
    i = 0
    while True:
        with report.cond:
            while i == len(report.lines) and not report.ended:
                if not report.cond.wait(0.1):
                    proc.poll()
            if i == len(report.lines):
                return
            batch = report.lines[i:]
        i += len(batch)
        yield from batch


async def follow_denials_async(proc):
    """The asyncio form of follow_denials() for a spawn_async(...,
    denials=True) process: ``async for d in follow_denials_async(proc)``."""
    report = _report_of(proc)
    i = 0
    while True:
        changed = report.changed
        with report.cond:
            batch = report.lines[i:]
            ended = report.ended
        i += len(batch)
        for d in batch:
            yield d
        if not batch:
            if ended:
                return
            await changed.wait()


async def spawn_async(profile, argv, sandbox=None, stderr=None, denials=False, **kw):
    """asyncio.create_subprocess_exec of ``argv`` confined by ``profile``;
    stdin and stdout default to pipes.  stderr is read by a task as in
    spawn(); ``denials=True``: the report read by a task into
    ``proc.denials`` as in spawn(); ``await wait_async(proc)`` gives the
    status or raises."""
    argv = list(argv)
    if not argv:
        raise ValueError("argv must not be empty")
    kw.setdefault("stdin", asyncio.subprocess.PIPE)
    kw.setdefault("stdout", asyncio.subprocess.PIPE)
    loop = asyncio.get_running_loop()
    profile, rep_r, rep_w = _report_pipe(profile, denials)
    r, w = _pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            binary_path(sandbox), f"fd:{r}", "--", *argv,
            pass_fds=(r,) if rep_w is None else (r, rep_w),
            stderr=asyncio.subprocess.PIPE, **kw)
    except BaseException:
        os.close(w)
        if rep_r is not None:
            os.close(rep_r)
        raise
    finally:
        os.close(r)
        if rep_w is not None:
            os.close(rep_w)
    proc.denials = None
    proc.denial_done = None
    if rep_r is not None:
        proc.denial_report = _Report(rep_r, loop)
        proc.denials = proc.denial_report.lines
        proc.denial_done = proc.denial_report.done
    data = json.dumps(profile).encode()

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
    command never ran.  With denials=True it also waits for the report's
    end, as wait() does (asyncio.wait_for bounds it)."""
    code = await proc.wait()
    await proc.stderr_task
    await proc.profile_written
    if proc.denial_done is not None:
        # the report's end: see wait()
        await proc.denial_done
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

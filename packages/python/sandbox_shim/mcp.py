"""python -m sandbox_shim.mcp — rewrite an MCP host configuration (the
``mcpServers`` object: command, args, env, cwd) so that every server runs
under __sandbox with a profile of its own.

The same rules as the npm package's sandbox-shim-mcp (mcp-config.js);
tests/packages/mcp-config.t runs both on one configuration and requires
byte-identical output.  The defaults (system trees, variables kept, servers
known to need the network) are mcp_defaults.json, shared by both.
"""
import json
import os
import re
import stat
import sys

USAGE = """usage: sandbox-shim-mcp CONFIG [options]
Print CONFIG (an MCP host configuration with "mcpServers") with every
server wrapped in __sandbox.  The original file is left untouched unless
--in-place is given.
  -o, --output FILE       write the result to FILE instead of stdout
  --in-place              replace CONFIG (a backup is kept as CONFIG.bak)
  --dry-run               print a unified diff, write nothing
  --overrides FILE        per-server profile changes: {"NAME": {...}, "*": {...}};
                          lists are appended, env/unenforced/... merged, other
                          keys replaced; null leaves NAME unwrapped
  --network NAME=MODE     network of one server: off, loopback or on
  --sandbox PATH          the __sandbox to run (default: this package's binary)
"""


class UsageError(Exception):
    pass


def load_defaults():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp_defaults.json")) as f:
        return json.load(f)


def _under(p, tree):
    return tree == "/" or p == tree or p.startswith(tree + "/")


def _covered(p, trees):
    return any(_under(p, t) for t in trees)


def _real(p):
    try:
        return os.path.realpath(p, strict=True)
    except OSError:
        return p


def resolve_command(command, env, cwd):
    """The command as the host starts it: absolute, relative to cwd, or on PATH."""
    if "/" in command:
        return os.path.normpath(os.path.join(cwd or os.getcwd(), command))
    for d in (env.get("PATH") or "").split(":"):
        if not d:
            continue
        p = os.path.join(d, command)
        if os.access(p, os.X_OK) and os.path.isfile(p):
            return p
    return None


def install_root(file, home):
    """The tree a program or script is installed in (see mcp-config.js)."""
    parts = file.split("/")
    for i in range(len(parts) - 1, 1, -1):
        d = "/".join(parts[:i])
        if os.path.isfile(os.path.join(d, "pyvenv.cfg")):
            return d
    if "node_modules" in parts and parts.index("node_modules") > 1:
        return "/".join(parts[:parts.index("node_modules")])
    for i in range(len(parts) - 1, 1, -1):
        d = "/".join(parts[:i])
        if d == home:
            break
        if any(os.path.isfile(os.path.join(d, f)) for f in ("package.json", "pyproject.toml", "go.mod")):
            return d
    d = os.path.dirname(file)
    if os.path.basename(d) == "bin" and os.path.dirname(d) not in (home, "/"):
        return os.path.dirname(d)
    return d


def arg_path(arg, home):
    """A path an argument names: "/x", "~/x", or the value of "--flag=/x"."""
    v = arg
    eq = arg.find("=")
    if arg.startswith("-") and eq > 0:
        v = arg[eq + 1:]
    if v.startswith("~/") and home:
        v = home + v[1:]
    if not v.startswith("/"):
        return None
    v = os.path.normpath(v)
    if v.startswith("//"):
        v = v[1:]  # normpath keeps a leading "//" (POSIX), path.normalize does not
    return v


def package_name(arg):
    return re.sub(r"^(@?[^@]+)@[^/]*$", r"\1", arg)


def default_profile(name, server, defaults, host_env):
    """The default profile of one server, and the reasons behind it."""
    env = {**host_env, **(server.get("env") or {})}
    home = env.get("HOME") or ""
    args = server.get("args") or []
    notes = []
    readable = [p for p in defaults["readable"] if os.path.exists(p)]
    writable = []

    def add_readable(p):
        if not _covered(p, readable) and not _covered(p, writable):
            readable.append(p)

    cmd = resolve_command(server["command"], env, server.get("cwd"))
    if cmd:
        for p in (cmd, _real(cmd)):
            add_readable(install_root(p, home))
    else:
        notes.append(f"command {json.dumps(server['command'], ensure_ascii=False)} not found on PATH here")
    for arg in args:
        p = arg_path(arg, home)
        if not p or not os.path.exists(p):
            continue
        if os.path.isdir(p):
            if p == "/" or p == home or _covered(p, defaults["readable"]):
                notes.append(f"{p} not made writable (too wide): add it in --overrides if meant")
                add_readable(p)
            elif not _covered(p, writable):
                writable.append(p)
        else:
            add_readable(install_root(p, home))
    if server.get("cwd") and os.path.exists(server["cwd"]):
        add_readable(server["cwd"])
    network = "off"
    known = next((a for a in map(package_name, [server["command"], *args]) if a in defaults["network_on"]), None)
    url = next((a for a in args if re.match(r"^[a-z][a-z0-9+.-]*://", a, re.I)), None)
    if known:
        network = "on"
        notes.append(f"network on: {known} needs it")
    elif url:
        network = "on"
        notes.append("network on: an argument is a URL")
    env_set = {}
    if os.path.basename(server["command"]) == "npx":
        # npx resolves the package in its cache (it writes there: an index
        # entry, _npx, logs) and, without the network, must be told to stay
        # offline or it retries for a minute, then fails with EAFNOSUPPORT
        cache = env.get("npm_config_cache") or env.get("NPM_CONFIG_CACHE") or (os.path.join(home, ".npm") if home else "")
        if cache and os.path.isdir(cache):
            writable.append(cache)
        else:
            notes.append(f"npm cache {cache or '(no HOME)'} missing: run the server once outside the sandbox first")
        if cache:
            env_set["npm_config_cache"] = cache
        if network == "off":
            env_set["npm_config_offline"] = "true"
        env_set["npm_config_update_notifier"] = "false"
    keep = list(defaults["env_keep"])
    for k in (server.get("env") or {}):
        if k not in keep:
            keep.append(k)
    profile = {"readable": readable, "writable": writable, "network": network,
               "env": {"clear": True, "keep": keep}}
    if env_set:
        profile["env"]["set"] = env_set
    return profile, notes


def _append(cur, new):
    return cur + [x for x in new if x not in cur]


def merge(profile, fragment):
    """Lists appended (without duplicates), objects merged one level down,
    other values replaced."""
    for k, v in fragment.items():
        cur = profile.get(k)
        if isinstance(v, list) and isinstance(cur, list):
            profile[k] = _append(cur, v)
        elif isinstance(v, dict) and isinstance(cur, dict):
            o = dict(cur)
            for k2, v2 in v.items():
                if isinstance(v2, list) and isinstance(o.get(k2), list):
                    o[k2] = _append(o[k2], v2)
                elif isinstance(v2, dict) and isinstance(o.get(k2), dict):
                    o[k2] = {**o[k2], **v2}
                else:
                    o[k2] = v2
            profile[k] = o
        else:
            profile[k] = v
    return profile


def _dumps_compact(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def wrap_config(config, sandbox, defaults, env, overrides=None, network=None):
    """The configuration with each server wrapped; notes: one line per server."""
    if not isinstance(config, dict) or not isinstance(config.get("mcpServers"), dict):
        raise UsageError('no "mcpServers" object in the configuration')
    overrides = overrides or {}
    network = network or {}
    servers = {}
    notes = []
    for name, server in config["mcpServers"].items():
        def say(what):
            notes.append(f"{name}: {what}")
        if not isinstance(server, dict) or not isinstance(server.get("command"), str) or not server["command"]:
            servers[name] = server
            say("no command (a remote server): left as it is")
            continue
        if os.path.basename(server["command"]) == "__sandbox":
            servers[name] = server
            say("already runs under __sandbox: left as it is")
            continue
        if name in overrides and overrides[name] is None:
            servers[name] = server
            say("left unwrapped (overrides)")
            continue
        profile, why = default_profile(name, server, defaults, env)
        if overrides.get("*"):
            merge(profile, overrides["*"])
        if overrides.get(name):
            merge(profile, overrides[name])
        if network.get(name):
            profile["network"] = network[name]
        out = {}
        for k, v in server.items():
            if k == "command":
                out["command"] = sandbox
                out["args"] = [_dumps_compact(profile), "--", server["command"], *(server.get("args") or [])]
            elif k != "args":
                out[k] = v
        servers[name] = out
        say("; ".join([f"network {profile['network']}",
                       "writable " + (", ".join(profile["writable"]) if profile["writable"] else "none"), *why]))
    return {**config, "mcpServers": servers}, notes


def unified_diff(a, b, name_a, name_b):
    """Unified diff (LCS of lines, three lines of context): the same hunks
    as mcp-config.js."""
    A, B = a.split("\n"), b.split("\n")
    if A and A[-1] == "":
        A.pop()
    if B and B[-1] == "":
        B.pop()
    n, m = len(A), len(B)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            dp[i][j] = dp[i + 1][j + 1] + 1 if A[i] == B[j] else max(dp[i + 1][j], dp[i][j + 1])
    ops = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and A[i] == B[j]:
            ops.append((" ", A[i], i, j))
            i += 1
            j += 1
        elif j >= m or (i < n and dp[i + 1][j] >= dp[i][j + 1]):
            ops.append(("-", A[i], i, j))
            i += 1
        else:
            ops.append(("+", B[j], i, j))
            j += 1
    changes = [k for k, o in enumerate(ops) if o[0] != " "]
    if not changes:
        return ""
    out = [f"--- {name_a}", f"+++ {name_b}"]

    def rng(s, l):
        return f"{s + 1}" if l == 1 else f"{s},0" if l == 0 else f"{s + 1},{l}"

    c = 0
    while c < len(changes):
        last = c
        while last + 1 < len(changes) and changes[last + 1] - changes[last] <= 6:
            last += 1
        hunk = ops[max(0, changes[c] - 3):min(len(ops), changes[last] + 4)]
        la = sum(1 for o in hunk if o[0] != "+")
        lb = sum(1 for o in hunk if o[0] != "-")
        out.append(f"@@ -{rng(hunk[0][2], la)} +{rng(hunk[0][3], lb)} @@")
        out.extend(o[0] + o[1] for o in hunk)
        c = last + 1
    return "\n".join(out) + "\n"


def parse_args(argv):
    o = {"network": {}}
    k = 0
    while k < len(argv):
        a = argv[k]

        def val():
            nonlocal k
            if k + 1 >= len(argv):
                raise UsageError(f"{a} needs a value")
            k += 1
            return argv[k]

        if a in ("-o", "--output"):
            o["output"] = val()
        elif a == "--in-place":
            o["in_place"] = True
        elif a == "--dry-run":
            o["dry_run"] = True
        elif a == "--overrides":
            o["overrides_file"] = val()
        elif a == "--sandbox":
            o["sandbox"] = val()
        elif a == "--network":
            m = re.match(r"^([^=]+)=(off|loopback|on)$", val())
            if not m:
                raise UsageError("--network takes NAME=off|loopback|on")
            o["network"][m.group(1)] = m.group(2)
        elif a in ("-h", "--help"):
            o["help"] = True
        elif a.startswith("-") and a != "-":
            raise UsageError(f"unknown option {a}")
        elif "config" not in o:
            o["config"] = a
        else:
            raise UsageError(f"unexpected argument {a}")
        k += 1
    if not o.get("help") and "config" not in o:
        raise UsageError("a CONFIG file is needed")
    if o.get("in_place") and o.get("output"):
        raise UsageError("--in-place and --output exclude each other")
    return o


def backup_name(file):
    if not os.path.lexists(file + ".bak"):
        return file + ".bak"
    n = 1
    while os.path.lexists(f"{file}.bak.{n}"):
        n += 1
    return f"{file}.bak.{n}"


def _write_new(file, data, mode):
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(file, mode)  # the umask must not change it


def write_atomic(file, text, mode):
    """Write text through a temporary file renamed over file, with mode
    (the original's: a configuration holding API keys may be 0600)."""
    tmp = f"{file}.tmp-{os.getpid()}"
    _write_new(tmp, text.encode("utf-8"), mode)
    os.rename(tmp, file)


def main(argv, stdout=None, stderr=None, env=None):
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    env = os.environ if env is None else env

    def say(line):
        stderr.write(f"sandbox-shim-mcp: {line}\n")

    try:
        o = parse_args(argv)
    except UsageError as e:
        say(e)
        stderr.write(USAGE)
        return 2
    if o.get("help"):
        stdout.write(USAGE)
        return 0
    try:
        with open(o["config"], "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8", errors="replace")
        mode = stat.S_IMODE(os.stat(o["config"]).st_mode)
        config = json.loads(text)
        overrides = {}
        if o.get("overrides_file"):
            with open(o["overrides_file"], encoding="utf-8") as f:
                overrides = json.load(f)
    except OSError as e:
        say(f"{e.filename}: {e.strerror}")
        return 1
    except ValueError as e:
        say(f"{o['config']}: {e}")
        return 1
    sandbox = o.get("sandbox")
    if not sandbox:
        from . import binary_for
        try:
            sandbox = binary_for()
        except FileNotFoundError as e:
            say(e)
            return 1
    try:
        new, notes = wrap_config(config, sandbox, load_defaults(), dict(env), overrides, o["network"])
    except UsageError as e:
        say(f"{o['config']}: {e}")
        return 1
    for n in notes:
        say(n)
    out = json.dumps(new, indent=2, ensure_ascii=False) + "\n"
    if o.get("dry_run"):
        target = o["config"] if o.get("in_place") else (o.get("output") or "(wrapped)")
        stdout.write(unified_diff(text, out, o["config"], target))
        return 0
    if o.get("in_place"):
        bak = backup_name(o["config"])
        _write_new(bak, raw, mode)
        write_atomic(o["config"], out, mode)
        say(f"wrote {o['config']} (the original is {bak})")
    elif o.get("output"):
        if _real(os.path.abspath(o["output"])) == _real(os.path.abspath(o["config"])):
            say("--output is CONFIG itself: use --in-place")
            return 2
        write_atomic(o["output"], out, mode)
        say(f"wrote {o['output']}")
    else:
        stdout.write(out)
    return 0


def console():
    """The sandbox-shim-mcp script's entry point."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    console()

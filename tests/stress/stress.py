#!/usr/bin/env python3
"""Stress test of __sandbox (issue 10 §6): randomly generated *valid*
profiles, run 8 at a time, as root and as uid 65534.

Every case is generated from (seed, user, number) alone, so a failure is
replayed exactly with --replay USER:N.  A case is a fresh fixture under
/srv (never /tmp: the sandbox gives the command a private one), a profile
drawn across the schema (policy/profile.schema.json) and a /bin/sh script
that exercises it: it writes in the workspace, reads hidden files, writes
read-only and protected ones, reads its kept descriptors, lists its open
descriptors, prints its environment and working directory, tries to leave
files in /tmp, /var/tmp and /dev/shm, and exits with a status of the
case's choosing.

Every exit must be explained:
  * the case's own exit status, with every check the script printed as
    the profile says (a hidden file read, a read-only file written, a
    kept descriptor missing, an extra one open: unexplained);
  * 125 whose every non-notice stderr line is a refusal the generator
    predicted for this profile (a descriptor in keep_fds that is not
    open, a capability not held, UDP ports below Landlock ABI 10, ...);
    a predicted refusal that does not come is unexplained too.
Nothing may leak: after each run no process refers to the case (cwd or
argv), the case's tree changed only where the command wrote, and nothing
named after the run appeared in the host's /tmp, /var/tmp, /dev/shm or
/run; after all runs the host's /proc/self/mountinfo is what it was, the
top-level entries of /tmp, /var/tmp, /dev/shm and /run are what they were
(--shared-host: entries other processes made only warn), and the harness
holds the descriptors it started with.

Exit status: 0 when every run is explained and nothing leaked, 1
otherwise (each failure printed with the profile, argv, stdout, stderr and
the line that replays it), 2 on usage errors.  Run as root for both users.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

NOBODY = 65534
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYS_READ = ["/usr", "/etc", "/bin", "/lib", "/lib64"]
BUILTIN_PROTECT = [".git/hooks/", ".git/config", ".git/info/", ".git/modules/", ".gitmodules",
                   ".envrc", ".vscode/", ".idea/", ".codex/", ".claude/", ".cargo/config.toml",
                   ".cargo/config", ".npmrc", ".pypirc", ".bashrc", ".profile", ".zshrc"]
SECCOMP_GROUPS = ["@clock", "@cpu-emulation", "@debug", "@io-uring", "@keyring", "@module",
                  "@mount", "@obsolete", "@raw-io", "@reboot", "@swap"]
# syscalls neither sh nor coreutils make: denying them changes nothing the
# script does
SECCOMP_DENY_NAMES = ["execveat", "ptrace", "kcmp", "chroot", "acct", "quotactl",
                      "name_to_handle_at", "fanotify_init", "mbind"]
INHERITED_FDS = [4, 5, 8, 9]    # opened for the shim by the wrapper (dash: fds 0-9)
CLOSED_FDS = [3, 6, 7, 20]      # never open when the shim starts
SHM_NAMES = ("/tmp", "/var/tmp", "/dev/shm", "/run")

# Refusal lines (stderr of a 125), by the reason the generator predicted.
REFUSALS = {
    "keep_fd_closed": r"^__sandbox: profile \.keep_fds\[\d+\]: descriptor \d+ is not open: Bad file descriptor$",
    "cap_not_held": r"^__sandbox: profile \.capabilities\[\d+\]: CAP_\w+ is not held by this process, so it cannot be kept$",
    "user_not_root": r"^__sandbox: profile \.user: switching user needs the shim to start as root",
    "planted": r"^__sandbox: profile \.(\w+)(\[\d+\])? \"[^\"]*\": goes through the symlink \S+ inside the writable tree ",
    "tmp_world": r"^__sandbox: profile \.tmp \"[^\"]*\": is world writable \(mode 0777\)",
    "tmp_owner": r"^__sandbox: profile \.tmp \"[^\"]*\": is owned by uid \d+, not by uid \d+ running the command$",
    # "this host cannot enforce A; B; ..." naming only parts predicted
    "cannot_enforce": r"^__sandbox: this host cannot enforce ",
}
ENFORCE_PARTS = {
    "udp": r"\.(udp_bind|udp_connect): UDP port rules \(needs Landlock ABI 10; this kernel has \d+\)",
    "unix_path": r"\.unix_sockets: pathname unix socket scope \(sockets outside writable trees stay reachable\) \(needs Landlock ABI 9; this kernel has \d+, or a mount namespace[^)]*\)\)",
}


def log(*a):
    print(*a, flush=True)


class Host:
    """What the running kernel and this machine give (from --probe)."""

    def __init__(self, sb):
        p = json.loads(subprocess.run([sb, "--probe"], capture_output=True, check=True).stdout)
        self.abi = p["landlock"].get("abi") or 0
        self.ns = {"root": p["namespaces"]["mount"]["available"]}
        q = subprocess.run(as_user("nobody", [sb, "--probe"]), capture_output=True)
        self.ns["nobody"] = q.returncode == 0 and json.loads(q.stdout)["namespaces"]["mount"]["available"]


def as_user(who, argv):
    if who == "nobody":
        return ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups", "--"] + argv
    return argv


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


class Case:
    """One generated run: fixture, profile, argv, and what must happen."""

    def __init__(self, seed, run_id, base, who, n, host):
        self.seed, self.who, self.n = seed, who, n
        self.key = f"{who}:{n}"
        self.r = random.Random(f"{seed}/{who}/{n}")
        self.host = host
        self.dir = os.path.join(base, f"{who}-{n}")
        self.marker = f"sbstress-{run_id}-{who}-{n}"
        self.prof = {}
        self.checks = {}       # name -> expected value printed by the script
        self.maybe = set()     # names whose value is not predictable (either is fine)
        self.writes = set()    # paths the script may create or change (relative to dir)
        self.must_write = {}   # path -> content the command must leave there
        self.refusals = set()  # predicted refusal kinds (REFUSALS keys)
        self.parts = set()     # predicted "cannot enforce" parts (ENFORCE_PARTS keys)
        self.must_refuse = False
        self.host_paths = []   # host paths outside the case the shim may create (tmp under /tmp)
        self.script = []
        self.secret_ok = False  # a hidden file's content may be printed (left out)
        self._generate()

    # ---- generation -------------------------------------------------
    def p(self, rel):
        return os.path.join(self.dir, rel)

    def chance(self, x):
        return self.r.random() < x

    def _generate(self):
        r, P = self.r, self.p
        prof = self.prof
        self.uid = 0 if self.who == "root" else NOBODY
        if self.chance(0.08):
            prof["user"] = {"uid": NOBODY, "gid": NOBODY}
            if self.who == "root":
                self.uid = NOBODY
            else:
                self.refusals.add("user_not_root")
                self.must_refuse = True
        mounts = r.choice([None, "auto", "auto", "off", "off", "required"])
        if mounts:
            prof["mounts"] = mounts
        self.mount_mode = mounts != "off" and self.host.ns[self.who]
        W = P("w")
        writable = [W]
        self.nested_w = self.chance(0.15)
        if self.chance(0.25):
            writable.append(P("w2"))
        if self.nested_w:
            writable.append(P("w/a"))
        if self.chance(0.1):
            writable.append(P("missing-w"))
        tail = writable[1:]
        r.shuffle(tail)
        prof["writable"] = [W] + tail
        # readable: the default "/" or a narrowed list
        narrowed = self.chance(0.6)
        self.proc_readable = not narrowed
        self.outside_readable = not narrowed
        if narrowed:
            rd = list(SYS_READ)
            if self.chance(0.5):
                rd.append("/proc")
                self.proc_readable = True
            if self.chance(0.4):
                rd.append(P("r"))
            if self.chance(0.2):
                rd.append(P("o"))
                self.outside_readable = True
            if self.chance(0.1):
                rd.append(P("missing-r/x"))
            if self.chance(0.04):
                rd.append(P("w/link/x"))
                self.refusals.add("planted")
                self.must_refuse = True
            r.shuffle(rd)
            prof["readable"] = rd
        if self.chance(0.15):
            prof["executable"] = r.choice([["/usr", "/bin"], ["/usr"], ["/usr", "/bin", W]])
        # carve-outs (never a writable entry itself, never one path in both)
        ro_cands = [P("w/ro"), P("w/ro/file.txt"), P("w/a/b"), P("w/a/b/c.txt"),
                    P("w/missing-ro"), P("w/a/missing/deeper"), P("r")]
        hid_cands = [P("w/secret.txt"), P("w/sec"), P("w/a/d.txt"), P("r/rsecret.txt"),
                     P("o/osecret.txt"), P("w/missing-h"), P("missing-outside")]
        ro = [x for x in ro_cands if self.chance(0.2)]
        hid = [x for x in hid_cands if self.chance(0.25)]
        if ro:
            prof["read_only"] = ro
        if hid:
            prof["hidden"] = hid
        self.ro, self.hid = ro, hid
        # protect
        protect = None
        if self.chance(0.15):
            protect = [n for n in BUILTIN_PROTECT + ["a/d.txt", "free2/"] if self.chance(0.3)]
            prof["protect"] = protect
        extra = []
        if self.chance(0.15):
            extra = [n for n in ["a/d.txt", ".git/HEAD", "notes/", ".tool-versions"] if self.chance(0.5)]
            prof["protect_extra"] = extra
        self.protect = (protect if protect is not None else BUILTIN_PROTECT) + extra
        self.protect_listed = protect is not None
        self.extra = extra
        if self.chance(0.2):
            prof["caches"] = [P("c")] + ([P("missing-c")] if self.chance(0.3) else [])
        # tmp
        self.tmp = None
        if self.chance(0.35):
            kind = r.choice(["w/tmp", "tmp", "tmp-pre", "tmp-ww", "tmp-root", "hosttmp", "planted"])
            if kind == "hosttmp":
                t = f"/tmp/{self.marker}-tmp"
                self.host_paths.append(t)
            elif kind == "planted":
                t = P("w/link/tmp")
                self.refusals.add("planted")
                self.must_refuse = True
            else:
                t = P(kind)
            if kind == "tmp-ww":
                self.refusals.add("tmp_world")
                self.must_refuse = True
            if kind == "tmp-root" and self.uid != 0:
                self.refusals.add("tmp_owner")
                self.must_refuse = True
            prof["tmp"] = t
            self.tmp = t
            self.tmp_kind = kind
        if self.chance(0.15):
            devs = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
                    "/dev/tty", "/dev/pts", "/dev/ptmx", "/dev/shm"]
            prof["devices"] = [d for d in devs if d == "/dev/null" or self.chance(0.5)]
            if "/dev/shm" in prof["devices"] and not self.mount_mode:
                # the host's /dev/shm, as the profile asks: the harness removes it
                self.host_paths.append(f"/dev/shm/{self.marker}")
        net = r.choice([None, "off", "loopback", "on"])
        if net:
            prof["network"] = net
        unenf = {k: True for k in ["trust_handoff", "workspace_sockets", "signal_scope", "carve",
                                   "truncate", "tcp_ports", "udp_ports"] if self.chance(0.15)}
        best_effort = self.chance(0.05)
        if best_effort:
            prof["best_effort"] = True
        if net == "on":
            if self.chance(0.3):
                prof["tcp_bind"] = [0, r.randrange(1024, 65536)]
            if self.chance(0.3):
                prof["tcp_connect"] = [443, r.randrange(1, 65536)]
            if self.chance(0.15):
                prof[r.choice(["udp_bind", "udp_connect"])] = [53]
                if self.host.abi < 10 and not unenf.get("udp_ports") and not best_effort:
                    self.parts.add("udp")
                    self.must_refuse = True
        us = r.choice([None, "scoped", "any", "none"])
        if us:
            prof["unix_sockets"] = us
        if (us in (None, "scoped") and self.host.abi < 9 and not self.mount_mode
                and not unenf.get("workspace_sockets")):
            if self.chance(0.8):
                unenf["workspace_sockets"] = True
            elif not best_effort:
                self.parts.add("unix_path")
                self.must_refuse = True
        if self.chance(0.2):
            prof["signals"] = r.choice(["scoped", "any"])
        if unenf:
            prof["unenforced"] = unenf
        self.unenf = unenf
        self.best_effort = best_effort
        # env: the harness passes SBS_V, SBS_U and SBS_K1
        env = {}
        self.env_expect = {"SBS_V": f"orig-{self.n}", "SBS_U": f"u-{self.n}", "SBS_K1": f"k-{self.n}"}
        if self.chance(0.3):
            env["clear"] = True
            keep = r.choice([["SBS_K*"], ["SBS_K1", "PATH"], ["*"], []])
            if keep:
                env["keep"] = keep
            if "*" not in keep:
                self.env_expect["SBS_V"] = self.env_expect["SBS_U"] = "unset"
                if not keep:
                    self.env_expect["SBS_K1"] = "unset"
        if self.chance(0.3):
            env["unset"] = ["SBS_U", "NOT_THERE"]
            self.env_expect["SBS_U"] = "unset"
        if self.chance(0.4):
            env["set"] = {"SBS_V": f"set-{self.n}", "SBS_EMPTY": ""}
            self.env_expect["SBS_V"] = f"set-{self.n}"
        if env or self.chance(0.05):
            prof["env"] = env
        self.cwd = None
        if self.chance(0.25):
            self.cwd = r.choice([W, P("w/a"), P("w/free")])
            prof["cwd"] = self.cwd
        # descriptors: INHERITED_FDS are open, CLOSED_FDS are not
        self.keep = []
        if self.chance(0.35):
            self.keep = [fd for fd in INHERITED_FDS if self.chance(0.5)]
            if self.chance(0.15):
                self.keep.append(r.choice(CLOSED_FDS))
                self.refusals.add("keep_fd_closed")
                self.must_refuse = True
            r.shuffle(self.keep)
            prof["keep_fds"] = self.keep
        if self.chance(0.4):
            prof["die_with_parent"] = self.chance(0.5)
        if self.chance(0.4):
            prof["new_session"] = self.chance(0.5)
        if self.chance(0.2):
            prof["rlimits"] = {k: v for k, v in {"core": 0, "nofile": [256, 1024], "fsize": 1 << 20,
                                                   "cpu": 60, "nproc": [4096, 8192]}.items()
                               if self.chance(0.5)}
        if self.chance(0.25):
            sc = {}
            if self.chance(0.7):
                sc["deny"] = r.sample(SECCOMP_GROUPS + SECCOMP_DENY_NAMES, r.randrange(1, 4))
            if self.chance(0.5):
                sc["allow"] = r.sample(["@clock", "@swap", "@reboot", "@obsolete", "kcmp"], r.randrange(1, 3))
            prof["seccomp"] = sc
        if self.chance(0.08):
            prof["capabilities"] = [r.choice(["CAP_NET_BIND_SERVICE", "net_bind_service", "CAP_CHOWN"])]
            if self.who == "nobody" or self.uid != 0:
                # a switched user keeps its capabilities through ambient
                if self.who == "nobody":
                    self.refusals.add("cap_not_held")
                    self.must_refuse = True
        if self.chance(0.05):
            prof["version"] = 1
        self.code = r.choice([0, 0, 0, 1, 3, 42])
        self._script()

    def _script(self):
        """The /bin/sh script and what each line it prints must say."""
        P, n = self.p, self.n
        s = self.script
        s.append("PATH=/usr/bin:/bin; export PATH")
        # 1. a write in the workspace (w/free is never carved)
        s.append(f'echo w-{n} > {sh_quote(P("w/free/out"))} && echo write=ok || echo write=fail')
        self.checks["write"] = "ok"
        self.must_write["w/free/out"] = f"w-{n}\n"
        if "w2" in str(self.prof["writable"]):
            # (not w2 itself: without mounts a protect name listed for
            # every writable tree takes creating entries away there)
            s.append(f'echo w2-{n} > {sh_quote(P("w2/sub/out"))} && echo write2=ok || echo write2=fail')
            self.checks["write2"] = "ok"
            self.must_write["w2/sub/out"] = f"w2-{n}\n"
        # without mounts, unenforced.carve (or best_effort) leaves carve-outs
        # inside writable trees writable and readable (README, Known limits)
        loose = not self.mount_mode and (self.unenf.get("carve") or self.best_effort)

        def inside_w(path):
            return any(path.startswith(w + "/") for w in self.prof["writable"])
        # 2. hidden files: never readable
        for i, h in enumerate(self.hid):
            f = os.path.join(h, "key") if h.endswith("/sec") else h
            if not os.path.basename(f).startswith(("secret", "rsecret", "osecret", "key", "d.txt")):
                continue
            s.append(f'if cat {sh_quote(f)} >/dev/null 2>&1; then echo hid{i}=read; else echo hid{i}=refused; fi')
            self.checks[f"hid{i}"] = "refused"
            if loose and inside_w(h):
                self.maybe.add(f"hid{i}")
                self.secret_ok = True
        # 3. read-only files: never written (files inside listed trees too)
        targets = {P("w/ro"): P("w/ro/file.txt"), P("w/ro/file.txt"): P("w/ro/file.txt"),
                   P("w/a/b"): P("w/a/b/c.txt"), P("w/a/b/c.txt"): P("w/a/b/c.txt")}
        for i, ro in enumerate(self.ro):
            f = targets.get(ro)
            if not f or any(f == h or f.startswith(h + "/") for h in self.hid):
                continue
            s.append(f'if {{ echo x >> {sh_quote(f)}; }} 2>/dev/null; then echo ro{i}=written; else echo ro{i}=refused; fi')
            self.checks[f"ro{i}"] = "refused"
            if loose:
                self.maybe.add(f"ro{i}")
                self.writes.add(os.path.relpath(f, self.dir))
        # 4. protected names that exist: refused with mounts, unless the
        # profile leaves those carve-outs out; without mounts the built-in
        # list is left out (written or not: both explained)
        lenient = self.best_effort or self.unenf.get("carve") or self.unenf.get("trust_handoff")
        for i, name in enumerate([".git/config", ".envrc", ".git/hooks/pre-commit", "a/d.txt", ".git/HEAD"]):
            rel = "w/" + name
            covered = any(name == x.rstrip("/") or name.startswith(x if x.endswith("/") else x + "/")
                          for x in self.protect)
            if any(P(rel) == h or P(rel).startswith(h + "/") for h in self.hid):
                continue
            if any(P(rel) == x or P(rel).startswith(x + "/") for x in self.ro):
                continue
            s.append(f'if {{ echo x >> {sh_quote(P(rel))}; }} 2>/dev/null; then echo prot{i}=written; else echo prot{i}=refused; fi')
            if not covered:
                self.checks[f"prot{i}"] = "written"
                self.writes.add(rel)
            elif self.mount_mode and not lenient:
                self.checks[f"prot{i}"] = "refused"
            elif not self.mount_mode and (name in self.extra or self.protect_listed) and not lenient:
                self.checks[f"prot{i}"] = "refused"
            else:
                self.maybe.add(f"prot{i}")
                self.writes.add(rel)
        # 5. descriptors: kept ones readable, every other one closed
        for fd in INHERITED_FDS:
            s.append(f'if {{ read l <&{fd}; }} 2>/dev/null; then echo fd{fd}=$l; else echo fd{fd}=closed; fi')
            self.checks[f"fd{fd}"] = f"K{n}-{fd}" if fd in self.keep else "closed"
        if self.proc_readable:
            # ls's own descriptors: what the shim handed over, its stdout
            # (the pipe) and its directory (left out by the harness)
            s.append("ls -l /proc/self/fd/ 2>&1 | sed -n 's/.* \\([0-9][0-9]*\\) -> \\(.*\\)$/fdl=\\1 \\2/p'")
            self.checks["fds"] = " ".join(str(x) for x in sorted({0, 1, 2} | set(self.keep)))
        # 6. environment
        for k in ("SBS_V", "SBS_U", "SBS_K1"):
            s.append(f'echo env_{k}=${{{k}-unset}}')
            self.checks[f"env_{k}"] = self.env_expect[k]
        # 7. working directory
        if self.cwd:
            s.append("echo cwd=$(pwd -P)")
            self.checks["cwd"] = self.cwd
        # 8. tmp: writable, TMPDIR points at it
        if self.tmp and not self.must_refuse:
            s.append(f'echo t-{n} > "$TMPDIR/t" && echo tmpw=ok || echo tmpw=fail')
            self.checks["tmpw"] = "ok"
            if self.tmp.startswith(self.dir):
                self.must_write[os.path.relpath(self.tmp, self.dir) + "/t"] = f"t-{n}\n"
        # 9. the host's scratch directories never receive anything
        for d in ("/tmp", "/var/tmp", "/dev/shm"):
            s.append(f'{{ echo x > {d}/{self.marker}; }} 2>/dev/null')
        # 10. outside every tree: not writable; readable only when granted
        s.append(f'if {{ echo x > {sh_quote(P("o/new"))}; }} 2>/dev/null; then echo outw=written; else echo outw=refused; fi')
        self.checks["outw"] = "refused"
        hidden_o = any(P("o/outside.txt").startswith(h + "/") or P("o/outside.txt") == h for h in self.hid)
        s.append(f'if cat {sh_quote(P("o/outside.txt"))} >/dev/null 2>&1; then echo outr=read; else echo outr=refused; fi')
        self.checks["outr"] = "read" if self.outside_readable and not hidden_o else "refused"
        s.append(f"exit {self.code}")

    # ---- fixture ----------------------------------------------------
    def make_fixture(self):
        P, n, uid = self.p, self.n, self.uid
        os.makedirs(self.dir, mode=0o755)
        os.chown(self.dir, uid, uid)
        files = {
            "w/free/.keep": "", "w/a/b/c.txt": "c\n", "w/a/d.txt": "d\n", "w/ro/file.txt": "ro\n",
            "w/secret.txt": f"SECRET-{n}\n", "w/sec/key": f"SECRET-{n}\n",
            "w/.git/config": "[core]\n\tbare = false\n", "w/.git/HEAD": "ref: refs/heads/main\n",
            "w/.git/hooks/pre-commit": "#!/bin/sh\n", "w/.git/info/exclude": "",
            "w/.envrc": "", "w/.vscode/settings.json": "{}\n", "w2/sub/.keep": "",
            "r/r.txt": "r\n", "r/rsecret.txt": f"SECRET-{n}\n", "o/outside.txt": "o\n",
            "o/osecret.txt": f"SECRET-{n}\n", "c/cache.txt": "c\n",
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(P(rel)), exist_ok=True)
            with open(P(rel), "w") as f:
                f.write(text)
        os.symlink("../o", P("w/link"))
        for fd in INHERITED_FDS:
            with open(P(f"fd.{fd}"), "w") as f:
                f.write(f"K{n}-{fd}\n")
        if self.tmp and self.tmp_kind in ("tmp-pre", "tmp-ww", "tmp-root"):
            os.mkdir(self.tmp, {"tmp-pre": 0o700, "tmp-ww": 0o777, "tmp-root": 0o700}[self.tmp_kind])
            os.chmod(self.tmp, {"tmp-pre": 0o700, "tmp-ww": 0o777, "tmp-root": 0o700}[self.tmp_kind])
            if self.tmp_kind != "tmp-root":
                os.chown(self.tmp, uid, uid)
        for top in ("w", "w2"):
            for root, dirs, fs in os.walk(P(top)):
                for x in [root] + [os.path.join(root, d) for d in dirs] + [os.path.join(root, f) for f in fs]:
                    os.lchown(x, uid, uid)

    def snapshot(self):
        """Every entry of the case's tree: kind, mode, owner, content hash."""
        snap = {}
        for root, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                path = os.path.join(root, name)
                st = os.lstat(path)
                rel = os.path.relpath(path, self.dir)
                if stat.S_ISREG(st.st_mode):
                    with open(path, "rb") as f:
                        h = hashlib.sha1(f.read()).hexdigest()
                elif stat.S_ISLNK(st.st_mode):
                    h = os.readlink(path)
                else:
                    h = ""
                snap[rel] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, h)
        return snap

    # ---- running ----------------------------------------------------
    def argv(self, sb):
        # the wrapper opens INHERITED_FDS for the shim, then becomes it
        fds = " ".join(f'{fd}<"$f.{fd}"' for fd in INHERITED_FDS)
        wrap = ["/bin/sh", "-c", f'f=$1; shift; exec {fds} "$@"', "sbwrap", self.p("fd")]
        return as_user(self.who, wrap + [sb, json.dumps(self.prof), "--", "/bin/sh", "-c",
                                         "\n".join(self.script), self.marker])

    def env(self):
        return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/root", "LANG": "C",
                "SBS_V": f"orig-{self.n}", "SBS_U": f"u-{self.n}", "SBS_K1": f"k-{self.n}"}


def survivors(case):
    """Processes still referring to the case (cwd or argv), but ourselves."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cwd = ""
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
        except OSError:
            args = []
        cmd = " ".join(args)
        if cwd == case.dir or cwd.startswith(case.dir + "/") or case.marker in args or case.dir + "/" in cmd:
            found.append(f"pid {pid} cwd {cwd} argv {cmd[:200]}")
    return found


def classify_refusal(case, err_lines):
    """None when every refusal line was predicted, else the reason."""
    lines = [l for l in err_lines if not l.startswith("__sandbox: notice: ")]
    if not lines:
        return "exit 125 without a refusal line"
    for l in lines:
        ok = False
        for kind in case.refusals:
            if re.search(REFUSALS[kind], l):
                ok = True
        if re.search(REFUSALS["cannot_enforce"], l) and case.parts:
            body = l.split("cannot enforce ", 1)[1].split("; to run without", 1)[0]
            items = re.split(r"; (?=\.)", body)
            ok = all(any(re.fullmatch(ENFORCE_PARTS[p], it) for p in case.parts) for it in items)
        if not ok:
            return f"unpredicted refusal: {l}"
    return None


def run_case(case, sb, timeout):
    """Run one case; returns (outcome, problems, details)."""
    case.make_fixture()
    before = case.snapshot()
    t0 = time.monotonic()
    try:
        pr = subprocess.run(case.argv(sb), cwd=case.p("w"), env=case.env(), stdin=subprocess.DEVNULL,
                            capture_output=True, timeout=timeout)
        rc, out, err = pr.returncode, pr.stdout.decode(errors="replace"), pr.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
    dt = time.monotonic() - t0
    problems = []
    outcome = "ran"
    if rc == 125 and (case.refusals or case.parts):
        why = classify_refusal(case, err.splitlines())
        if why:
            problems.append(why)
        outcome = "refused"
    elif rc == 125:
        problems.append("exit 125 where no refusal was predicted")
        outcome = "refused"
    elif case.must_refuse:
        problems.append(f"exit {rc}: a refusal was predicted ({', '.join(sorted(case.refusals | case.parts))})")
    elif rc != case.code:
        problems.append(f"exit {rc}, the command exits {case.code}")
    if outcome == "ran" and not problems:
        got = {}
        fds = []
        for line in out.splitlines():
            k, _, v = line.partition("=")
            if k == "fdl":
                num, _, target = v.partition(" ")
                if not re.fullmatch(r"/proc/\d+/fd", target):
                    fds.append(int(num))
                continue
            got[k] = v
        if fds:
            got["fds"] = " ".join(str(x) for x in sorted(fds))
        for k, v in case.checks.items():
            if k in case.maybe:
                continue
            if got.get(k) != v:
                problems.append(f"check {k}: expected {v!r}, got {got.get(k)!r}")
        if f"SECRET-{case.n}" in out and not case.secret_ok:
            problems.append("a hidden file's content reached the output")
        noise = [l for l in err.splitlines() if not l.startswith("__sandbox: notice: ")]
        if noise:
            problems.append("stderr beyond notices: " + " | ".join(noise[:3]))
    # leaks: processes, the case's tree, the host's scratch directories
    left = survivors(case)
    if left:
        problems.append("processes survived the run: " + "; ".join(left))
    after = case.snapshot()
    ran = outcome == "ran" and rc != "timeout"
    allowed = set(case.writes) | (set(case.must_write) if ran else set())
    if ran and case.tmp and case.tmp.startswith(case.dir):
        # with mounts tmp is also the command's /tmp (README: tmp)
        t = os.path.relpath(case.tmp, case.dir)
        allowed |= {t, t + "/t", t + "/" + case.marker}
    elif case.tmp and case.tmp.startswith(case.dir) and case.tmp_kind in ("w/tmp", "tmp"):
        # refused after proc_tmp_prepare made it (refusals come later)
        allowed.add(os.path.relpath(case.tmp, case.dir))
    for rel in sorted(set(before) | set(after)):
        if before.get(rel) == after.get(rel):
            continue
        if rel in allowed:
            continue
        # a directory's own entry changes only through what is allowed inside
        problems.append(f"tree changed outside what the command wrote: {rel}: {before.get(rel)} -> {after.get(rel)}")
    if ran and not problems:
        for rel, text in case.must_write.items():
            try:
                with open(case.p(rel)) as f:
                    got = f.read()
            except OSError as e:
                got = str(e)
            if got != text:
                problems.append(f"{rel}: expected {text!r} on the host, found {got!r}")
    for d in SHM_NAMES:
        if os.path.lexists(f"{d}/{case.marker}") and f"{d}/{case.marker}" not in case.host_paths:
            problems.append(f"{d}/{case.marker} reached the host")
    for hp in case.host_paths:
        # tmp under the host's /tmp: the profile asked for it; the harness removes it
        if os.path.isdir(hp) and not os.path.islink(hp):
            shutil.rmtree(hp, ignore_errors=True)
        elif os.path.lexists(hp):
            os.unlink(hp)
    return outcome, rc, dt, problems, out, err


def host_state():
    with open("/proc/self/mountinfo") as f:
        mi = f.read()
    tops = {}
    for d in SHM_NAMES:
        try:
            tops[d] = set(os.listdir(d))
        except OSError:
            tops[d] = set()
    return mi, tops, len(os.listdir("/proc/self/fd"))


def report(case, sb, rc, out, err, problems):
    log(f"not ok - case {case.key} (seed {case.seed}): exit {rc}")
    for p in problems:
        log(f"#   {p}")
    log(f"#   profile: {json.dumps(case.prof)}")
    argv = case.argv(sb)
    log(f"#   argv: {json.dumps(argv[:-2] + ['SCRIPT', argv[-1]])}")
    for line in case.script:
        log(f"#   SCRIPT: {line}")
    for line in err.splitlines()[:20]:
        log(f"#   stderr: {line}")
    for line in out.splitlines()[:60]:
        log(f"#   stdout: {line}")
    log(f"#   replay: {sys.argv[0]} --seed {case.seed} --replay {case.key}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10000, help="runs per user (default 10000)")
    ap.add_argument("--jobs", type=int, default=8, help="runs at a time (default 8)")
    ap.add_argument("--seed", type=int, default=None, help="seed (default: from the clock, printed)")
    ap.add_argument("--users", default=None, help="root,nobody (default: both as root, else the current user)")
    ap.add_argument("--replay", metavar="USER:N", help="run one case, print everything, keep its tree")
    ap.add_argument("--binary", default=os.path.join(REPO, "__sandbox"))
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--shared-host", action="store_true",
                    help="other processes use this machine: new entries in /tmp etc. not named after a run only warn")
    ap.add_argument("--max-failures", type=int, default=20, help="stop after this many failed runs")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("stress: run as root (the cases run as root and as uid 65534)", file=sys.stderr)
        return 2
    seed = a.seed if a.seed is not None else int(time.time() * 1000) % 1000000007
    users = a.users.split(",") if a.users else ["root", "nobody"]
    base_parent = "/srv" if os.access("/srv", os.W_OK) else os.environ.get("HOME", "/root")
    base = tempfile.mkdtemp(prefix="sbstress.", dir=base_parent)
    os.chmod(base, 0o755)
    # the binary in a world-accessible place (the checkout may be under /root)
    sb = os.path.join(base, "__sandbox")
    shutil.copy(a.binary, sb)
    os.chmod(sb, 0o755)
    run_id = os.path.basename(base).split(".", 1)[1]
    host = Host(sb)
    log(f"# stress: seed {seed}, {a.runs} runs per user ({', '.join(users)}), {a.jobs} at a time, "
        f"Landlock ABI {host.abi}, mount namespaces root={host.ns['root']} nobody={host.ns['nobody']}, in {base}")
    if a.replay:
        who, _, n = a.replay.partition(":")
        case = Case(seed, run_id, base, who, int(n), host)
        outcome, rc, dt, problems, out, err = run_case(case, sb, a.timeout)
        report(case, sb, rc, out, err, problems) if problems else log(f"ok - case {case.key}: {outcome}, exit {rc}, {dt:.3f} s")
        if not problems:
            log(f"#   profile: {json.dumps(case.prof)}")
            for line in err.splitlines():
                log(f"#   stderr: {line}")
            for line in out.splitlines():
                log(f"#   stdout: {line}")
        log(f"# tree kept in {case.dir}")
        return 1 if problems else 0

    mi0, tops0, nfd0 = host_state()
    t0 = time.monotonic()
    counts = {}
    failures = []
    lock = threading.Lock()
    done = [0]
    stop = threading.Event()
    total = a.runs * len(users)

    def one(i):
        if stop.is_set():
            return
        who = users[i % len(users)]
        case = Case(seed, run_id, base, who, i // len(users), host)
        outcome, rc, dt, problems, out, err = run_case(case, sb, a.timeout)
        with lock:
            k = (who, outcome if not problems else "FAILED")
            counts[k] = counts.get(k, 0) + 1
            if outcome == "refused" and not problems:
                kinds = ",".join(sorted(case.refusals | case.parts))
                counts[(who, "refused:" + kinds)] = counts.get((who, "refused:" + kinds), 0) + 1
            if problems:
                failures.append(case.key)
                report(case, sb, rc, out, err, problems)
                if len(failures) >= a.max_failures:
                    stop.set()
            done[0] += 1
            if done[0] % 1000 == 0:
                log(f"# {done[0]}/{total} runs, {len(failures)} failed, {time.monotonic() - t0:.0f} s")
        if not problems:
            shutil.rmtree(case.dir, ignore_errors=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for f in concurrent.futures.as_completed([ex.submit(one, i) for i in range(total)]):
            f.result()
    wall = time.monotonic() - t0
    mi1, tops1, nfd1 = host_state()
    leaks = []
    if mi1 != mi0:
        leaks.append("the host's /proc/self/mountinfo changed:\n" +
                     "\n".join(f"#   - {l}" for l in sorted(set(mi0.splitlines()) - set(mi1.splitlines()))) + "\n" +
                     "\n".join(f"#   + {l}" for l in sorted(set(mi1.splitlines()) - set(mi0.splitlines()))))
    warn = []
    for d in SHM_NAMES:
        new = tops1[d] - tops0[d]
        ours = {x for x in new if run_id in x or x.startswith("sbstress")}
        if ours:
            leaks.append(f"{d}: left behind: {' '.join(sorted(ours))}")
        if new - ours:
            (warn if a.shared_host else leaks).append(f"{d}: new entries: {' '.join(sorted(new - ours))}")
    if nfd1 != nfd0:
        leaks.append(f"the harness holds {nfd1} descriptors, {nfd0} at the start")
    for l in leaks:
        log(f"not ok - leak: {l}")
    for w in warn:
        log(f"# warning (--shared-host, not counted): {w}")
    for (who, k), v in sorted(counts.items()):
        log(f"# {who}: {k}: {v}")
    runs = sum(v for (who, k), v in counts.items() if k in ("ran", "refused", "FAILED"))
    log(f"# stress: seed {seed}: {runs} runs in {wall:.1f} s ({runs / wall:.0f}/s), "
        f"{len(failures)} unexplained, {len(leaks)} leaks")
    if not failures:
        shutil.rmtree(base, ignore_errors=True)
    else:
        log(f"# failed cases' trees kept in {base}")
    return 1 if failures or leaks or stop.is_set() else 0


if __name__ == "__main__":
    sys.exit(main())

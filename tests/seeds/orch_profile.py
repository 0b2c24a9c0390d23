#!/usr/bin/env python3
"""orch's sandbox_jail policy for one task run (seeds/001: orch
engine/runner sandbox.rs, the Linux branch) as the shim's profile JSON.

  orch_profile.py WORK_DIR MAIN_DIR BRANCH HOME ORCH_HOME TEMP [internal]
                  [unenforced=NAME,...] [path=DIR:DIR...]

The git dirs come from git itself (rev-parse --git-dir in the worktree,
--git-common-dir in the main checkout), the branch from the caller (orch's
records), PATH from path= (else the environment).  The rules, mapped:
  - writable: the worktree first (the workspace), its git dir, the common
    dir, the home's top-level directories but HOME_READ_ONLY, the writable
    parts inside those (Library/Caches, .local/share, ...), the run's temp;
  - read_only: around the task in the common dir (hooks, config, info,
    modules, packed-refs, refs/tags, commondir, gitdir, config.worktree;
    every entry but objects, remote refs, the task's branch and its
    reflog and the task's own worktree dir; that dir's HEAD, commondir,
    gitdir, config.worktree; a loose ref for a branch only packed-refs
    holds), the worktree's .git file, hooks/config/info/modules of any
    other repository within 4 levels of a writable home directory, tmux
    socket dirs in the run temp, the worktree's .orch.yml, codex's
    settings, build configs that run code, PATH directories inside the
    home, and everything of the orch home and of each project around the
    kept paths (worktree, temp, git dirs; orch.db for an internal task);
  - hidden: the credentials (cargo's config excepted), ~/.gnupg, and the
    daemon's write token unless the task is internal;
  - scratch dirs (/tmp, /run, /var/tmp start empty): the shim's private
    /tmp and /var/tmp and its empty /run view (mount mode); no key;
  - unix sockets only in the worktree and the run temp: "scoped" (sockets
    in writable trees and tmp), and TMPDIR is the run temp;
  - own signals only: "scoped".
Prints the JSON."""
import json
import os
import subprocess
import sys

HOME_READ_ONLY = [".config", ".claude", ".ssh", ".gnupg", "bin", "Library", ".local"]
HOME_WRITABLE = ["Library/Caches", "Library/Logs", ".local/share", ".local/state"]
AGENT_CONFIG = [".codex/config.toml", ".codex/AGENTS.md", ".codex/rules"]
HOME_EXEC_CONFIG = [".cargo/config", ".cargo/config.toml", ".gradle/init.d",
                    ".gradle/init.gradle", ".gradle/gradle.properties",
                    ".m2/settings.xml", ".oh-my-zsh", ".zprezto"]
# the credential list of sandbox_jail's known::credentials (as the seed's
# own test shows it: keys and tokens under the home)
CREDENTIALS = [".ssh", ".aws", ".azure", ".docker/config.json", ".kube", ".netrc",
               ".npmrc", ".pypirc", ".git-credentials", ".password-store",
               ".config/gh", ".config/gcloud", ".cargo/credentials",
               ".cargo/credentials.toml", ".cargo/config", ".cargo/config.toml",
               ".local/share/keyrings"]
GIT_SCAN_DEPTH = 4


def within(p, d):
    return p == d or p.startswith(d.rstrip("/") + "/")


def git_dir_arg(d, arg):
    r = subprocess.run(["git", "-C", d, "rev-parse", "--path-format=absolute", arg],
                       capture_output=True, text=True)
    return r.stdout.strip() or None if r.returncode == 0 else None


def read_only_around(d, keep, out):
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return
    for n in names:
        p = os.path.join(d, n)
        if any(within(p, k) for k in keep):
            continue
        holds = any(within(k, p) for k in keep)
        if holds and os.path.isdir(p) and not os.path.islink(p):
            read_only_around(p, keep, out)
        elif not holds:
            out.append(p)


def home_writable(home):
    dirs = [os.path.join(home, n) for n in sorted(os.listdir(home))
            if os.path.isdir(os.path.join(home, n)) and not os.path.islink(os.path.join(home, n))
            and n not in HOME_READ_ONLY]
    return dirs + [os.path.join(home, d) for d in HOME_WRITABLE if os.path.isdir(os.path.join(home, d))]


def find_git_dirs(d, depth, out):
    g = os.path.join(d, ".git")
    if os.path.isdir(g):
        out += [os.path.join(g, f) for f in ("hooks", "config", "info", "modules")]
    if depth == 0:
        return
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return
    for n in names:
        p = os.path.join(d, n)
        if os.path.isdir(p) and not os.path.islink(p) and n not in (".git", "node_modules"):
            find_git_dirs(p, depth - 1, out)


def git_rules(common, git_dir, own_ref, out):
    out += [os.path.join(common, d) for d in ("hooks", "config", "info", "modules", "packed-refs",
                                               "refs/tags", "commondir", "gitdir", "config.worktree")]
    own = [os.path.join(common, own_ref), os.path.join(common, "logs", own_ref)] if own_ref else []
    if git_dir and git_dir != common:
        keep = [os.path.join(common, "objects"), os.path.join(common, "refs/remotes"),
                os.path.join(common, "logs/refs/remotes"), git_dir] + own
        read_only_around(common, keep, out)
        out += [os.path.join(git_dir, f) for f in ("HEAD", "commondir", "gitdir", "config.worktree")]
    else:
        read_only_around(os.path.join(common, "refs/heads"), own, out)
    try:
        packed = open(os.path.join(common, "packed-refs")).read().splitlines()
    except OSError:
        packed = []
    for line in packed:
        if " " not in line:
            continue
        name = line.split(" ", 1)[1]
        p = os.path.join(common, name)
        if name.startswith("refs/heads/") and p not in own and not os.path.exists(p):
            out.append(p)


def main():
    work, main_dir, branch, home, orch_home, temp = sys.argv[1:7]
    opts = sys.argv[7:]
    internal = "internal" in opts
    unenf = {}
    path_dirs = os.environ.get("PATH", "").split(":")
    for o in opts:
        if o.startswith("unenforced="):
            unenf = {k: True for k in o.split("=", 1)[1].split(",") if k}
        elif o.startswith("path="):
            path_dirs = o.split("=", 1)[1].split(":")
    common = git_dir_arg(main_dir, "--git-common-dir")
    git_dir = git_dir_arg(work, "--git-dir")
    own_ref = "refs/heads/" + branch if branch else None
    git_dirs = [d for d in (git_dir, common) if d]

    writable = [work] + git_dirs + home_writable(home) + [temp]
    read_only, hidden = [], []
    if common:
        git_rules(common, git_dir, own_ref, read_only)
        if git_dir and git_dir != common:
            read_only.append(os.path.join(work, ".git"))
    for d in home_writable(home):
        find_git_dirs(d, GIT_SCAN_DEPTH, read_only)
    for root in [temp]:  # the shared /tmp is a scratch dir (empty): only the run temp
        try:
            read_only += [os.path.join(root, n) for n in sorted(os.listdir(root)) if n.startswith("tmux-")]
        except OSError:
            pass
    read_only.append(os.path.join(work, ".orch.yml"))
    read_only += [os.path.join(home, p) for p in AGENT_CONFIG + HOME_EXEC_CONFIG]
    read_only += [d for d in path_dirs if d and within(d, home)]
    keep = [work, temp] + git_dirs
    if internal:
        keep += [os.path.join(orch_home, f) for f in ("orch.db", "orch.db-wal", "orch.db-shm")]
    read_only_around(orch_home, keep, read_only)
    read_only_around(main_dir, keep, read_only)
    hidden = [os.path.join(home, c) for c in CREDENTIALS
              if c not in (".cargo/config", ".cargo/config.toml")]
    hidden.append(os.path.join(home, ".gnupg"))
    if not internal:
        hidden.append(os.path.join(orch_home, "state/cluster.port"))

    uniq = lambda l: list(dict.fromkeys(l))
    prof = {
        "writable": uniq(writable),
        "read_only": uniq(p for p in read_only if p not in writable),
        "hidden": uniq(hidden),
        "unix_sockets": "scoped",
        "signals": "scoped",
        "network": "on",
        "cwd": work,
        "env": {"set": {"TMPDIR": temp, "HOME": home}},
    }
    if unenf:
        prof["unenforced"] = unenf
    print(json.dumps(prof, separators=(",", ":")))


main()

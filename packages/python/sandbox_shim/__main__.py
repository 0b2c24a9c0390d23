"""python -m sandbox_shim — the packaged __sandbox from the command line:

    python -m sandbox_shim PROFILE -- COMMAND [ARG...]   run it (exec: same pid)
    python -m sandbox_shim check PROFILE | probe | path
    python -m sandbox_shim.mcp CONFIG [...]              wrap MCP servers
"""
import os
import sys

from . import binary_path


def main(argv):
    try:
        binary = binary_path()
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 125
    if argv == ["path"]:
        print(binary)
        return 0
    if argv == ["probe"]:
        args = ["--probe"]
    elif len(argv) == 2 and argv[0] == "check":
        args = ["--check", argv[1]]
    elif len(argv) > 2 and argv[1] == "--":
        args = argv
    else:
        print("usage: python -m sandbox_shim PROFILE -- COMMAND [ARG...] | check PROFILE | probe | path",
              file=sys.stderr)
        return 2
    os.execv(binary, [binary, *args])  # the shim takes this process over


def console():
    """The sandbox-shim script's entry point."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    console()

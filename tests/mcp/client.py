#!/usr/bin/env python3
"""A minimal MCP client over stdio for tests/mcp/filesystem.t.

    client.py STEPS_JSON -- SERVER_ARGV...

Starts SERVER_ARGV (e.g. __sandbox PROFILE -- node server.js DIR), speaks
newline-delimited JSON-RPC 2.0 on its stdin/stdout: initialize,
notifications/initialized, tools/list, then one tools/call per step
(STEPS_JSON: [[tool, {arguments}], ...]).  Prints one line per result:

    tools NAME,NAME,...
    ok TOOL TEXT            (a result without isError; TEXT on one line)
    error TOOL TEXT         (a result with isError true: the server reported it)
    rpc-error TOOL MESSAGE  (a JSON-RPC error object)
    frames N clean          every stdout line was a JSON-RPC 2.0 frame
    frames N dirty LINE     something else appeared on stdout
    exit STATUS             the server's exit status after stdin closed

Each response is awaited with a bounded wait (30 s), never a sleep.
"""
import json
import select
import subprocess
import sys
import time

TIMEOUT = 30.0


def main():
    steps = json.loads(sys.argv[1])
    server = sys.argv[sys.argv.index("--") + 1:]
    p = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    frames = 0
    dirty = None
    buf = b""

    def send(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    def receive(want_id):
        nonlocal frames, dirty, buf
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                    ok = isinstance(msg, dict) and msg.get("jsonrpc") == "2.0"
                except ValueError:
                    ok = False
                if not ok:
                    dirty = dirty or line.decode(errors="replace")[:200]
                    continue
                frames += 1
                if msg.get("id") == want_id:
                    return msg
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([p.stdout], [], [], left)[0]:
                return None
            chunk = p.stdout.read1(65536)
            if not chunk:
                return None
            buf += chunk

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "sandbox-test", "version": "1"}}})
    init = receive(1)
    if not init or "result" not in init:
        print("initialize failed", json.dumps(init))
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = receive(2)
    names = [t["name"] for t in (tools or {}).get("result", {}).get("tools", [])]
    print("tools", ",".join(sorted(names)))
    for i, (tool, args) in enumerate(steps, start=3):
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": tool, "arguments": args}})
        r = receive(i)
        if r is None:
            print("no-answer", tool)
        elif "error" in r:
            print("rpc-error", tool, r["error"].get("message", "").replace("\n", " "))
        else:
            res = r["result"]
            text = " ".join(c.get("text", "") for c in res.get("content", []))
            print("error" if res.get("isError") else "ok", tool, text.replace("\n", " ").strip())
    p.stdin.close()
    try:
        status = p.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        status = "timeout"
    rest = p.stdout.read()
    buf += rest
    for line in buf.split(b"\n"):
        if line.strip():
            try:
                msg = json.loads(line)
                if isinstance(msg, dict) and msg.get("jsonrpc") == "2.0":
                    frames += 1
                    continue
            except ValueError:
                pass
            dirty = dirty or line.decode(errors="replace")[:200]
    print("frames", frames, "clean" if dirty is None else "dirty " + dirty)
    print("exit", status)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# /usr/bin/python3 works unchanged: file writes, O_TRUNC overwrite, rename
# between workspace subfolders (Landlock REFER), asyncio with threads, a
# subprocess and a socketpair (the seccomp filter must not break them).
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
if [ ! -x $PY ]; then skip "$PY is not installed"; done_testing; exit; fi

ASYNC='
import asyncio, socket, threading
async def main():
    loop = asyncio.get_running_loop()
    me = threading.get_ident()
    tids = await asyncio.gather(*[loop.run_in_executor(None, threading.get_ident) for _ in range(8)])
    print("executor", len(tids), all(t != me for t in tids))
    print("to_thread", await asyncio.to_thread(sum, range(10)))
    p = await asyncio.create_subprocess_exec("/bin/sh", "-c", "echo sub $0; exit 4", "arg",
                                             stdout=asyncio.subprocess.PIPE)
    o, _ = await p.communicate()
    print("subprocess", p.returncode, o.decode().strip())
    a, b = socket.socketpair()
    r, w = await asyncio.open_connection(sock=a)
    b.setblocking(False)
    await loop.sock_sendall(b, b"ping\n")
    print("socketpair", (await r.readline()).decode().strip())
    w.write(b"pong\n")
    await w.drain()
    print("reply", (await loop.sock_recv(b, 100)).decode().strip())
    w.close()
    b.close()
    await asyncio.sleep(0.01)
asyncio.run(main())
'
ASYNC_WANT='executor 8 True
to_thread 45
subprocess 4 sub arg
socketpair ping
reply pong'

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "py-$style")
		p=$(prof "$style" "$ws")
		t="$who/$style"
		mkdir -p "$ws/a" "$ws/b"
		[ "$who" = nobody ] && chown $NOBODY "$ws/a" "$ws/b"

		sbrun "$who" "$p" $PY -c 'import sys; open(sys.argv[1], "w").write("first version\n"); print("ok")' "$ws/new.txt"
		expect "$t: python writes a new file" 0 ok
		check "$t: new file content" "first version" "$(cat "$ws/new.txt" 2>&1)"

		sbrun "$who" "$p" $PY -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
os.write(fd, b"v2")
os.close(fd)
with open(sys.argv[1], "r+") as f:
    f.truncate(1)
print("ok")' "$ws/new.txt"
		expect "$t: python overwrites with O_TRUNC and ftruncate" 0 ok
		check "$t: overwritten content" "v" "$(cat "$ws/new.txt" 2>&1)"

		echo moving > "$ws/a/f.txt"
		[ "$who" = nobody ] && chown $NOBODY "$ws/a/f.txt"
		sbrun "$who" "$p" $PY -c '
import os, sys
os.rename(sys.argv[1] + "/a/f.txt", sys.argv[1] + "/b/g.txt")
os.mkdir(sys.argv[1] + "/a/sub")
os.rename(sys.argv[1] + "/a/sub", sys.argv[1] + "/b/sub")
print("ok")' "$ws"
		expect "$t: os.rename between workspace subfolders (refer)" 0 ok
		check "$t: renamed file and directory" "no moving yes" \
			"$([ -e "$ws/a/f.txt" ] && echo yes || echo no) $(cat "$ws/b/g.txt" 2>&1) $([ -d "$ws/b/sub" ] && echo yes || echo no)"

		sbrun "$who" "$p" $PY -c "$ASYNC"
		expect "$t: asyncio with executor threads, subprocess, socketpair" 0 "$ASYNC_WANT"
		# same output as the unconfined interpreter gives
		check "$t: asyncio output equals the unsandboxed run" "$(as "$who" $PY -c "$ASYNC" 2>&1)" "$out"

		sbrun "$who" "$p" $PY -c '
import subprocess, threading, tempfile, os, sys
r = []
ts = [threading.Thread(target=lambda i=i: r.append(subprocess.run(["/bin/echo", str(i)], capture_output=True).stdout)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(sorted(x.decode().strip() for x in r))
with tempfile.NamedTemporaryFile(dir=sys.argv[1]) as f: print(os.path.dirname(f.name) == sys.argv[1])' "$ws"
		expect "$t: threads running subprocesses, tempfile in the workspace" 0 "['0', '1', '2', '3']
True"

		# Python's multiprocessing needs POSIX semaphores in /dev/shm
		# (DESIGN.md: a private tmpfs with mounts, else listed in devices).
		MP='
import multiprocessing as mp
if __name__ == "__main__":
    with mp.Pool(2) as p: print(p.map(abs, [-1, -2, -3]))'
		sbrun "$who" "$(prof "$style" "$ws" '"devices":["/dev/null","/dev/urandom","/dev/shm"]')" $PY -c "$MP"
		expect "$t: multiprocessing.Pool with /dev/shm in devices" 0 "[1, 2, 3]"
		# Default devices: the mount namespace gives a private /dev/shm.
		# Without one the host's /dev/shm is not granted (it holds every
		# process's shared memory): POSIX semaphores need it listed in
		# devices, as just above (README, known limits).
		sbrun "$who" "$p" $PY -c "$MP"
		if [ -n "${SB_NONS:-}" ]; then
			check_match "$t: no namespace: multiprocessing.Pool with default devices fails on /dev/shm (documented)" \
				"PermissionError|FileNotFoundError|OSError" "$rc $err"
		else
			expect "$t: multiprocessing.Pool with default devices (private /dev/shm)" 0 "[1, 2, 3]"
		fi
	done
done
done_testing

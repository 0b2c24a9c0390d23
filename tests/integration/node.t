#!/usr/bin/env bash
# /usr/bin/node works unchanged: fs.writeFileSync in the workspace and
# child_process.spawn / execFileSync of a shell.
. "$(dirname "$0")/common.sh"
NODE=/usr/bin/node
if [ ! -x $NODE ]; then skip "$NODE is not installed"; done_testing; exit; fi

WRITE='
const fs = require("fs"), path = require("path");
const f = path.join(process.argv[1], "out.json");
fs.writeFileSync(f, JSON.stringify({a: 1}));
fs.writeFileSync(f, JSON.stringify({b: 2}));   // overwrite (O_TRUNC)
fs.mkdirSync(path.join(process.argv[1], "x", "y"), {recursive: true});
fs.renameSync(f, path.join(process.argv[1], "x", "y", "moved.json"));
console.log(fs.readFileSync(path.join(process.argv[1], "x", "y", "moved.json"), "utf8"));
'
SPAWN='
const cp = require("child_process");
const c = cp.spawn("sh", ["-c", "echo x; echo err >&2; exit 5"]);
let o = "", e = "";
c.stdout.on("data", d => o += d);
c.stderr.on("data", d => e += d);
c.on("close", code => {
  console.log(JSON.stringify([o, e, code]));
  console.log(cp.execFileSync("/bin/sh", ["-c", "echo sync $0", "y"]).toString().trim());
  const w = new (require("worker_threads").Worker)("require(\"worker_threads\").parentPort.postMessage(6*7)", {eval: true});
  w.on("message", m => { console.log("worker", m); w.terminate(); });
});
'
SPAWN_WANT='["x\n","err\n",5]
sync y
worker 42'

for who in $USERS; do
	for style in default real; do
		ws=$(mkws "$who" "node-$style")
		p=$(prof "$style" "$ws")
		t="$who/$style"

		sbrun "$who" "$p" $NODE -e "$WRITE" "$ws"
		expect "$t: fs.writeFileSync, overwrite, mkdir, rename" 0 '{"b":2}'
		check "$t: file on disk" '{"b":2}' "$(cat "$ws/x/y/moved.json" 2>&1)"

		sbrun "$who" "$p" $NODE -e "$SPAWN"
		expect "$t: child_process.spawn sh, execFileSync, worker thread" 0 "$SPAWN_WANT"
		check "$t: same output as unsandboxed node" "$(as "$who" $NODE -e "$SPAWN" 2>&1)" "$out"
	done
done
done_testing

#!/usr/bin/env node
// sandbox-shim — the packaged __sandbox from the command line.
//   sandbox-shim PROFILE -- COMMAND [ARG...]   run COMMAND confined (as __sandbox)
//   sandbox-shim check PROFILE                 the plan as JSON (__sandbox --check)
//   sandbox-shim probe                         what this host enforces (--probe)
//   sandbox-shim path                          the binary's path, for configs
//   sandbox-shim mcp CONFIG [...]              sandbox-shim-mcp (wrap MCP servers)
// The run form starts the binary with this process's stdio and passes its
// exit status on (a signal as 128+N); for a parent that wants the shim to
// *be* the server (same pid), put `sandbox-shim path`'s output in its config.
'use strict';
const { spawn } = require('child_process');
const os = require('os');
const { binaryPath } = require('./index');

function usage(code) {
	(code ? process.stderr : process.stdout).write(
		'usage: sandbox-shim PROFILE -- COMMAND [ARG...] | check PROFILE | probe | path | mcp CONFIG [...]\n');
	return code;
}

function passThrough(args) {
	const child = spawn(binaryPath(), args, { stdio: 'inherit' });
	for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => child.kill(s));
	child.on('error', (e) => { process.stderr.write(`sandbox-shim: ${e.message}\n`); process.exit(125); });
	child.on('close', (code, signal) => process.exit(signal ? 128 + os.constants.signals[signal] : code));
}

function main(argv) {
	let bin;
	try { bin = binaryPath(); } catch (e) { process.stderr.write(e.message + '\n'); return process.exit(125); }
	const [cmd, ...rest] = argv;
	if (cmd === undefined || cmd === '-h' || cmd === '--help') return process.exit(usage(cmd === undefined ? 2 : 0));
	if (cmd === 'path') { process.stdout.write(bin + '\n'); return undefined; }
	if (cmd === 'probe' && rest.length === 0) return passThrough(['--probe']);
	if (cmd === 'check' && rest.length === 1) return passThrough(['--check', rest[0]]);
	if (cmd === 'mcp') { process.exitCode = require('./mcp-config').main(rest); return undefined; }
	if (rest[0] === '--' && rest.length > 1) return passThrough(argv);
	return process.exit(usage(2));
}
main(process.argv.slice(2));

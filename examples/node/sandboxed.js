#!/usr/bin/env node
// Start a command under __sandbox from Node: a thin user of the
// sandbox-shim package (packages/npm), required from this checkout.
//
// The package hands the profile to the shim on a pipe (fd:3, never the
// command line), the shim becomes the command (same pid, same
// stdin/stdout), and a command that never ran makes `child.done` reject
// with SandboxRefused (125), CommandNotExecutable (126) or CommandNotFound
// (127), each a SandboxError carrying the shim's one line.  The binary is
// $SANDBOX, else the package's own (the npm tarball carries one), else
// __sandbox on PATH.
//
//   const { spawnSandboxed } = require('./sandboxed');
//   const child = spawnSandboxed({ writable: [workspace] }, ['my-mcp-server']);
//   child.stdin.write(...); child.stdout.on('data', ...);
//   const { code } = await child.done;    // or a SandboxError
//
// As a program: `sandboxed.js WORKSPACE -- COMMAND [ARG...]` runs COMMAND
// with WORKSPACE writable, the system directories readable, no network and
// a cleared environment, stdin and stdout passed through.
'use strict';
const path = require('path');
const pkg = require(path.join(__dirname, '..', '..', 'packages', 'npm'));

// $SANDBOX, else the package's binary, else __sandbox on PATH.
function sandboxBinary() {
	try { return pkg.binaryPath(); } catch (e) { return '__sandbox'; }
}

// The package's spawn() with the binary above (options.sandbox overrides).
function spawnSandboxed(profile, argv, options = {}) {
	return pkg.spawn(profile, argv, { sandbox: sandboxBinary(), ...options });
}

// A profile for a tool working in one directory.
function workspaceProfile(workspace) {
	return {
		readable: ['/usr', '/etc', '/lib', '/lib64', '/bin', '/sbin'],
		writable: [workspace],
		network: 'off',
		env: { clear: true, keep: ['PATH', 'LANG', 'LC_*', 'TERM'] },
	};
}

const WHAT = { 125: 'the sandbox refused to start', 126: 'the sandbox could not execute', 127: 'the sandbox could not find' };

async function main(args) {
	if (args.length < 3 || args[1] !== '--') {
		process.stderr.write('usage: sandboxed.js WORKSPACE -- COMMAND [ARG...]\n');
		return 2;
	}
	const child = spawnSandboxed(workspaceProfile(args[0]), args.slice(2), { stdio: ['inherit', 'inherit'] });
	try {
		const { code, signal } = await child.done;
		return signal ? 128 + require('os').constants.signals[signal] : code;
	} catch (e) {
		if (!(e instanceof pkg.SandboxError)) throw e;
		process.stderr.write(`sandboxed.js: ${WHAT[e.exitCode]} ${args[2]}: ${e.message}\n`);
		return e.exitCode;
	}
}

module.exports = {
	spawnSandboxed, workspaceProfile, sandboxBinary,
	SandboxError: pkg.SandboxError, SandboxRefused: pkg.SandboxRefused,
	CommandNotExecutable: pkg.CommandNotExecutable, CommandNotFound: pkg.CommandNotFound,
};

if (require.main === module)
	main(process.argv.slice(2)).then((code) => { process.exitCode = code; });

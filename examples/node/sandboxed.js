#!/usr/bin/env node
// Start a command under __sandbox from Node.
//
// The profile travels on a pipe (fd:3), never on the command line, so it
// is neither limited by ARG_MAX nor visible in /proc/PID/cmdline.  The shim
// then becomes the command: same pid, same stdin/stdout (an MCP server
// speaks its protocol on them unchanged).  If the command never ran, the
// shim exits with one "__sandbox: ..." line on stderr and `child.done`
// rejects with that line as the message and the status in `exitCode`:
//   SandboxRefused (125): the sandbox could not be set up (profile, a
//     required part this host cannot enforce, a setup syscall);
//   CommandNotExecutable (126): the command exists but could not be
//     executed (the line says whether the file mode or the profile is why);
//   CommandNotFound (127): the command was not found.
// All three are SandboxErrors.
//
//   const { spawnSandboxed } = require('./sandboxed');
//   const child = spawnSandboxed({ writable: [workspace] }, ['my-mcp-server']);
//   child.stdin.write(...); child.stdout.on('data', ...);
//   const { code } = await child.done;    // or a SandboxError
//
// As a program: `sandboxed.js WORKSPACE -- COMMAND [ARG...]` runs COMMAND
// with WORKSPACE writable, the system directories readable, no network and
// a cleared environment, stdin and stdout passed through.  Set SANDBOX to
// the path of __sandbox if it is not on PATH.
'use strict';
const { spawn } = require('child_process');

// __sandbox did not run the command: message is the shim's one line,
// exitCode its exit status (125, 126 or 127).
class SandboxError extends Error {
	constructor(message, exitCode) {
		super(message);
		this.name = new.target.name;
		this.exitCode = exitCode;
	}
}
// 125: the sandbox could not be set up, nothing ran.
class SandboxRefused extends SandboxError {
	constructor(message) { super(message, 125); }
}
// 126: the command exists but could not be executed.
class CommandNotExecutable extends SandboxError {
	constructor(message) { super(message, 126); }
}
// 127: the command was not found (on the sandbox's PATH).
class CommandNotFound extends SandboxError {
	constructor(message) { super(message, 127); }
}
const ERRORS = { 125: SandboxRefused, 126: CommandNotExecutable, 127: CommandNotFound };

// spawn() of argv confined by profile (an object).  options.stdio gives
// stdin and stdout (default 'pipe', 'pipe'); stderr is read here: the
// command's lines and the shim's notices are copied to this process's
// stderr, the shim's error line is kept for `done`.
function spawnSandboxed(profile, argv, options = {}) {
	const sandbox = options.sandbox || process.env.SANDBOX || '__sandbox';
	const [stdin, stdout] = options.stdio || ['pipe', 'pipe'];
	const child = spawn(sandbox, ['fd:3', '--', ...argv], {
		...options,
		stdio: [stdin, stdout, 'pipe', 'pipe'],
	});
	// end() closes our side: the shim reads the profile to end of file
	child.stdio[3].on('error', () => {}); // EPIPE: the shim already stopped
	// Writing to a command that never started (or has exited) fails with
	// EPIPE; `done` says why it exited, so that error must not crash us.
	if (child.stdin) child.stdin.on('error', () => {});
	child.stdio[3].end(JSON.stringify(profile));
	const errors = [];
	let partial = '';
	child.stderr.setEncoding('utf8');
	child.stderr.on('data', (chunk) => {
		partial += chunk;
		let nl;
		while ((nl = partial.indexOf('\n')) >= 0) {
			const line = partial.slice(0, nl);
			partial = partial.slice(nl + 1);
			if (line.startsWith('__sandbox: ') && !line.startsWith('__sandbox: notice: '))
				errors.push(line);
			else
				process.stderr.write(line + '\n');
		}
	});
	child.done = new Promise((resolve, reject) => {
		child.on('error', reject); // the shim itself could not be started
		child.on('close', (code, signal) => {
			if (partial) process.stderr.write(partial);
			// after exec the shim prints nothing more: an error line
			// with 125, 126 or 127 means the command never ran
			if (ERRORS[code] && errors.length)
				reject(new ERRORS[code](errors[errors.length - 1]));
			else
				resolve({ code, signal });
		});
	});
	return child;
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
		if (!(e instanceof SandboxError)) throw e;
		const what = { 125: 'the sandbox refused to start', 126: 'the sandbox could not execute',
			127: 'the sandbox could not find' }[e.exitCode];
		process.stderr.write(`sandboxed.js: ${what} ${args[2]}: ${e.message}\n`);
		return e.exitCode;
	}
}

module.exports = {
	spawnSandboxed, workspaceProfile,
	SandboxError, SandboxRefused, CommandNotExecutable, CommandNotFound,
};

if (require.main === module)
	main(process.argv.slice(2)).then((code) => { process.exitCode = code; });

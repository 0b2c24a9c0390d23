// sandbox-shim: run a command under __sandbox from Node.
//
// The package carries the static __sandbox binary for each architecture it
// was built for (bin/linux-x64, bin/linux-arm64), picked at run time by
// process.arch, as esbuild and others ship platform binaries.  The profile
// travels on a pipe (fd:3), never on the command line: no ARG_MAX limit,
// nothing in /proc/PID/cmdline.  The shim becomes the command (same pid,
// same stdin/stdout), so an MCP server speaks its protocol on them
// unchanged.  If the command never ran, the shim exits with one
// "__sandbox: ..." line on stderr and `child.done` rejects with that line
// as the message: SandboxRefused (125), CommandNotExecutable (126),
// CommandNotFound (127), all SandboxErrors with `exitCode`.
//
// spawn(..., { denials: true }) also asks for the shim's denial report
// (profile key `denials`): every system call the seccomp filter refused,
// one parsed line each ({ syscall, nr, errno, error, pid, arch, monotonic },
// or { dropped: N } when lines were lost to a reader 64 KiB behind), as a
// 'denial' event while the command runs and as `child.denials`, complete
// when `done` resolves (and in its result).
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');

class SandboxError extends Error {
	constructor(message, exitCode) {
		super(message);
		this.name = new.target.name;
		this.exitCode = exitCode;
	}
}
// 125: the sandbox could not be set up (profile, a required part this host
// cannot enforce, a setup syscall), nothing ran.
class SandboxRefused extends SandboxError {
	constructor(message) { super(message, 125); }
}
// 126: the command exists but could not be executed (the line says whether
// the file mode or the profile is why).
class CommandNotExecutable extends SandboxError {
	constructor(message) { super(message, 126); }
}
// 127: the command was not found on the sandbox's PATH.
class CommandNotFound extends SandboxError {
	constructor(message) { super(message, 127); }
}
const ERRORS = { 125: SandboxRefused, 126: CommandNotExecutable, 127: CommandNotFound };

// process.arch → the directory under bin/ (Linux only: Landlock and seccomp).
const ARCH_DIRS = { x64: 'linux-x64', arm64: 'linux-arm64' };

// The packaged binary for arch (default process.arch).  Throws when this
// package holds none for it, naming what it does hold.
function binaryFor(arch = process.arch, platform = process.platform) {
	const dir = platform === 'linux' && ARCH_DIRS[arch];
	const file = dir && path.join(__dirname, 'bin', dir, '__sandbox');
	if (file && fs.existsSync(file)) return file;
	let held = [];
	try { held = fs.readdirSync(path.join(__dirname, 'bin')); } catch (e) { /* none packaged */ }
	throw new Error(`sandbox-shim: no __sandbox binary for ${platform}-${arch} in this package ` +
		`(it holds: ${held.join(', ') || 'none'}); set SANDBOX to the path of one`);
}

// The binary to run: options.sandbox, else $SANDBOX, else the packaged one.
function binaryPath(options = {}) {
	return options.sandbox || process.env.SANDBOX || binaryFor();
}

// The descriptor the denial report is written to in the shim: stdio[4],
// after stdin, stdout, stderr and the profile (3).
const REPORT_FD = 4;

// A copy of profile naming REPORT_FD as its denial report; the caller's
// object is left as it is.  Throws if the profile names a report itself.
function withReport(profile) {
	if (profile === null || typeof profile !== 'object' || Array.isArray(profile))
		throw new TypeError('sandbox-shim: with options.denials the profile must be an object');
	if (profile.denials !== undefined)
		throw new Error('sandbox-shim: the profile names "denials" and options.denials is set: ' +
			"spawn() makes the report's pipe itself; drop one of the two");
	return { ...profile, denials: { fd: REPORT_FD } };
}

// One report line parsed; a line that is not JSON (a listener killed
// mid-write) as { raw: line }, so that nothing is dropped silently.
function parseDenial(line) {
	try {
		const d = JSON.parse(line);
		if (d !== null && typeof d === 'object' && !Array.isArray(d)) return d;
	} catch (e) { /* below */ }
	return { raw: line };
}

// Read the report from stream into child.denials, emitting 'denial' per
// line.  Read as it comes (flowing mode): the listener never waits for a
// reader, it counts the lines a reader 64 KiB behind would lose.
function readReport(child, stream) {
	child.denials = [];
	let partial = '';
	const take = (line) => {
		const d = parseDenial(line);
		child.denials.push(d);
		child.emit('denial', d);
	};
	stream.setEncoding('utf8');
	stream.on('data', (chunk) => {
		partial += chunk;
		let nl;
		while ((nl = partial.indexOf('\n')) >= 0) {
			const line = partial.slice(0, nl);
			partial = partial.slice(nl + 1);
			take(line);
		}
	});
	stream.on('end', () => { if (partial) take(partial); partial = ''; });
}

// Start argv confined by profile (an object, see profile.d.ts).  options go
// to child_process.spawn, except stdio: [stdin, stdout] (default 'pipe'),
// stderr being read here: the command's lines and the shim's notices are
// copied to options.stderr (default process.stderr), the shim's error line
// is kept for `done`.  options.denials: the denial report on a pipe of this
// process's (stdio[4]; the profile must not name `denials` itself: throws),
// as 'denial' events and `child.denials` (null without it).  Returns the
// ChildProcess with `done`, a promise of { code, signal } (and denials)
// that rejects with a SandboxError if the command never ran.  `done`
// settles once the command has exited and its stdio and report have ended:
// a process it left running holds them (no_survivors prevents that).
function spawn(profile, argv, options = {}) {
	if (!Array.isArray(argv) || argv.length === 0) throw new TypeError('argv must be a non-empty array');
	const { sandbox, stdio, stderr: errOut = process.stderr, denials = false, ...rest } = options;
	const sent = denials ? withReport(profile) : profile;
	const [stdin, stdout] = stdio || ['pipe', 'pipe'];
	// Node's extra 'pipe' descriptors are close-on-exec in this process:
	// only the shim gets the report's write end, and its listener keeps it
	const child = childProcess.spawn(binaryPath({ sandbox }), ['fd:3', '--', ...argv], {
		...rest,
		stdio: denials ? [stdin, stdout, 'pipe', 'pipe', 'pipe'] : [stdin, stdout, 'pipe', 'pipe'],
	});
	child.denials = null;
	if (denials && child.stdio[REPORT_FD]) readReport(child, child.stdio[REPORT_FD]);
	// Written once the shim runs: a profile larger than the pipe buffer
	// would block otherwise.  EPIPE means the shim stopped; its status says why.
	if (child.stdio[3]) {
		child.stdio[3].on('error', () => {});
		child.stdio[3].end(JSON.stringify(sent));
	}
	if (child.stdin) child.stdin.on('error', () => {});
	const errors = [];
	let partial = '';
	child.stderr.setEncoding('utf8');
	child.stderr.on('data', (chunk) => {
		partial += chunk;
		let nl;
		while ((nl = partial.indexOf('\n')) >= 0) {
			const line = partial.slice(0, nl);
			partial = partial.slice(nl + 1);
			if (line.startsWith('__sandbox: ') && !line.startsWith('__sandbox: notice: ')) errors.push(line);
			else errOut.write(line + '\n');
		}
	});
	child.done = new Promise((resolve, reject) => {
		child.on('error', reject); // the shim itself could not be started
		child.on('close', (code, signal) => {
			if (partial) errOut.write(partial);
			// after exec the shim prints nothing: an error line with
			// 125, 126 or 127 means the command never ran
			if (ERRORS[code] && errors.length) reject(new ERRORS[code](errors[errors.length - 1]));
			else resolve(denials ? { code, signal, denials: child.denials } : { code, signal });
		});
	});
	child.done.catch(() => {}); // unobserved: the caller may only watch 'exit'
	return child;
}

// Run the shim with args (profile on fd 3 when given); resolves with
// { code, stdout, stderr }.
function runShim(args, profile, options = {}) {
	return new Promise((resolve, reject) => {
		const stdio = ['ignore', 'pipe', 'pipe'];
		if (profile !== undefined) stdio.push('pipe');
		const child = childProcess.spawn(binaryPath(options), args, { stdio });
		const out = [], err = [];
		child.stdout.on('data', (d) => out.push(d));
		child.stderr.on('data', (d) => err.push(d));
		if (profile !== undefined) {
			child.stdio[3].on('error', () => {});
			child.stdio[3].end(JSON.stringify(profile));
		}
		child.on('error', reject);
		child.on('close', (code) => resolve({
			code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(),
		}));
	});
}

// The last "__sandbox: ..." error line of stderr (not a notice).
function errorLine(stderr) {
	const lines = stderr.split('\n').filter((l) => l.startsWith('__sandbox: ') && !l.startsWith('__sandbox: notice: '));
	return lines.length ? lines[lines.length - 1] : stderr.trim();
}

// The plan __sandbox --check prints for profile, parsed.  It resolves for a
// profile this host would run (plan.refused empty, exit 0) and for one it
// would refuse (plan.refused names each part, exit 125); a profile that is
// not valid has no plan and rejects with SandboxRefused carrying the line.
async function check(profile, options = {}) {
	const r = await runShim(['--check', 'fd:3'], profile, options);
	if ((r.code === 0 || r.code === 125) && r.stdout.trim()) return JSON.parse(r.stdout);
	throw new SandboxRefused(errorLine(r.stderr) || `__sandbox --check exited ${r.code}`);
}

// What this host can enforce (__sandbox --probe), parsed.
async function probe(options = {}) {
	const r = await runShim(['--probe'], undefined, options);
	if (r.code !== 0) throw new SandboxError(errorLine(r.stderr) || `__sandbox --probe exited ${r.code}`, r.code);
	return JSON.parse(r.stdout);
}

module.exports = {
	spawn, check, probe, binaryFor, binaryPath,
	SandboxError, SandboxRefused, CommandNotExecutable, CommandNotFound,
};

#!/usr/bin/env node
// sandbox-shim-mcp — rewrite an MCP host configuration (the `mcpServers`
// object: command, args, env, cwd) so that every server runs under
// __sandbox with a profile of its own.  Usage: see USAGE below.
//
// The same rules are implemented by the Python package
// (python -m sandbox_shim.mcp); tests/packages/mcp-config.t runs both on
// one configuration and requires byte-identical output.  The defaults
// (system trees, variables kept, servers known to need the network) are
// mcp-defaults.json, shared by both.
'use strict';
const fs = require('fs');
const path = require('path');

const USAGE = `usage: sandbox-shim-mcp CONFIG [options]
Print CONFIG (an MCP host configuration with "mcpServers") with every
server wrapped in __sandbox.  The original file is left untouched unless
--in-place is given.
  -o, --output FILE       write the result to FILE instead of stdout
  --in-place              replace CONFIG (a backup is kept as CONFIG.bak)
  --dry-run               print a unified diff, write nothing
  --overrides FILE        per-server profile changes: {"NAME": {...}, "*": {...}};
                          lists are appended, env/unenforced/... merged, other
                          keys replaced; null leaves NAME unwrapped
  --network NAME=MODE     network of one server: off, loopback or on
  --sandbox PATH          the __sandbox to run (default: this package's binary)
`;

class UsageError extends Error {}

function loadDefaults() {
	return JSON.parse(fs.readFileSync(path.join(__dirname, 'mcp-defaults.json'), 'utf8'));
}

const isDir = (p) => { try { return fs.statSync(p).isDirectory(); } catch (e) { return false; } };
const isFile = (p) => { try { return fs.statSync(p).isFile(); } catch (e) { return false; } };
const exists = (p) => { try { fs.statSync(p); return true; } catch (e) { return false; } };
const real = (p) => { try { return fs.realpathSync(p); } catch (e) { return p; } };
const under = (p, tree) => tree === '/' || p === tree || p.startsWith(tree + '/');
const covered = (p, trees) => trees.some((t) => under(p, t));

// The command as the host will start it: absolute, relative to cwd, or
// looked up on PATH (the host's PATH, or the server's own env.PATH).
function resolveCommand(command, env, cwd) {
	if (command.includes('/')) return path.resolve(cwd || process.cwd(), command);
	for (const dir of (env.PATH || '').split(':')) {
		if (!dir) continue;
		const p = path.join(dir, command);
		try { fs.accessSync(p, fs.constants.X_OK); if (isFile(p)) return p; } catch (e) { /* next */ }
	}
	return null;
}

// The tree a program or script is installed in, readable as a whole: a
// Python virtual environment, the project holding a node_modules, the
// nearest package root, the prefix of a bin/ directory, else its directory.
function installRoot(file, home) {
	const parts = file.split('/');
	for (let i = parts.length - 1; i > 1; i--) {
		const dir = parts.slice(0, i).join('/');
		if (isFile(path.join(dir, 'pyvenv.cfg'))) return dir;
	}
	const nm = parts.indexOf('node_modules');
	if (nm > 1) return parts.slice(0, nm).join('/');
	for (let i = parts.length - 1; i > 1; i--) {
		const dir = parts.slice(0, i).join('/');
		if (dir === home) break;
		if (['package.json', 'pyproject.toml', 'go.mod'].some((f) => isFile(path.join(dir, f)))) return dir;
	}
	const dir = path.dirname(file);
	if (path.basename(dir) === 'bin' && path.dirname(dir) !== home && path.dirname(dir) !== '/') return path.dirname(dir);
	return dir;
}

// A path an argument names: "/x", "~/x", or the value of "--flag=/x".
function argPath(arg, home) {
	let v = arg;
	const eq = arg.indexOf('=');
	if (arg.startsWith('-') && eq > 0) v = arg.slice(eq + 1);
	if (v.startsWith('~/') && home) v = home + v.slice(1);
	return v.startsWith('/') ? path.normalize(v).replace(/(.)\/$/, '$1') : null;
}

// The package an argument or command names, without a version suffix.
const packageName = (arg) => arg.replace(/^(@?[^@]+)@[^/]*$/, '$1');

// The default profile of one server, and the reasons behind its choices.
function defaultProfile(name, server, defaults, hostEnv) {
	const env = { ...hostEnv, ...(server.env || {}) };
	const home = env.HOME || '';
	const args = server.args || [];
	const notes = [];
	const readable = defaults.readable.filter(exists);
	const writable = [];
	const addReadable = (p) => { if (!covered(p, readable) && !covered(p, writable)) readable.push(p); };
	const cmd = resolveCommand(server.command, env, server.cwd);
	if (cmd) for (const p of [cmd, real(cmd)]) addReadable(installRoot(p, home));
	else notes.push(`command ${JSON.stringify(server.command)} not found on PATH here`);
	for (const arg of args) {
		const p = argPath(arg, home);
		if (!p || !exists(p)) continue;
		if (isDir(p)) {
			if (p === '/' || p === home || covered(p, defaults.readable)) {
				notes.push(`${p} not made writable (too wide): add it in --overrides if meant`);
				addReadable(p);
			} else if (!covered(p, writable)) writable.push(p);
		} else addReadable(installRoot(p, home));
	}
	if (server.cwd && exists(server.cwd)) addReadable(server.cwd);
	let network = 'off';
	const known = [server.command, ...args].map(packageName).find((a) => defaults.network_on.includes(a));
	const url = args.find((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a));
	if (known) { network = 'on'; notes.push(`network on: ${known} needs it`); }
	else if (url) { network = 'on'; notes.push('network on: an argument is a URL'); }
	const set = {};
	if (path.basename(server.command) === 'npx') {
		// npx resolves the package in its cache (it writes there: an index
		// entry, _npx, logs) and, without the network, must be told to stay
		// offline or it retries for a minute, then fails with EAFNOSUPPORT
		const cache = env.npm_config_cache || env.NPM_CONFIG_CACHE || (home ? path.join(home, '.npm') : '');
		if (cache && isDir(cache)) writable.push(cache);
		else notes.push(`npm cache ${cache || '(no HOME)'} missing: run the server once outside the sandbox first`);
		if (cache) set.npm_config_cache = cache;
		if (network === 'off') set.npm_config_offline = 'true';
		set.npm_config_update_notifier = 'false';
	}
	const keep = [...defaults.env_keep];
	for (const k of Object.keys(server.env || {})) if (!keep.includes(k)) keep.push(k);
	const profile = { readable, writable, network, env: { clear: true, keep } };
	if (Object.keys(set).length) profile.env.set = set;
	return { profile, notes };
}

// Apply an override fragment: lists appended (without duplicates), objects
// merged one level down (their lists appended too), other values replaced.
function merge(profile, fragment) {
	for (const [k, v] of Object.entries(fragment)) {
		const cur = profile[k];
		if (Array.isArray(v) && Array.isArray(cur)) profile[k] = [...cur, ...v.filter((x) => !cur.includes(x))];
		else if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)) {
			const o = { ...cur };
			for (const [k2, v2] of Object.entries(v)) {
				if (Array.isArray(v2) && Array.isArray(o[k2])) o[k2] = [...o[k2], ...v2.filter((x) => !o[k2].includes(x))];
				else if (v2 && typeof v2 === 'object' && !Array.isArray(v2) && o[k2] && typeof o[k2] === 'object') o[k2] = { ...o[k2], ...v2 };
				else o[k2] = v2;
			}
			profile[k] = o;
		} else profile[k] = v;
	}
	return profile;
}

// The configuration with each server wrapped; notes: one line per server.
function wrapConfig(config, opts) {
	if (!config || typeof config.mcpServers !== 'object' || config.mcpServers === null || Array.isArray(config.mcpServers))
		throw new UsageError('no "mcpServers" object in the configuration');
	const overrides = opts.overrides || {};
	const servers = {};
	const notes = [];
	for (const [name, server] of Object.entries(config.mcpServers)) {
		const say = (what) => notes.push(`${name}: ${what}`);
		if (!server || typeof server.command !== 'string' || !server.command) { servers[name] = server; say('no command (a remote server): left as it is'); continue; }
		if (path.basename(server.command) === '__sandbox') { servers[name] = server; say('already runs under __sandbox: left as it is'); continue; }
		if (overrides[name] === null) { servers[name] = server; say('left unwrapped (overrides)'); continue; }
		const { profile, notes: why } = defaultProfile(name, server, opts.defaults, opts.env);
		if (overrides['*']) merge(profile, overrides['*']);
		if (overrides[name]) merge(profile, overrides[name]);
		if (opts.network && opts.network[name]) profile.network = opts.network[name];
		const out = {};
		for (const [k, v] of Object.entries(server)) {
			if (k === 'command') {
				out.command = opts.sandbox;
				out.args = [JSON.stringify(profile), '--', server.command, ...(server.args || [])];
			} else if (k !== 'args') out[k] = v;
		}
		servers[name] = out;
		say([`network ${profile.network}`, `writable ${profile.writable.length ? profile.writable.join(', ') : 'none'}`, ...why].join('; '));
	}
	return { config: { ...config, mcpServers: servers }, notes };
}

// A unified diff of two texts (longest common subsequence of lines, three
// lines of context), the same hunks as the Python implementation.
function unifiedDiff(a, b, nameA, nameB) {
	const A = a.split('\n'), B = b.split('\n');
	if (A[A.length - 1] === '') A.pop();
	if (B[B.length - 1] === '') B.pop();
	const n = A.length, m = B.length;
	const dp = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
	for (let i = n - 1; i >= 0; i--)
		for (let j = m - 1; j >= 0; j--)
			dp[i][j] = A[i] === B[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
	const ops = []; // [op, line, i, j]
	let i = 0, j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && A[i] === B[j]) { ops.push([' ', A[i], i++, j++]); }
		else if (j >= m || (i < n && dp[i + 1][j] >= dp[i][j + 1])) { ops.push(['-', A[i], i++, j]); }
		else { ops.push(['+', B[j], i, j++]); }
	}
	const changes = ops.map((o, k) => (o[0] === ' ' ? -1 : k)).filter((k) => k >= 0);
	if (!changes.length) return '';
	const out = [`--- ${nameA}`, `+++ ${nameB}`];
	const range = (s, l) => (l === 1 ? `${s + 1}` : l === 0 ? `${s},0` : `${s + 1},${l}`);
	let c = 0;
	while (c < changes.length) {
		let last = c;
		while (last + 1 < changes.length && changes[last + 1] - changes[last] <= 6) last++;
		const from = Math.max(0, changes[c] - 3), to = Math.min(ops.length, changes[last] + 4);
		const hunk = ops.slice(from, to);
		const la = hunk.filter((o) => o[0] !== '+').length, lb = hunk.filter((o) => o[0] !== '-').length;
		out.push(`@@ -${range(hunk[0][2], la)} +${range(hunk[0][3], lb)} @@`);
		for (const o of hunk) out.push(o[0] + o[1]);
		c = last + 1;
	}
	return out.join('\n') + '\n';
}

function parseArgs(argv) {
	const o = { network: {} };
	for (let k = 0; k < argv.length; k++) {
		const a = argv[k];
		const val = () => { if (k + 1 >= argv.length) throw new UsageError(`${a} needs a value`); return argv[++k]; };
		if (a === '-o' || a === '--output') o.output = val();
		else if (a === '--in-place') o.inPlace = true;
		else if (a === '--dry-run') o.dryRun = true;
		else if (a === '--overrides') o.overridesFile = val();
		else if (a === '--sandbox') o.sandbox = val();
		else if (a === '--network') {
			const m = /^([^=]+)=(off|loopback|on)$/.exec(val());
			if (!m) throw new UsageError('--network takes NAME=off|loopback|on');
			o.network[m[1]] = m[2];
		} else if (a === '-h' || a === '--help') o.help = true;
		else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
		else if (o.config === undefined) o.config = a;
		else throw new UsageError(`unexpected argument ${a}`);
	}
	if (!o.help && o.config === undefined) throw new UsageError('a CONFIG file is needed');
	if (o.inPlace && o.output) throw new UsageError('--in-place and --output exclude each other');
	return o;
}

// A free backup name: FILE.bak, else FILE.bak.1, .2, ...
function backupName(file) {
	if (!exists(`${file}.bak`)) return `${file}.bak`;
	for (let n = 1; ; n++) if (!exists(`${file}.bak.${n}`)) return `${file}.bak.${n}`;
}

// Write data to file through a temporary file renamed over it, with mode
// (the original's: a configuration holding API keys may be 0600).
function writeAtomic(file, data, mode) {
	const tmp = `${file}.tmp-${process.pid}`;
	fs.writeFileSync(tmp, data, { mode, flag: 'wx' });
	fs.chmodSync(tmp, mode); // the umask must not change it
	fs.renameSync(tmp, file);
}

function main(argv, io = { stdout: process.stdout, stderr: process.stderr, env: process.env }) {
	const say = (l) => io.stderr.write(`sandbox-shim-mcp: ${l}\n`);
	let o;
	try { o = parseArgs(argv); } catch (e) { if (!(e instanceof UsageError)) throw e; say(e.message); io.stderr.write(USAGE); return 2; }
	if (o.help) { io.stdout.write(USAGE); return 0; }
	let raw, text, config, mode, overrides = {};
	try {
		raw = fs.readFileSync(o.config);
		text = raw.toString('utf8');
		mode = fs.statSync(o.config).mode & 0o7777;
		config = JSON.parse(text);
		if (o.overridesFile) overrides = JSON.parse(fs.readFileSync(o.overridesFile, 'utf8'));
	} catch (e) { say(`${e.code ? `${e.path || o.config}: ${e.code}` : `${o.config}: ${e.message}`}`); return 1; }
	let sandbox = o.sandbox;
	if (!sandbox) {
		try { sandbox = require('./index').binaryFor(); } catch (e) { say(e.message); return 1; }
	}
	let res;
	try { res = wrapConfig(config, { sandbox, overrides, network: o.network, defaults: loadDefaults(), env: io.env }); }
	catch (e) { if (!(e instanceof UsageError)) throw e; say(`${o.config}: ${e.message}`); return 1; }
	for (const n of res.notes) say(n);
	const out = JSON.stringify(res.config, null, 2) + '\n';
	if (o.dryRun) { io.stdout.write(unifiedDiff(text, out, o.config, o.inPlace ? o.config : (o.output || '(wrapped)'))); return 0; }
	if (o.inPlace) {
		const bak = backupName(o.config);
		fs.writeFileSync(bak, raw, { mode, flag: 'wx' });
		fs.chmodSync(bak, mode);
		writeAtomic(o.config, out, mode);
		say(`wrote ${o.config} (the original is ${bak})`);
	} else if (o.output) {
		if (real(path.resolve(o.output)) === real(path.resolve(o.config))) { say('--output is CONFIG itself: use --in-place'); return 2; }
		writeAtomic(o.output, out, mode);
		say(`wrote ${o.output}`);
	} else io.stdout.write(out);
	return 0;
}

module.exports = { wrapConfig, defaultProfile, unifiedDiff, merge, loadDefaults, main };
if (require.main === module) process.exitCode = main(process.argv.slice(2));

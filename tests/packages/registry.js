#!/usr/bin/env node
// registry.js TGZ... — a minimal npm registry on 127.0.0.1 for
// tests/packages/mcp-config.t: serves each `npm pack` tarball given (its
// packument at /NAME, the tarball at /NAME/-/FILE), prints its URL on
// stdout once listening, and exits when stdin closes.  The test primes an
// npm cache through it outside the sandbox, as a user's first `npx -y PKG`
// would, so the npx-launched server can then start offline inside.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');
const zlib = require('zlib');

// package.json from a tarball (ustar, gzip), without a tar library
function manifest(tgz) {
	const tar = zlib.gunzipSync(tgz);
	for (let off = 0; off + 512 <= tar.length;) {
		const name = tar.toString('utf8', off, off + 100).replace(/\0.*$/s, '');
		const size = parseInt(tar.toString('utf8', off + 124, off + 136).replace(/\0.*$/s, '').trim() || '0', 8);
		if (!name) break;
		if (name === 'package/package.json') return JSON.parse(tar.toString('utf8', off + 512, off + 512 + size));
		off += 512 + Math.ceil(size / 512) * 512;
	}
	throw new Error('no package/package.json');
}

const pkgs = new Map();
const server = http.createServer((req, res) => {
	const url = decodeURIComponent(req.url.split('?')[0]).slice(1);
	const tar = /^(.+)\/-\/([^/]+)$/.exec(url);
	const p = pkgs.get(tar ? tar[1] : url);
	if (!p) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":"not found"}'); return; }
	if (tar) { res.writeHead(200, { 'content-type': 'application/octet-stream' }); res.end(p.tgz); return; }
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end(JSON.stringify(p.doc));
});
server.listen(0, '127.0.0.1', () => {
	const base = `http://127.0.0.1:${server.address().port}`;
	for (const file of process.argv.slice(2)) {
		const tgz = fs.readFileSync(file);
		const m = manifest(tgz);
		const dist = {
			tarball: `${base}/${m.name}/-/${path.basename(file)}`,
			shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
			integrity: 'sha512-' + crypto.createHash('sha512').update(tgz).digest('base64'),
		};
		pkgs.set(m.name, { tgz, doc: { name: m.name, 'dist-tags': { latest: m.version },
			versions: { [m.version]: { ...m, dist } } } });
	}
	process.stdout.write(base + '/\n');
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));

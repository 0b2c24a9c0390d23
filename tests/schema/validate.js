// validate.js SCHEMA FILE... — validate JSON documents against a JSON Schema
// (draft 2020-12) with ajv in strict mode (a schema using an unknown
// keyword or an ambiguous type is itself an error).  Prints one line per
// document: "valid FILE" or "invalid FILE: LOCATION MESSAGE"; FILE "-"
// reads standard input.  Exit status: 0 when every line was printed (the
// verdicts are for the caller to judge), 2 on a broken schema or document.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv2020 = require(path.join(__dirname, '..', 'node_modules', 'ajv', 'dist', '2020')).default;

const [schemaFile, ...files] = process.argv.slice(2);
if (!schemaFile || files.length === 0) {
	console.error('usage: validate.js SCHEMA FILE...');
	process.exit(2);
}
// strict, but "required" may name a property defined only in a sibling
// branch (user: name XOR uid+gid)
const ajv = new Ajv2020({ strict: true, strictRequired: false });
let validate;
try {
	validate = ajv.compile(JSON.parse(fs.readFileSync(schemaFile, 'utf8')));
} catch (e) {
	console.error(`validate.js: schema ${schemaFile}: ${e.message}`);
	process.exit(2);
}
for (const f of files) {
	let doc;
	try {
		doc = JSON.parse(fs.readFileSync(f === '-' ? 0 : f, 'utf8'));
	} catch (e) {
		console.error(`validate.js: ${f}: ${e.message}`);
		process.exit(2);
	}
	if (validate(doc)) {
		console.log(`valid ${f}`);
	} else {
		const e = validate.errors[0];
		console.log(`invalid ${f}: ${e.instancePath || '/'} ${e.message}`);
	}
}

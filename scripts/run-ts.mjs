#!/usr/bin/env node
// Runs a TypeScript file of this repository in-process, no build: compiles each .ts file on load
// with @swc/core (test/support/swc.options.js, as Jest does) and maps the `nestjs-restap` and
// `restap-client` imports to their sources, as tsconfig.json "paths" and Jest do; then awaits the
// file's exported `main(args)`, if it has one, and exits with the number it returns.
//   node scripts/run-ts.mjs <file.ts> [args...]
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const swc = require('@swc/core');
const SWC_OPTIONS = require('./test/support/swc.options.js');

const SOURCES = { 'nestjs-restap': join(root, 'libs/restap/src'), 'restap-client': join(root, 'libs/restap-client/src') };
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const [name, ...sub] = request.split('/');
  const mapped = SOURCES[name] && join(SOURCES[name], ...sub);
  return resolveFilename.call(this, mapped ?? request, ...rest);
};

Module._extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename });
  module._compile(code, filename);
};

const [file, ...args] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/run-ts.mjs <file.ts> [args...]');
  process.exit(2);
}
const { main } = require(resolve(file));
if (typeof main === 'function') process.exitCode = (await main(args)) ?? 0;

'use strict';
// `node -r ./test/reliability/support/swc-register.js file.ts`: runs the repository's TypeScript
// (the sample agent, fixture apps) in a child process the way Jest does — @swc/core with the same
// decorator settings, and the `nestjs-restap` alias pointing at libs/restap/src.
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const ROOT = path.join(__dirname, '..', '..', '..');
const ALIASES = { 'nestjs-restap': path.join(ROOT, 'libs/restap/src/index.ts') };
const OPTIONS = require('../../support/swc.options');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (ALIASES[request]) return ALIASES[request];
  if (request.startsWith('nestjs-restap/')) request = path.join(ROOT, 'libs/restap/src', request.slice('nestjs-restap/'.length));
  try {
    return resolve.call(this, request, parent, ...rest);
  } catch (error) {
    // Extensionless relative imports of .ts files.
    if (parent && (request.startsWith('.') || path.isAbsolute(request))) {
      const base = path.resolve(path.dirname(parent.filename), request);
      for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
    }
    throw error;
  }
};

Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...OPTIONS, filename });
  module._compile(code, filename);
};

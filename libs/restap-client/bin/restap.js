#!/usr/bin/env node
'use strict';
// Entry point of the `restap` command. Runs the compiled CLI (dist/, built by
// `npx tsc -p libs/restap-client/tsconfig.lib.json`); inside this repository it falls back to
// compiling the TypeScript sources on the fly with @swc/core, so no build step is needed there.
const path = require('node:path');
const fs = require('node:fs');

function loadCli() {
  const compiled = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
  if (fs.existsSync(compiled)) return require(compiled);
  const source = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
  let swc;
  try {
    swc = require('@swc/core');
  } catch {
    process.stderr.write('restap: not built. Run: npx tsc -p libs/restap-client/tsconfig.lib.json\n');
    process.exit(70);
  }
  require.extensions['.ts'] = (module, filename) => {
    const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
  return require(source);
}

loadCli()
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });

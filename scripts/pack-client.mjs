#!/usr/bin/env node
// Builds libs/restap-client (the typed client, the `restap` CLI and the conformance checker) and
// packs it as the installable `restap-client` tarball.
// Usage: node scripts/pack-client.mjs [destination folder, default: the repository root]
// Prints the tarball's absolute path on the last line.
//
// It compiles into a staging copy, never into libs/restap-client/dist: bin/restap.js prefers a
// compiled dist/ over the sources, and a dist/ left in the checkout would go stale as they change.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const client = join(root, 'libs/restap-client');
const destination = resolve(process.argv[2] ?? root);
mkdirSync(destination, { recursive: true });
const staging = mkdtempSync(join(tmpdir(), 'restap-client-pack-'));
try {
  for (const entry of ['package.json', 'README.md', 'bin']) cpSync(join(client, entry), join(staging, entry), { recursive: true });
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(client, 'tsconfig.lib.json'), '--outDir', join(staging, 'dist'), '--sourceMap', 'false'], { stdio: 'inherit' });
  // prepack would compile again: the build above already ran, so skip scripts.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], { cwd: staging, encoding: 'utf8' });
  const [{ filename, files }] = JSON.parse(out);
  console.log(`packed ${files.length} files`);
  console.log(join(destination, filename));
} finally {
  rmSync(staging, { recursive: true, force: true });
}

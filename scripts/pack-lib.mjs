#!/usr/bin/env node
// Builds libs/restap and packs it as the publishable `nestjs-restap` tarball.
// Usage: node scripts/pack-lib.mjs [destination folder, default: the repository root]
// Prints the tarball's absolute path on the last line.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const destination = resolve(process.argv[2] ?? root);
mkdirSync(destination, { recursive: true });
execFileSync(process.execPath, [join(root, 'scripts/build-lib.mjs')], { stdio: 'inherit' });
// The package page's integration guide is the repository README's (one guide, one set of words).
execFileSync(process.execPath, [join(root, 'scripts/package-readme.mjs')], { stdio: 'inherit' });
// prepack would rebuild: the build above already ran, so skip scripts.
const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
  cwd: join(root, 'libs/restap'),
  encoding: 'utf8',
});
const [{ filename, files }] = JSON.parse(out);
console.log(`packed ${files.length} files`);
console.log(join(destination, filename));

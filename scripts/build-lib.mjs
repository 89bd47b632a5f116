#!/usr/bin/env node
// Builds libs/restap into libs/restap/dist (CommonJS + .d.ts) with tsc, from a clean folder so no
// output of a deleted source file is ever published.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'libs/restap');
rmSync(join(lib, 'dist'), { recursive: true, force: true });
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(lib, 'tsconfig.lib.json')], { stdio: 'inherit' });
console.log(`built ${join(lib, 'dist')}`);

import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/test-database';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

const ROOT = join(__dirname, '../..');
const FIXTURE = join(__dirname, 'fixtures/consumer');
/** The peers a host app already has; the consumer links them from this checkout instead of downloading. */
const HOST_PACKAGES = [
  '@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/typeorm', 'typeorm', 'pg',
  'class-validator', 'class-transformer', 'rxjs', '@electric-sql/pglite', '@types/node',
];
/** npm's own settings from a parent `npm test` must not leak into the consumer's npm. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv): string =>
  execFileSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('libs/restap is a real npm package: `nestjs-restap` packs, installs from the tarball and boots in a fresh project', () => {
  let tmp: string;
  let tarball: string;
  let consumer: string;
  let db: TestDatabase | undefined;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'restap-pack-'));
    tarball = run(process.execPath, [join(ROOT, 'scripts/pack-lib.mjs'), tmp], ROOT).trim().split('\n').pop() as string;
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('the tarball holds package.json, README.md and compiled dist (JS + .d.ts), no sources or specs', () => {
    expect(tarball).toBe(join(tmp, 'nestjs-restap-0.1.0.tgz'));
    const files = run('tar', ['-tzf', tarball], tmp).trim().split('\n');
    expect(files).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts']));
    expect(files.filter((f) => !/^package\/(package\.json|README\.md|dist\/.+\.(js|d\.ts))$/.test(f))).toEqual([]);
    expect(files.filter((f) => /\.spec\.|\/src\//.test(f))).toEqual([]);
  });

  it('every package the compiled code requires is a declared dependency or peer dependency', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'libs/restap/package.json'), 'utf8'));
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    const required = new Set<string>();
    for (const file of filesUnder(join(ROOT, 'libs/restap/dist')).filter((f) => f.endsWith('.js'))) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/require\("([^".][^"]*)"\)/g)) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!spec.startsWith('node:') && !builtinModules.includes(name)) required.add(name);
      }
    }
    expect([...required].filter((name) => !declared.has(name))).toEqual([]);
    expect(manifest).toMatchObject({ name: 'nestjs-restap', version: '0.1.0', main: './dist/index.js', types: './dist/index.d.ts' });
  });

  it('a project outside the repository installs the tarball (from the npm cache when it can), type-checks against it and serves the catalog', async () => {
    consumer = join(tmp, 'consumer');
    mkdirSync(consumer);
    for (const file of ['package.json', 'tsconfig.json', 'main.ts']) copyFileSync(join(FIXTURE, file), join(consumer, file));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--legacy-peer-deps', tarball], consumer);
    for (const name of HOST_PACKAGES) {
      mkdirSync(dirname(join(consumer, 'node_modules', name)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', name), join(consumer, 'node_modules', name), 'dir');
    }
    run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], consumer);

    db = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    const out = run(process.execPath, ['out/main.js'], consumer, { ...cleanEnv, DATABASE_URL: db?.url ?? '' });
    const result = JSON.parse(out.trim().split('\n').pop() as string);

    expect(result.resolved).toBe(join(consumer, 'node_modules/nestjs-restap/dist/index.js'));
    expect(result.status).toBe(200);
    expect(result.catalog.agent).toEqual({ name: 'Packed Agent' });
    const shout = result.catalog.capabilities.find((c: { id: string }) => c.id === 'text.shout');
    expect(shout).toMatchObject({
      method: 'POST',
      endpoint: '/shout',
      input_schema: { type: 'object', properties: { text: { type: 'string', maxLength: 200 } }, required: ['text'] },
    });
    expect(result.talk).toMatchObject({ status: 200, body: { reply: 'HELLO' } });
    expect(result.playground).toEqual({ title: 'RESTAP playground', entry: 200, type: 'text/javascript; charset=utf-8' });
  });

  it('an ESM host (`"type": "module"`, as `nest new` scaffolds) imports the README\'s names from the installed package (issue 40, item 1)', () => {
    // Node's ESM loader sees the CommonJS build's named exports only when its static analysis finds them.
    const names = ['RestapModule', 'Capability', 'Talk', 'News', 'RESTAP_ENTITIES', 'RESTAP_MIGRATIONS', 'RestapExpressAdapter', 'openAiToolLoop', 'RestapExceptionFilter'];
    const esm = join(consumer, 'esm-host');
    mkdirSync(esm);
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-host', private: true, type: 'module' }));
    symlinkSync(join(consumer, 'node_modules'), join(esm, 'node_modules'), 'dir');
    writeFileSync(join(esm, 'main.js'), `import { ${names.join(', ')} } from 'nestjs-restap';\nconsole.log(JSON.stringify({ ${names.map((n) => `${n}: typeof ${n}`).join(', ')} }));\n`);
    const types = JSON.parse(run(process.execPath, ['main.js'], esm).trim());
    expect(Object.entries(types).filter(([, type]) => type === 'undefined')).toEqual([]);
  });
});

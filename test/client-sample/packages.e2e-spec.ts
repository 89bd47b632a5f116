import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestapClient, skillName, type CatalogPackage } from 'restap-client';
import { CLIENT_PACKAGE, CLIENT_TARBALL, PLUGIN_PACKAGE } from '../../apps/sample-agent/src/sample.packages';
import { renderSampleSkill, SAMPLE_PLUGIN_DIR } from '../../scripts/sample-skill';
import { startSample, useSampleAgent, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// Packing the client compiles it (tsc): up to a minute on a loaded machine.
jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..');
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8'));
/** npm's own settings from a parent `npm test` must not leak into the child npm. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, env: cleanEnv, encoding: 'utf8', timeout: 180_000, stdio: ['ignore', 'pipe', 'pipe'] });
/** For commands that talk to the agent, which runs in this process: its event loop must stay free. */
const runAsync = async (cmd: string, args: string[], cwd: string): Promise<string> =>
  (await promisify(execFile)(cmd, args, { cwd, env: cleanEnv, encoding: 'utf8', timeout: 180_000 })).stdout;

describe('Optional Packages: what the sample advertises exists in this repository (spec, "Optional Packages")', () => {
  const agent = useSampleAgent();
  let packages: CatalogPackage[];

  beforeAll(async () => {
    packages = (await RestapClient.discover(agent.url)).catalog.packages ?? [];
  });

  it('without the client tarball in its packages folder the sample does not advertise the client: only the plugin', () => {
    expect(packages).toEqual([PLUGIN_PACKAGE]);
  });

  it('claude-plugin: its path is a Claude Code plugin (.claude-plugin/plugin.json, skills/<name>/SKILL.md) of the same version', () => {
    const pkg = PLUGIN_PACKAGE;
    expect(pkg).toMatchObject({ skill_file: 'SKILL.md', path: 'apps/sample-agent/plugin' });
    const dir = join(ROOT, String(pkg.path));
    expect(dir).toBe(SAMPLE_PLUGIN_DIR);
    const manifest = readJson(join(dir, '.claude-plugin', 'plugin.json'));
    const name = skillName('Text Analysis Agent');
    expect(manifest).toMatchObject({ name, version: pkg.version, description: expect.any(String) });
    const skill = readFileSync(join(dir, 'skills', name, String(pkg.skill_file)), 'utf8');
    expect(skill).toMatch(new RegExp(`^---\\nname: ${name}\\ndescription: ".+"\\n---\\n`));
  });

  it('the committed SKILL.md is what `restap skill` generates from the current sample catalog', async () => {
    const { file, markdown } = await renderSampleSkill(agent.url);
    expect(existsSync(file)).toBe(true);
    try {
      expect(readFileSync(file, 'utf8')).toBe(markdown);
    } catch (error) {
      (error as Error).message = `${file} is stale: regenerate it with \`npm run skill:sample\` and commit it.\n\n${(error as Error).message}`;
      throw error;
    }
  });
});

describe('npm-package: the client the catalog advertises installs with the catalog\'s own install line (no registry)', () => {
  let tmp: string;
  let tarball: string;
  let db: TestDatabase;
  let agent: RunningApp;
  let advertised: CatalogPackage;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'restap-client-pack-'));
    const packages = join(tmp, 'packages');
    tarball = run(process.execPath, [join(ROOT, 'scripts/pack-client.mjs'), packages], ROOT).trim().split('\n').pop() as string;
    db = await createTestDatabase();
    agent = await startSample(db.target, { packagesDir: packages });
    const catalog = (await RestapClient.discover(agent.url)).catalog;
    advertised = (catalog.packages ?? []).find((p) => p.type === 'npm-package') as CatalogPackage;
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('`npm run pack:client` writes restap-client-<version>.tgz: package.json, README, bin and compiled dist, no sources or specs', () => {
    const manifest = readJson(join(ROOT, 'libs/restap-client/package.json'));
    expect(tarball).toBe(join(tmp, 'packages', `restap-client-${String(manifest.version)}.tgz`));
    expect(CLIENT_TARBALL).toBe(`restap-client-${String(manifest.version)}.tgz`);
    const files = run('tar', ['-tzf', tarball], tmp).trim().split('\n');
    expect(files).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/bin/restap.js', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/cli/main.js']));
    expect(files.filter((f) => !/^package\/(package\.json|README\.md|bin\/restap\.js|dist\/.+\.(js|d\.ts))$/.test(f))).toEqual([]);
    expect(files.filter((f) => /\.spec\.|\/src\/|\/testing\//.test(f))).toEqual([]);
  });

  it('with the tarball in its packages folder the sample advertises the client, served by the agent itself', () => {
    expect(advertised).toEqual(CLIENT_PACKAGE);
    expect(advertised).toMatchObject({ package: 'restap-client', tarball: `/packages/${CLIENT_TARBALL}`, install: `npm install <agent-url>/packages/${CLIENT_TARBALL}` });
    expect(advertised.version).toBe(readJson(join(ROOT, 'libs/restap-client/package.json')).version);
  });

  it('GET <tarball> answers the packed bytes; any other file under /packages is 404', async () => {
    const res = await fetch(`${agent.url}${String(advertised.tarball)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(tarball))).toBe(true);
    expect((await fetch(`${agent.url}/packages/package.json`)).status).toBe(404);
    expect((await fetch(`${agent.url}/packages/..%2F..%2Fpackage.json`)).status).toBe(404);
  });

  it('a project outside the repository runs the install line (<agent-url> filled in); its `restap discover` works and prints that line', async () => {
    const project = join(tmp, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh-project', version: '1.0.0', private: true }));
    const install = String(advertised.install).replace('<agent-url>', agent.url).split(' ');
    expect(install.slice(0, 2)).toEqual(['npm', 'install']);
    // The client's own dependencies (ajv, ajv-formats, eventsource-parser) come from npm's cache when it has them.
    await runAsync('npm', [...install.slice(1), '--prefer-offline', '--no-audit', '--no-fund'], project);
    expect(readJson(join(project, 'node_modules/restap-client/package.json')).version).toBe(advertised.version);
    const out = await runAsync(process.execPath, [join(project, 'node_modules/.bin/restap'), 'discover', agent.url], project);
    expect(out).toContain('Text Analysis Agent');
    expect(out).toContain(`install: npm install ${agent.url}/packages/${CLIENT_TARBALL}`);
  });
});

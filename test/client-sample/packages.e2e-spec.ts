import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RestapClient, skillName, type CatalogPackage } from 'restap-client';
import { SAMPLE_PACKAGES } from '../../apps/sample-agent/src/sample.packages';
import { renderSampleSkill, SAMPLE_PLUGIN_DIR } from '../../scripts/sample-skill';
import { useSampleAgent } from '../support/sample-app';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8'));

describe('Optional Packages: what the sample advertises exists in this repository (spec, "Optional Packages")', () => {
  const agent = useSampleAgent();
  let packages: CatalogPackage[];

  beforeAll(async () => {
    packages = (await RestapClient.discover(agent.url)).catalog.packages ?? [];
  });

  const byType = (type: string): CatalogPackage => {
    const found = packages.find((p) => p.type === type);
    if (!found) throw new Error(`no ${type} package in the catalog: ${JSON.stringify(packages)}`);
    return found;
  };

  it('serves SAMPLE_PACKAGES verbatim, each with the required name and type', () => {
    expect(packages).toEqual(SAMPLE_PACKAGES);
    for (const pkg of packages) expect(pkg).toEqual(expect.objectContaining({ name: expect.any(String), type: expect.any(String) }));
  });

  it('npm-package: restap-client on npm, typescript, with a version range the package in its path satisfies', () => {
    const pkg = byType('npm-package');
    expect(pkg).toMatchObject({ package: 'restap-client', registry: 'npm', language: 'typescript', install: 'npm install restap-client' });
    const manifest = readJson(join(ROOT, String(pkg.path), 'package.json'));
    expect(manifest.name).toBe('restap-client');
    expect(manifest.bin).toEqual({ restap: './bin/restap.js' });
    expect(pkg.version).toBe(`^${String(manifest.version)}`);
  });

  it('claude-plugin: its path is a Claude Code plugin (.claude-plugin/plugin.json, skills/<name>/SKILL.md) of the same version', () => {
    const pkg = byType('claude-plugin');
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

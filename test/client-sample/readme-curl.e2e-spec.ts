import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RestapClient, type CatalogCapability } from 'restap-client';
import { useSampleAgent } from '../support/sample-app';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const READMES = ['README.md', 'apps/sample-agent/README.md'];
/** Routes of the sample that are not capabilities: discovery, Swagger, health, served packages. */
const NOT_CAPABILITIES = /^\/(\.well-known\/(restap|agent-card)\.json|docs(-json)?|health\/(live|ready)|packages\/[\w.-]+)$/;

/** An endpoint as a pattern: `/notes/{id}` matches `/notes/1` (a path parameter filled in). */
const servedAt = (endpoint: string): RegExp => new RegExp(`^${endpoint.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);

interface CurlCall { readme: string; line: number; method: string; path: string }

/** Each `curl` of a README with a literal http://127.0.0.1:3000/<path> URL (not one read from the catalog). */
function curlCalls(readme: string): CurlCall[] {
  return readFileSync(join(ROOT, readme), 'utf8').split('\n').flatMap((text, i) => {
    const url = /curl\b.*?http:\/\/127\.0\.0\.1:3000(\/[^\s'"?]*)/.exec(text);
    if (!url || text.includes('$')) return [];
    const method = /-X\s+([A-Z]+)/.exec(text)?.[1] ?? (/\s-d\s/.test(text) ? 'POST' : 'GET');
    return [{ readme, line: i + 1, method, path: url[1] }];
  });
}

describe('The READMEs\' curl examples use the paths the sample\'s catalog gives (no prefix in the sample)', () => {
  const agent = useSampleAgent();
  let capabilities: CatalogCapability[];

  beforeAll(async () => {
    capabilities = (await RestapClient.discover(agent.url)).catalog.capabilities;
  });

  it('every literal curl URL is a catalog endpoint with its method (path parameters filled in), or discovery / Swagger / health / a served package', () => {
    const calls = READMES.flatMap(curlCalls);
    expect(calls.length).toBeGreaterThan(3);
    const unknown = calls.filter(
      (c) => !NOT_CAPABILITIES.test(c.path) && !capabilities.some((cap) => servedAt(cap.endpoint).test(c.path) && cap.method === c.method),
    );
    expect(unknown).toEqual([]);
  });
});

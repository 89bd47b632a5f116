import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// No Docker engine runs in CI: these read the files against what the agent does on SIGTERM.
const ROOT = join(__dirname, '../..');
const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The `agent:` service block of docker-compose.yml (up to the next top-level or service key). */
const agentService = (): string => {
  const match = /^ {2}agent:\n((?: {4}.*\n|\s*\n)+)/m.exec(compose);
  if (!match) throw new Error('docker-compose.yml has no agent service');
  return match[1];
};

const seconds = (value: string): number => {
  const match = /^(\d+)(ms|s|m)$/.exec(value.trim());
  if (!match) throw new Error(`unreadable duration ${value}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 'ms' | 's' | 'm'];
};

describe('docker compose and the image (Shutdown: open turns finish within RESTAP_SHUTDOWN_GRACE_MS, then are stored)', () => {
  it('the agent\'s stop_grace_period is longer than RESTAP_SHUTDOWN_GRACE_MS, with room to store the ended turns and close', () => {
    const service = agentService();
    const grace = /stop_grace_period:\s*(\S+)/.exec(service)?.[1];
    // The environment may come from the shared `x-agent-env` anchor that every agent service uses.
    const shutdownMs = /RESTAP_SHUTDOWN_GRACE_MS:\s*"?(\d+)"?/.exec(service)?.[1] ?? /^x-agent-env:[^\n]*\n(?: {2}.*\n)*? {2}RESTAP_SHUTDOWN_GRACE_MS:\s*"?(\d+)"?/m.exec(compose)?.[1];
    expect({ grace, shutdownMs }).toEqual({ grace: expect.any(String), shutdownMs: expect.any(String) });
    expect(seconds(grace as string)).toBeGreaterThanOrEqual(Number(shutdownMs) / 1000 + 5);
  });

  it('the image declares no VOLUME, so running it with DATABASE_URL creates no anonymous /data volume', () => {
    expect(dockerfile).not.toMatch(/^\s*VOLUME\b/m);
    expect(compose).toMatch(/DATABASE_URL: postgres:\/\//);
  });
});

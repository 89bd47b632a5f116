import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const SECRETS = { 'agent-client': 'agent-secret', 'echo-client': 'echo-secret', 'short-client': 'short-secret', 'opaque-client': 'opaque-secret' } as const;

/** A running local authorization server (test/support/oidc-server.mjs: oidc-provider on loopback). */
export interface LocalAuthorizationServer {
  issuer: string;
  /** A client-credentials access token (a JWT) for `resource`, with `scope` if given. */
  token(client: keyof typeof SECRETS, resource: string, scope?: string): Promise<string>;
  /** Replaces the signing key (a new kid); the old one leaves the JWKS. */
  rotate(): Promise<void>;
  stop(): Promise<void>;
}

export const CLIENT_SECRETS = SECRETS;

/** Starts oidc-provider in a child process (it is ESM-only) and waits for its issuer URL. */
export async function startAuthorizationServer(): Promise<LocalAuthorizationServer> {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'oidc-server.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const issuer = await new Promise<string>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`oidc-server exited with ${code}: ${stderr}`)));
  });
  return {
    issuer,
    async token(client, resource, scope) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) });
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client}:${SECRETS[client]}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const json = (await res.json()) as { access_token?: string };
      if (!res.ok || !json.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(json)}`);
      return json.access_token;
    },
    rotate: () =>
      new Promise<void>((resolve) => {
        lines.once('line', () => resolve());
        child.stdin!.write('rotate\n');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin!.end();
        setTimeout(() => child.kill('SIGTERM'), 2000).unref();
      }),
  };
}

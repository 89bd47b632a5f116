import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const SECRETS = { 'agent-client': 'agent-secret', 'echo-client': 'echo-secret', 'short-client': 'short-secret', 'brief-client': 'brief-secret', 'opaque-client': 'opaque-secret' } as const;

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

/** A client registered at the test authorization server besides its fixed ones (oidc-provider client metadata). */
export type ExtraClient = Record<string, unknown> & { client_id: string };

/**
 * Starts oidc-provider in a child process (it is ESM-only) and waits for its issuer URL.
 * `extraClients`: more clients, e.g. a public client whose redirect URI is the agent's playground.
 */
export async function startAuthorizationServer(extraClients: ExtraClient[] = []): Promise<LocalAuthorizationServer> {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'oidc-server.mjs')], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, OIDC_EXTRA_CLIENTS: JSON.stringify(extraClients) },
  });
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

/**
 * Plays the user's browser through oidc-provider's development login and consent pages: follows
 * the authorization URL's redirects with the cookies they set, posts the login (`login`) and the
 * consent, and returns the redirect to the client's callback (with `code`, `state`, `iss`).
 */
export async function signInAs(authorizationUrl: URL, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let method: 'GET' | 'POST' = 'GET';
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.pathname === '/callback') return next;
      url = next;
      method = 'GET';
      body = undefined;
      continue;
    }
    const page = await res.text();
    if (!url.pathname.startsWith('/interaction/')) throw new Error(`unexpected page at ${url.href}: ${res.status} ${page.slice(0, 200)}`);
    // The login form has a `login` field; the consent form does not.
    body = new URLSearchParams(page.includes('name="login"') ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' });
    method = 'POST';
  }
  throw new Error('the sign-in did not reach the callback');
}

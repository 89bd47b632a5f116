import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const REGISTER = join(__dirname, 'swc-register.js');
const MAIN = join(ROOT, 'apps/sample-agent/src/main.ts');
/** The sample as `npm run build` leaves it (what `npm start` and the Dockerfile run). */
export const BUILT_MAIN = join(ROOT, 'dist/apps/sample-agent/apps/sample-agent/src/main.js');

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The sample agent running in its own process (as `npm start` runs it), for signal and crash tests. */
export interface ChildAgent {
  url: string;
  process: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and signal, or rejects after `timeoutMs`. */
  exited(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs it if it is still running (cleanup). */
  kill(): void;
}

/**
 * Starts apps/sample-agent/src/main.ts with `env` on a free loopback port (or with `built`, the built
 * sample: real ESM `import()` where swc-register would turn it into `require`); resolves once discovery answers.
 */
export async function startChildAgent(env: Record<string, string>, startTimeoutMs = 60_000, options: { built?: boolean } = {}): Promise<ChildAgent> {
  const port = await freePort();
  const child = spawn(process.execPath, options.built ? [BUILT_MAIN] : ['-r', REGISTER, MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const agent: ChildAgent = {
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    exited: (timeoutMs) =>
      Promise.race([
        exit,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`agent still running after ${timeoutMs} ms:\n${output}`)), timeoutMs).unref()),
      ]),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`agent exited early (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${agent.url}/.well-known/restap.json`)).ok) return agent;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      agent.kill();
      throw new Error(`agent did not start within ${startTimeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

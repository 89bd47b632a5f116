import { execFile } from 'node:child_process';

/** What one `fetch` in the other process got: the answer, or the error it failed with. */
export interface FetchOutcome {
  status?: number;
  /** The answer's body, as text. */
  body?: string;
  /** Why `fetch` failed (its `cause`, e.g. `Error: write EPIPE`). */
  error?: string;
}

// Runs in a process of its own: on loopback inside one process the server's reset never raced the
// client's read (fetch read the 413 either way), across two it does, as in production.
const SCRIPT = `
const [url, bytes, contentType, tries] = process.argv.slice(1);
(async () => {
  const body = Buffer.alloc(Number(bytes), 0x61);
  const outcomes = [];
  for (let i = 0; i < Number(tries); i++) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType, 'a2a-version': '1.0' }, body });
      outcomes.push({ status: res.status, body: await res.text() });
    } catch (error) {
      outcomes.push({ error: String(error.cause ?? error) });
    }
  }
  process.stdout.write(JSON.stringify(outcomes));
})();
`;

/**
 * POSTs a body of `bytes` bytes to `url` with Node's own `fetch` (undici, as our client uses it),
 * `tries` times one after the other, from another Node process; resolves with each outcome.
 */
export function fetchFromAnotherProcess(url: string, bytes: number, options: { contentType?: string; tries?: number } = {}): Promise<FetchOutcome[]> {
  const args = ['-e', SCRIPT, url, String(bytes), options.contentType ?? 'application/json', String(options.tries ?? 1)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 60_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as FetchOutcome[]);
    });
  });
}

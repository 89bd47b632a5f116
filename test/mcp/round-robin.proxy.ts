import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A load balancer for tests: each request goes to the next backend in turn, no stickiness. */
export interface RoundRobin {
  url: string;
  /** Which backend (index) served each request, in order. */
  served: number[];
  close(): Promise<void>;
}

/** Forwards every HTTP request to the backends in turn, streaming bodies both ways (SSE included). */
export async function startRoundRobin(backends: string[]): Promise<RoundRobin> {
  const served: number[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next++ % backends.length;
    served.push(index);
    const target = new URL(req.url ?? '/', backends[index]);
    const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

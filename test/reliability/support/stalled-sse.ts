import { connect, type Socket } from 'node:net';

/** A POST /talk SSE stream whose client stopped reading right after `message.start`. */
export interface StalledTalk {
  socket: Socket;
  /** The `message.start` frame's data. */
  start: { id: string; session_id?: string };
}

/**
 * Opens a /talk stream on a raw socket, reads until the `message.start` frame, then stops reading
 * (`socket.pause()`: the kernel's buffers fill and the server's writes wait, as with a client
 * that hangs without closing). Rejects after `timeoutMs` without a `message.start`.
 */
export function openStalledTalk(base: string, message: string, timeoutMs = 10_000): Promise<StalledTalk> {
  const url = new URL(base);
  const body = JSON.stringify({ message });
  const head = [
    'POST /talk HTTP/1.1',
    `Host: ${url.host}`,
    'Content-Type: application/json',
    'Accept: text/event-stream',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`${head}\r\n\r\n${body}`));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no message.start within ${timeoutMs} ms: ${received.slice(0, 300)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      received += chunk.toString('utf8');
      const start = /event: message\.start\ndata: (.*)\n/.exec(received);
      if (!start) return;
      clearTimeout(timer);
      socket.pause();
      socket.off('data', onData);
      resolve({ socket, start: JSON.parse(start[1]) as StalledTalk['start'] });
    };
    socket.on('data', onData);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

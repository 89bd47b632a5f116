import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/** How long, and how much of an unread body, a lingering close reads and drops before it closes anyway. */
export interface LingeringCloseLimits {
  /** Longest the socket stays open after the answer, ms. */
  lingeringCloseMs: number;
  /** Most bytes of the body read and dropped once the refusal is decided. */
  lingeringCloseBytes: number;
}

/**
 * Readies `res` for an answer written before its request's body was read (a refusal: 413, 415,
 * 429, 503): `Connection: close`, then, once the answer is out, a lingering close. A socket closed
 * with bytes still unread makes the kernel send a reset, and a client still writing its body
 * (Node's fetch, our own client) then fails with EPIPE instead of reading the answer already on
 * its way. So, as nginx does, the write side is shut once the answer is out (the client reads it
 * and sees the stream end) and what the client still sends is read and dropped until its body
 * ends or it hangs up — or `lingeringCloseBytes` were dropped, or `lingeringCloseMs` passed since
 * the answer (a slow sender cannot hold the socket); then the socket is destroyed. A request whose
 * body has fully arrived is closed at once, as before. Costs nothing unless called: refusals only.
 *
 * Call it before writing the answer, e.g. `lingeringClose(res, options.limits); writeRestapError(res, error)`.
 */
export function lingeringClose(res: ServerResponse, limits: LingeringCloseLimits): void {
  if (res.headersSent) return;
  res.setHeader('Connection', 'close');
  const { socket, req } = res;
  if (!socket || req.complete || Object.prototype.hasOwnProperty.call(socket, 'destroySoon')) return;
  // The rest of the body is read into nothing from now on, up to the byte bound. Reading it here
  // (not on the socket) keeps Node's HTTP parser in charge of the socket's reads.
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limits.lingeringCloseBytes) socket.destroy();
  });
  // Node ends a `Connection: close` response with `socket.destroySoon()` once the answer is written
  // (_http_server's resOnFinish); this one socket lingers instead. It serves no further request.
  socket.destroySoon = () => linger(socket, req, limits);
}

function linger(socket: Socket, req: IncomingMessage, limits: LingeringCloseLimits): void {
  if (req.complete || socket.destroyed) return Socket.prototype.destroySoon.call(socket);
  socket.end(); // the answer is complete: the client may read it and see the stream end
  const close = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, limits.lingeringCloseMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // All of the body has arrived: nothing is left unread, the close is clean.
  req.once('end', close);
}

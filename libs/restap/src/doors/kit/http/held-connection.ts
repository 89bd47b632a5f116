import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The parts of node:http's per-connection parser (`socket.parser`, not public) that releasing it uses. */
interface ConnectionParser {
  _consumed?: boolean;
  incoming?: unknown;
  unconsume(): void;
  remove(): void;
  close(): void;
}

/**
 * Gives back the HTTP parser of a connection held by a long response (an idle SSE stream, a held
 * news poll) whose request has been read whole. node:http keeps a parser per connection for its
 * whole life, and Node 24's native parser is several KB of memory: most of what an idle
 * connection costs the process, more than the module's own state. The connection then serves no
 * further request: the response says `Connection: close` when its head is not out yet, otherwise
 * the socket is closed once the response has ended (a server may close a persistent connection
 * between responses). What the client sends meanwhile is read and dropped, so its hang-up is still
 * seen at once. Does nothing when the request is not read whole, or on a server without the
 * parser this expects (another Node version, another HTTP stack).
 *
 * @example
 * releaseParser(res); // a poll that will be held for seconds
 */
export function releaseParser(res: ServerResponse): void {
  const { socket, req } = res;
  const parser = (socket as (Socket & { parser?: ConnectionParser | null }) | null)?.parser;
  if (!socket || socket.destroyed || !req.complete || !isParser(parser) || parser.incoming !== req) return;
  if (res.headersSent) res.once('finish', () => socket.destroySoon());
  else res.setHeader('Connection', 'close');
  if (parser._consumed) parser.unconsume();
  parser.remove();
  parser._consumed = false;
  parser.incoming = null;
  // As node:http frees a parser: off the socket first (a closed socket frees `socket.parser`, now
  // none), deleted once the current call stack has unwound.
  (socket as Socket & { parser?: ConnectionParser | null }).parser = null;
  setImmediate(() => parser.close());
}

function isParser(parser: ConnectionParser | null | undefined): parser is ConnectionParser {
  return typeof parser?.unconsume === 'function' && typeof parser.remove === 'function' && typeof parser.close === 'function';
}

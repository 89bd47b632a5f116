import type { Socket } from 'node:net';
import { SyntheticRequest } from './synthetic-http';

const signals = new WeakMap<object, AbortSignal>();

/**
 * The AbortSignal of a capability call, for a handler that takes `@Req() req`: aborted when a door's
 * call is cancelled (an MCP `tasks/cancel`, an A2A `CancelTask`), times out or loses its caller;
 * for a direct HTTP request, when its connection closes. A long-running capability
 * (`@Capability({ task: true })`) passes it to what it awaits and stops when it fires.
 *
 * @example
 * async export(@Req() req: Request) {
 *   const signal = capabilitySignal(req);
 *   for (const note of notes) { signal.throwIfAborted(); await summarise(note, { signal }); }
 * }
 */
export function capabilitySignal(req: object): AbortSignal {
  if (req instanceof SyntheticRequest) return req.signal;
  let signal = signals.get(req);
  if (signal) return signal;
  const controller = new AbortController();
  signal = controller.signal;
  signals.set(req, signal);
  const socket = (req as { socket?: Socket }).socket;
  if (!socket || socket.destroyed) controller.abort(new Error('The client went away.'));
  else socket.once('close', () => controller.abort(new Error('The client went away.')));
  return signal;
}

import type { TalkContext } from 'nestjs-restap';

/** The message that makes the bench responder hold its stream open until the client leaves. */
export const BENCH_IDLE_MESSAGE = 'bench:idle';

/**
 * `RESTAP_BENCH=1`: answers at once, so benchmarks measure the module rather than a model.
 * `bench:idle` produces nothing until the client disconnects (idle-stream and heartbeat benches).
 */
export function benchReply(ctx: TalkContext): string | Promise<string> {
  if (ctx.message !== BENCH_IDLE_MESSAGE) return 'ok';
  return new Promise((resolve) => {
    if (ctx.signal.aborted) resolve('');
    else ctx.signal.addEventListener('abort', () => resolve(''), { once: true });
  });
}

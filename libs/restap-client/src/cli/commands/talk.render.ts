import type { RestapClient } from '../../restap.client';
import type { TalkEvent } from '../../interfaces/talk.interface';
import type { CliContext } from '../cli.io';

/** What one rendered turn produced. */
export interface RenderedTurn {
  sessionId?: string;
  failed: boolean;
}

/** One streamed description of a presentational event for stderr, or nothing to show. */
function describeEvent(event: TalkEvent): string | undefined {
  switch (event.event) {
    case 'status':
      return `· ${event.message ?? event.text ?? 'working…'}`;
    case 'tool.start':
      return `⚙ ${event.name ?? 'tool'}…`;
    case 'tool.end':
      return `⚙ ${event.name ?? 'tool'} done`;
    case 'artifact':
      return `▣ artifact ${JSON.stringify(event).slice(0, 80)}`;
    default:
      return undefined;
  }
}

/**
 * Streams one turn: deltas go to stdout the moment they arrive, progress hints dimmed to stderr,
 * unknown events are ignored (spec: clients MUST safely ignore them).
 */
export async function renderStreamedTurn(client: RestapClient, message: string, ctx: CliContext): Promise<RenderedTurn> {
  const stream = client.talkStream(message, { signal: ctx.io.signal });
  let atLineStart = true;
  let failed = false;
  for await (const event of stream) {
    if (event.event === 'message.delta') {
      ctx.io.stdout.write(event.text);
      atLineStart = event.text.endsWith('\n');
      continue;
    }
    if (event.event === 'error') {
      failed = true;
      ctx.note(ctx.err.fail(`error: ${event.message}`));
      continue;
    }
    const hint = describeEvent(event);
    if (hint) ctx.note(ctx.err.dim(hint));
  }
  if (!atLineStart) ctx.io.stdout.write('\n');
  return { sessionId: stream.sessionId, failed };
}

/** The whole reply at once (`--no-stream`). */
export async function renderJsonTurn(client: RestapClient, message: string, ctx: CliContext): Promise<RenderedTurn> {
  const result = await client.talk(message, { signal: ctx.io.signal });
  ctx.print(result.reply);
  return { sessionId: result.sessionId, failed: false };
}

import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { RestapError } from '../../errors/restap.error';
import { RestapClient } from '../../restap.client';
import { clientOptions, COMMON_OPTIONS, requireUrl, usage } from '../cli.args';
import { EXIT, UsageError, type CliContext } from '../cli.io';
import { renderJsonTurn, renderStreamedTurn, type RenderedTurn } from './talk.render';

export const TALK_USAGE = 'restap talk <url> ["message"] [--session ID] [--json] [--no-stream]';

/**
 * `restap talk <url> "message"`: one turn, streamed by default. Without a message: a chat loop
 * on stdin that keeps the session between turns (`/new` starts over, `/exit` or EOF ends).
 */
export async function talkCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      options: { ...COMMON_OPTIONS, session: { type: 'string' }, json: { type: 'boolean' }, 'no-stream': { type: 'boolean' } },
      allowPositionals: true,
    }),
  );
  const url = requireUrl(positionals, TALK_USAGE);
  if (positionals.length > 2) throw new UsageError(`quote the message: ${TALK_USAGE}`);
  const client = await RestapClient.discover(url, { ...clientOptions(ctx, values), sessionId: values.session });
  const message = positionals[1];

  if (message !== undefined && values.json) {
    const result = await client.talk(message, { signal: ctx.io.signal });
    ctx.print(JSON.stringify({ reply: result.reply, session_id: result.sessionId, message_id: result.messageId }, null, 2));
    return EXIT.OK;
  }
  const turn = (text: string): Promise<RenderedTurn> =>
    values['no-stream'] ? renderJsonTurn(client, text, ctx) : renderStreamedTurn(client, text, ctx);
  if (message !== undefined) {
    const result = await turn(message);
    reportSession(ctx, result.sessionId ?? client.sessionId);
    return result.failed ? EXIT.FAILURE : EXIT.OK;
  }
  return chat(client, ctx, turn);
}

/** Printed on stderr so stdout stays the reply alone, and the user can pass it to --session. */
function reportSession(ctx: CliContext, sessionId: string | undefined): void {
  if (sessionId) ctx.note(ctx.err.dim(`session_id: ${sessionId}`));
}

async function chat(client: RestapClient, ctx: CliContext, turn: (text: string) => Promise<RenderedTurn>): Promise<number> {
  const input = ctx.io.stdin;
  if (!input) throw new UsageError(`no message and no stdin to chat on. Usage: ${TALK_USAGE}`);
  const interactive = input.isTTY === true;
  const prompt = (): void => {
    if (interactive) ctx.io.stderr.write(ctx.err.bold('you> '));
  };
  if (interactive) ctx.note(ctx.err.dim(`Chatting with ${client.catalog.agent.name}. /new starts a new session, /exit or Ctrl-D quits.`));
  const lines = createInterface({ input, terminal: false });
  const onAbort = (): void => lines.close();
  ctx.io.signal?.addEventListener('abort', onAbort, { once: true });
  let failed = false;
  try {
    prompt();
    for await (const raw of lines) {
      const text = raw.trim();
      if (text === '/exit' || text === '/quit') break;
      if (text === '/new') {
        client.resetSession();
        ctx.note(ctx.err.dim('new session'));
      } else if (text !== '') {
        try {
          failed = (await turn(text)).failed || failed;
        } catch (error) {
          // One failed turn should not end the conversation; an abort (Ctrl-C) should.
          if (!(error instanceof RestapError) || error.code === 'aborted') throw error;
          failed = true;
          ctx.note(ctx.err.fail(`error: ${error.code}: ${error.message}`));
        }
      }
      prompt();
    }
  } finally {
    ctx.io.signal?.removeEventListener('abort', onAbort);
    lines.close();
  }
  reportSession(ctx, client.sessionId);
  return failed ? EXIT.FAILURE : EXIT.OK;
}

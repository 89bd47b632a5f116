import { Body, Controller, Headers, Injectable, Post, UnauthorizedException } from '@nestjs/common';
import { IsInt, IsNotEmpty, IsString, Min } from 'class-validator';
import { Capability, type TalkContext } from 'nestjs-restap';
import { useTestDatabase } from '../support/test-database';
import { startTalkFixture, type TalkFixture } from '../fixtures/talk-app';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';

// Issue 35, item 1 — approval declared on the decorator: `approval: (args, caller) => boolean | string`
// (a string is the question); a rule that throws asks for approval; the approved call runs with
// the APPROVER's credentials (item 3). A host handler that calls ctx.tools itself (no tool loop).
jest.setTimeout(60_000);

class RestockDto {
  @IsString()
  @IsNotEmpty()
  item: string;

  @IsInt()
  @Min(1)
  quantity: number;
}

/** What the stock controller did, and with whose key. */
@Injectable()
class StockLedger {
  readonly restocks: Array<{ item: string; quantity: number; key: string }> = [];
}

const KEYS = new Set(['clerk-key', 'manager-key']);

@Controller('stock')
class StockController {
  constructor(private readonly ledger: StockLedger) {}

  @Post('restock')
  @Capability({
    id: 'stock.restock',
    title: 'Restock an item',
    // Small restocks run at once; a large one needs a person, who is asked in words.
    approval: (args) => (args.quantity as number) > 100 && `Restock ${String(args.quantity)} × ${String(args.item)}?`,
  })
  restock(@Body() body: RestockDto, @Headers('x-api-key') key?: string): { restocked: number } {
    if (!key || !KEYS.has(key)) throw new UnauthorizedException('A valid X-API-Key is required.');
    this.ledger.restocks.push({ item: body.item, quantity: body.quantity, key });
    return { restocked: body.quantity };
  }

  @Post('wipe')
  @Capability({
    id: 'stock.wipe',
    title: 'Wipe the stock',
    approval: () => {
      throw new Error('rule bug');
    },
  })
  wipe(): { wiped: true } {
    return { wiped: true };
  }
}

/** "restock N item" calls stock.restock; "wipe" calls stock.wipe; the reply is the tool result. */
async function handler(ctx: TalkContext): Promise<string> {
  const restock = /^restock (\d+) (\w+)$/.exec(ctx.message);
  if (restock) return (await ctx.tools.call('stock_restock', { item: restock[2], quantity: Number(restock[1]) })).content;
  if (ctx.message === 'wipe') return (await ctx.tools.call('stock_wipe', {})).content;
  // A turn that answers an approval: the model would read the result from ctx.toMessages().
  const last = ctx.toMessages().at(-1)!;
  return last.role === 'tool' ? `result: ${last.content}` : `said: ${ctx.message}`;
}

describe('issue 35 — approval rules on the decorator, approver credentials', () => {
  const db = useTestDatabase();
  let app: TalkFixture;
  let ledger: StockLedger;
  beforeAll(async () => {
    app = await startTalkFixture(db.target, { controllers: [StockController], providers: [StockLedger] });
    app.brain.behaviour = handler;
    ledger = app.app.get(StockLedger);
  });
  afterAll(() => app?.close());

  const talk = async (body: Record<string, unknown>, key = 'clerk-key') => {
    const res = await postTalk(app.talkUrl, body, { 'X-API-Key': key });
    return { status: res.status, body: await res.json() };
  };

  it('item 1: a rule answering false runs the call at once (restock 5)', async () => {
    const { body } = await talk({ message: 'restock 5 bolts' });
    expect(body.reply).toBe('{"restocked":5}');
    expect(body.approval_required).toBeUndefined();
    expect(ledger.restocks.at(-1)).toEqual({ item: 'bolts', quantity: 5, key: 'clerk-key' });
  });

  it('item 1: a rule answering a string asks that question, and the call waits (restock 500)', async () => {
    const count = ledger.restocks.length;
    const { body } = await talk({ message: 'restock 500 widgets' });
    expect(body.approval_required).toEqual([expect.objectContaining({ capability: 'stock.restock', arguments: { item: 'widgets', quantity: 500 }, question: 'Restock 500 × widgets?' })]);
    expect(body.reply).toContain('Restock 500 × widgets?');
    expect(ledger.restocks).toHaveLength(count);
  });

  it('item 3: the approved call runs with the approver\'s credentials, not the asker\'s', async () => {
    const { body: asked } = await talk({ message: 'restock 300 nuts' }, 'clerk-key');
    const { id } = asked.approval_required[0];
    const { status, body } = await talk({ session_id: asked.session_id, message: 'go', approval: { id, decision: 'approve' } }, 'manager-key');
    expect(status).toBe(200);
    expect(body.reply).toBe('result: {"restocked":300}');
    expect(ledger.restocks.at(-1)).toEqual({ item: 'nuts', quantity: 300, key: 'manager-key' });
  });

  it('item 3: an approver the capability\'s own check refuses gets its refusal, and the call does not run', async () => {
    const count = ledger.restocks.length;
    const { body: asked } = await talk({ message: 'restock 400 pins' });
    const { body } = await talk({ session_id: asked.session_id, message: 'go', approval: { id: asked.approval_required[0].id, decision: 'approve' } }, 'stranger-key');
    expect(body.reply).toBe('result: Error 401 unauthorized: A valid X-API-Key is required.');
    expect(ledger.restocks).toHaveLength(count);
  });

  it('a rule that throws asks for approval (fails closed), with the default question', async () => {
    const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'wipe' }, { 'X-API-Key': 'clerk-key' })).rest());
    // A handler without the tool loop: no tool.* frames, the event and the question still come.
    expect(frames.map((f) => f.event)).toEqual(['message.start', 'message.delta', 'approval.required', 'message.delta', 'message.end', 'done']);
    expect(frames[2].data).toMatchObject({ capability: 'stock.wipe', arguments: {}, question: 'Allow "Wipe the stock" (stock.wipe) with {}?' });
  });
});

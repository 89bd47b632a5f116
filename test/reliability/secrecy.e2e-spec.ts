import { stripVTControlCharacters } from 'node:util';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { format } from 'node:util';
import { News, RestapModule, Talk, type NewsHandlerContext, type NewsItem, type TalkContext } from 'nestjs-restap';
import { DataSource } from 'typeorm';
import { createDatabaseOptions } from '../../apps/sample-agent/src/database/database.options';
import { accessLog } from '../../apps/sample-agent/src/http/access-log.middleware';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { listen, type RunningApp } from '../support/sample-app';
import { openTalkStream, postTalk } from '../fixtures/talk-sse';
import { getNews, postNews } from '../fixtures/news-http';

// Issue 6, item 4 — secrecy: over a whole session flow (talk JSON and SSE, news in every way,
// handler failures, storage errors), no session id appears in any output — Nest's log, the access
// log, TypeORM's query and error log, anything written to stdout/stderr or the console — nor
// raw in the database, nor in GET /news, nor in any response header we produce.
jest.setTimeout(60_000);

@Injectable()
class LeakyBrain {
  @Talk()
  answer(ctx: TalkContext): string {
    // A careless handler quoting the session in its error: the module must mask it in the log.
    if (ctx.message === 'fail') throw new Error(`model refused for session ${ctx.sessionId}`);
    return `echo: ${ctx.message}`;
  }

  @News()
  careless(item: NewsItem, { sessionId }: NewsHandlerContext): void {
    if (item.type === 'explode') throw new Error(`cannot handle ${item.news_id} of ${sessionId}`);
  }
}

describe('issue 6, item 4 — session ids never leak (log capture over a whole session flow)', () => {
  let db: TestDatabase;
  let agent: RunningApp;
  let closeDb: () => Promise<void>;
  const output: string[] = [];
  const restore: Array<() => void> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const handle = await createDatabaseOptions(db.target);
    closeDb = handle.close;
    @Module({
      imports: [
        TypeOrmModule.forRoot({ ...handle.options, logging: 'all', logger: 'advanced-console' } as Parameters<typeof TypeOrmModule.forRoot>[0]),
        // talk.resume on: the kept frames of resumable streams and the resume request are covered too (issue 37).
        RestapModule.forRoot({ agent: { name: 'Secrecy fixture' }, news: { scope: 'global' }, talk: { resume: true } }),
      ],
      providers: [LeakyBrain],
    })
    class SecrecyModule {}
    // Everything printed from here on is captured (and kept off the test output).
    for (const stream of [process.stdout, process.stderr]) {
      const spy = jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      });
      restore.push(() => spy.mockRestore());
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void output.push(format(...args)));
      restore.push(() => spy.mockRestore());
    }
    const adapter = new ExpressAdapter();
    adapter.use(accessLog());
    const app = await NestFactory.create<NestExpressApplication>(SecrecyModule, adapter, { logger: ['log', 'error', 'warn', 'debug', 'verbose'] });
    agent = await listen(app);
  });
  afterAll(async () => {
    await agent?.close();
    await closeDb?.();
    for (const undo of restore) undo();
    await db?.drop();
  });

  it('no session id in any log line, in storage, in GET /news or in a response header', async () => {
    const headersSeen: string[] = [];
    const newsBodies: string[] = [];
    const keep = (res: Response): Response => {
      res.headers.forEach((value, name) => headersSeen.push(`${name}: ${value}`));
      return res;
    };
    const first = keep(await postTalk(`${agent.url}/talk`, { message: 'hello' }));
    const { session_id: session } = (await first.json()) as { session_id: string };
    expect(session).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
    const other = 'second-session-0123456789abcdef';
    const header = { 'Restap-Session-Id': session };

    const stream = await openTalkStream(`${agent.url}/talk`, { message: 'stream me' }, header);
    keep(stream.response);
    const frames = await stream.rest();
    const messageId = frames.find((f) => f.event === 'message.start')?.data?.id as string;
    const resumed = keep(await fetch(`${agent.url}/talk/${messageId}`, { headers: { ...header, accept: 'text/event-stream', 'Last-Event-ID': '1' } }));
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain('event: done');
    keep(await postTalk(`${agent.url}/talk`, { message: 'body id', session_id: session }));
    const failed = keep(await postTalk(`${agent.url}/talk`, { message: 'fail' }, header));
    expect(failed.status).toBe(502);
    keep(await postTalk(`${agent.url}/talk`, { message: 'other' }, { 'Restap-Session-Id': other }));
    keep(await postTalk(`${agent.url}/talk`, { message: 'bad id', session_id: `${session}!` }));

    for (const answer of [
      await postNews(agent.url, { type: 'note', message: 'tagged by body', session_id: session }),
      await postNews(agent.url, { type: 'note', message: 'tagged by header' }, header),
      await postNews(agent.url, { type: 'note', message: 'idempotent' }, { ...header, 'Idempotency-Key': 'k-1' }),
      await postNews(agent.url, { type: 'note', message: 'idempotent' }, { ...header, 'Idempotency-Key': 'k-1' }),
      await postNews(agent.url, { type: 'explode' }, header),
    ]) {
      expect(answer.status).toBe(200);
      answer.headers.forEach((value, name) => headersSeen.push(`${name}: ${value}`));
    }
    // The query parameter as the app reads it, whatever its spelling (issue 21, item 6), and on /talk (item 5).
    const encoded = [`session%5Fid=${session}`, `%73ession_id=${session}`, `session_%69d=${session}`];
    for (const query of encoded) expect((await fetch(`${agent.url}/news?since=0&${query}`)).status).toBe(200);
    keep(await postTalk(`${agent.url}/talk?session%5Fid=${session}`, { message: 'query id' }));
    for (const page of [await getNews(agent.url, { session_id: session }), await getNews(agent.url, {}, header), await getNews(agent.url)]) {
      expect(page.status).toBe(200);
      newsBodies.push(page.text);
    }

    // Storage errors: logged by purpose and correlation id, never with parameter values (issue 21, item 7),
    // although TypeORM's `logging` is 'all' here.
    const dataSource = agent.app.get(DataSource);
    await dataSource.query('ALTER TABLE restap_turns RENAME TO restap_turns_away');
    keep(await postTalk(`${agent.url}/talk`, { message: 'no table' }, header));
    await dataSource.query('ALTER TABLE restap_turns_away RENAME TO restap_turns');
    await dataSource.query('ALTER TABLE restap_news RENAME TO restap_news_away');
    await postNews(agent.url, { type: 'note' }, header);
    await getNews(agent.url, { session_id: session });
    await dataSource.query('ALTER TABLE restap_news_away RENAME TO restap_news');
    await new Promise((r) => setTimeout(r, 200)); // @News() handlers run after the acknowledgement

    // Colour codes (TypeORM and Nest colour their logs when they detect CI or a TTY) could split a
    // session id in two and hide a leak: search the text a reader would see.
    const logs = stripVTControlCharacters(output.join(''));
    // The capture did see the flow: queries, failures, masked handler errors, access lines.
    expect(logs).toMatch(/INSERT INTO restap_turns/);
    expect(logs).toMatch(/Statement talk\.history-read failed with DatabaseError 42P01 \(ref [A-Za-z0-9_-]{8}\)/);
    expect(logs).toMatch(/Statement news\.append \(global sequence\) failed with DatabaseError 42P01/);
    // Once started, no statement is logged with its values (before that, only TypeORM's own
    // migration bookkeeping is: schema names, a timestamp, a class name).
    const served = logs.slice(logs.indexOf('Nest application successfully started'));
    expect(served).toMatch(/query: /);
    expect(served).not.toMatch(/PARAMETERS/);
    expect(logs).not.toMatch(/tagged by body|stream me|no table/); // request data (messages, items) never logged
    expect(logs).toMatch(/GET \/news\?since=0&session_id=\[redacted\] 200/);
    expect(logs).toMatch(/@Talk\(\) handler LeakyBrain\.answer failed: Error: model refused for session \[session_id\]/);
    expect(logs).toMatch(/@News\(\) handler LeakyBrain\.careless failed on news_\d+: Error: cannot handle news_\d+ of \[session_id\]/);
    expect(logs).toMatch(/GET \/news\?session_id=\[redacted\] 200/);

    for (const secret of [session, other]) {
      expect(logs.includes(secret)).toBe(false);
      expect(newsBodies.join('\n').includes(secret)).toBe(false);
      expect(headersSeen.join('\n').includes(secret)).toBe(false);
      const tables = (await dataSource.query(
        `SELECT concat_ws(' ', (SELECT string_agg(t::text, ' ') FROM restap_sessions t), (SELECT string_agg(t::text, ' ') FROM restap_turns t), (SELECT string_agg(t::text, ' ') FROM restap_news t), (SELECT string_agg(t::text, ' ') FROM restap_news_sequences t), (SELECT string_agg(t::text, ' ') FROM restap_a2a_tasks t), (SELECT string_agg(t::text, ' ') FROM restap_talk_frames t)) AS dump`,
      )) as Array<{ dump: string }>;
      expect(tables[0].dump.length).toBeGreaterThan(100);
      expect(tables[0].dump.includes(secret)).toBe(false);
    }
  });
});

'use strict';
/**
 * The talk and news floors: a bare Nest app (RestapExpressAdapter, one controller, nothing else).
 * Its POST /talk does the storage work a new-session /talk JSON turn of the module does, with the
 * module's own pieces — a minted session id and its hash, the shared read of the global feed's
 * recent news (`recentSql`, `sharedReads`) and the group-committed turn write (`APPEND_TURNS`,
 * `GroupCommit`) — and answers `{reply, session_id, message_id}`. Its POST /news appends the body
 * to the global feed with the module's group-committed append (`APPEND_GLOBAL_SQL`) and answers
 * the acknowledgement. No RestapModule: no front door, no TalkService or NewsService, no context,
 * no wake-ups, no doors, no Swagger. Run as its own process like the agent, so the gap between it
 * and the talk and news rows is what the module's and the sample's per-request work costs.
 * Needs the build. Run directly (`node talk-floor.js <database-url>`), it is that server.
 */
const path = require('node:path');
const { startChildServer } = require('./child-server');

const LIB = path.join(__dirname, '..', '..', 'dist', 'apps', 'sample-agent', 'libs', 'restap', 'src');
const built = (file) => require(path.join(LIB, file));

/** The sample's defaults for a turn's news: `news.contextLimit` items, `contextBudget.itemChars` each. */
const NEWS_LIMIT = 20;
const ITEM_CHARS = 8000;

async function serve(databaseUrl) {
  require('reflect-metadata');
  const { Controller, Module, Post, Req, Res } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const { Pool } = require('pg');
  const { RestapExpressAdapter } = built('doors/kit/http/restap-express.adapter.js');
  const { GroupCommit, sharedReads } = built('persistence/group-commit.js');
  const { statement } = built('persistence/restap-sql.js');
  const { recentSql, APPEND_GLOBAL_SQL } = built('persistence/typeorm-news.sql.js');
  const { MAX_APPEND_BATCH } = built('persistence/typeorm-news.store.js');
  const { APPEND_TURNS, MAX_TURN_BATCH } = built('persistence/typeorm-session.store.js');
  const { mintSessionId, hashSessionId } = built('sessions/session-id.js');
  const { randomToken } = built('sessions/random-token.js');

  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const recent = statement(recentSql(1), 'floor: news.recent');
  const news = sharedReads(async () => (await pool.query({ name: recent.name, text: recent.text, values: [NEWS_LIMIT, 'global', ITEM_CHARS] })).rows, (rows) => rows.slice(), 1024);
  const turns = new GroupCommit(async (_lane, batch) => {
    const columns = [[], [], [], [], [], [], []];
    for (const rows of batch) {
      for (const row of rows) row.forEach((value, k) => columns[k].push(value));
    }
    await pool.query({ name: APPEND_TURNS.name, text: APPEND_TURNS.text, values: columns });
    return batch.map(() => undefined);
  }, MAX_TURN_BATCH);

  const append = statement(APPEND_GLOBAL_SQL, 'floor: news.append');
  const appends = new GroupCommit(async (sequence, items) => {
    const nulls = items.map(() => null);
    const { rows } = await pool.query({ name: append.name, text: append.text, values: [sequence, items.length, items.map(() => 'global'), items.map((i) => i.type), items.map((i) => i.body), nulls, nulls] });
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    return items.map((_, k) => String(byOrd.get(k + 1).id));
  }, MAX_APPEND_BATCH);

  class FloorTalkController {
    async talk(req, res) {
      const message = req.body?.message;
      if (typeof message !== 'string') return res.status(400).json({ error: 'invalid_request', message: 'message: a string is required' });
      const sessionId = mintSessionId();
      const keyHash = hashSessionId(sessionId);
      const messageId = `msg_${randomToken(12)}`;
      const receivedAt = new Date();
      await news.submit('global', undefined);
      const reply = 'ok';
      await turns.submit('turns', [
        [keyHash, `msg_${randomToken(12)}`, 'user', message, 'complete', receivedAt, null],
        [keyHash, messageId, 'assistant', reply, 'complete', new Date(), null],
      ]);
      const body = JSON.stringify({ reply, session_id: sessionId, message_id: messageId });
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Vary: 'Accept' });
      res.end(body);
    }

    async news(req, res) {
      const fields = req.body;
      if (typeof fields?.type !== 'string') return res.status(400).json({ error: 'invalid_request', message: 'type: a string is required' });
      const id = await appends.submit('global', { type: fields.type, body: JSON.stringify(fields) });
      const body = JSON.stringify({ status: 'received', news_id: `news_${id}`, message: 'Message stored successfully' });
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    }
  }
  const talk = Object.getOwnPropertyDescriptor(FloorTalkController.prototype, 'talk');
  Req()(FloorTalkController.prototype, 'talk', 0);
  Res()(FloorTalkController.prototype, 'talk', 1);
  Post('talk')(FloorTalkController.prototype, 'talk', talk);
  Req()(FloorTalkController.prototype, 'news', 0);
  Res()(FloorTalkController.prototype, 'news', 1);
  Post('news')(FloorTalkController.prototype, 'news', Object.getOwnPropertyDescriptor(FloorTalkController.prototype, 'news'));
  Controller()(FloorTalkController);
  class FloorModule {}
  Module({ controllers: [FloorTalkController] })(FloorModule);

  const app = await NestFactory.create(FloorModule, new RestapExpressAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  process.send(app.getHttpServer().address().port);
  process.on('message', async () => {
    await app.close();
    await pool.end();
    process.exit(0);
  });
}

if (require.main === module) {
  serve(process.argv[2]).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

/** Starts the talk and news floors on `databaseUrl` (the agent's, migrated) as a child process; returns its URL, its CPU so far (ms) and stop(). */
async function startTalkFloor(databaseUrl, options) {
  return startChildServer(__filename, [databaseUrl], options);
}

module.exports = { startTalkFloor };

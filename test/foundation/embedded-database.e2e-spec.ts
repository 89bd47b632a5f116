import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RESTAP_MIGRATIONS } from 'nestjs-restap';
import { EMBEDDED_DURABILITY } from '../../libs/restap/src/persistence/storage.check';
import { databaseTargetFromEnv } from '../../apps/sample-agent/src/database/database.options';
import { RunningApp, startSample } from '../support/sample-app';
import { startChildAgent, type ChildAgent } from '../reliability/support/child-agent';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

describe('Embedded PostgreSQL (PGlite) is the zero-setup default, and keeps its data across restarts', () => {
  let dataDir: string;
  let agent: RunningApp | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'restap-embedded-'));
  });
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('without DATABASE_URL the sample uses the embedded database in RESTAP_DATA_DIR (default ./.restap-data)', () => {
    expect(databaseTargetFromEnv({})).toEqual({ dataDir: './.restap-data' });
    expect(databaseTargetFromEnv({ RESTAP_DATA_DIR: '/var/lib/agent' })).toEqual({ dataDir: '/var/lib/agent' });
    expect(databaseTargetFromEnv({ DATABASE_URL: 'postgres://db/agent', RESTAP_DATA_DIR: '/x' })).toEqual({ url: 'postgres://db/agent' });
  });

  it('boots on an empty folder, runs the migrations and serves the catalog', async () => {
    agent = await startSample({ dataDir });
    const res = await fetch(`${agent.url}/.well-known/restap.json`);
    expect(res.status).toBe(200);
    const tables = await agent.app.get(DataSource).query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'restap_%' ORDER BY 1`);
    expect(tables.map((t: { tablename: string }) => t.tablename)).toEqual(['restap_a2a_push_configs', 'restap_a2a_tasks', 'restap_approvals', 'restap_mcp_sessions', 'restap_news', 'restap_news_sequences', 'restap_replicas', 'restap_sessions', 'restap_talk_frames', 'restap_turns']);
    await agent.app.get(DataSource).query(`INSERT INTO restap_sessions (key_hash) VALUES ($1)`, [Buffer.from('written-before-restart')]);
  });

  it('after a restart on the same folder, data written before is still there and nothing is re-created', async () => {
    const pgVersion = statSync(join(dataDir, 'PG_VERSION')).mtimeMs;
    agent = await startSample({ dataDir });
    const ds = agent.app.get(DataSource);
    const rows = await ds.query(`SELECT key_hash FROM restap_sessions`);
    expect(rows.map((r: { key_hash: Buffer }) => Buffer.from(r.key_hash).toString())).toEqual(['written-before-restart']);
    const migrations = await ds.query(`SELECT name FROM migrations ORDER BY id`);
    expect(migrations.map((m: { name: string }) => m.name)).toEqual([...RESTAP_MIGRATIONS.map((m) => m.name), 'SampleNotes1765900000000']); // the sample's own notes table (issue 40, item 12)
    expect(statSync(join(dataDir, 'PG_VERSION')).mtimeMs).toBe(pgVersion);
  });

  describe('what the embedded mode guarantees, as the first start logs it', () => {
    let crashDir: string;
    let child: ChildAgent | undefined;

    beforeAll(() => {
      crashDir = mkdtempSync(join(tmpdir(), 'restap-embedded-crash-'));
    });
    afterAll(() => {
      child?.kill();
      rmSync(crashDir, { recursive: true, force: true });
    });

    it('a first `npm start` on an empty folder states the guarantee at log level, with no warning or error line', async () => {
      child = await startChildAgent({ RESTAP_DATA_DIR: crashDir });
      const output = child.output();
      const line = output.split('\n').find((l) => l.includes(EMBEDDED_DURABILITY));
      expect(line).toMatch(/ LOG \[Restap\] Embedded PostgreSQL \(PGlite\): /);
      expect(output).not.toMatch(/ WARN | ERROR |DURABILITY WARNING/);
    });

    it('an acknowledged /news item survives kill -9 of the process right after the acknowledgement', async () => {
      const agent = child as ChildAgent;
      const posted = await fetch(`${agent.url}/news`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'crash.test', message: 'acknowledged, then killed' }),
      });
      expect(posted.status).toBe(200);
      const { news_id: newsId } = await posted.json();
      agent.process.kill('SIGKILL');
      expect(await agent.exited(10_000)).toEqual({ code: null, signal: 'SIGKILL' });

      const reopened = await startSample({ dataDir: crashDir });
      try {
        const page = await (await fetch(`${reopened.url}/news`)).json();
        expect(page.items).toEqual([expect.objectContaining({ news_id: newsId, message: 'acknowledged, then killed' })]);
      } finally {
        await reopened.close();
      }
    });
  });
});

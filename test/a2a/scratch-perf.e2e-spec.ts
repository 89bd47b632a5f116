import { startFakeLlm } from '../support/fake-llm';
import { createTestDatabase } from '../support/test-database';
import { startSample } from '../support/sample-app';
import { clientFor, collect, sendParams, text, userMessage } from './a2a-support';
jest.setTimeout(120_000);
it('perf', async () => {
  const db = await createTestDatabase();
  const llm = await startFakeLlm({ reply: Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ') });
  const agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'm' } });
  const client = await clientFor(agent.url);
  for (let round = 0; round < 3; round++) {
    let t = Date.now();
    await collect(client.sendMessageStream(sendParams(userMessage([text('go')]))));
    const a2a = Date.now() - t;
    t = Date.now();
    const res = await fetch(`${agent.url}/talk`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ message: 'go' }) });
    await res.text();
    console.log(`a2a stream ${a2a} ms, /talk sse ${Date.now() - t} ms`);
  }
  await agent.close(); await llm.close(); await db.drop();
});

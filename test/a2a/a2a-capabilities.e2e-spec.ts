import { TaskState } from '@a2a-js/sdk';
import { CAPABILITY_EXTENSION_URI } from 'nestjs-restap';
import { useSampleAgent } from '../support/sample-app';
import { API_KEY, asTask, clientFor, data, dataOf, sendParams, userMessage, withKey } from './a2a-support';

jest.setTimeout(90_000);

describe('A2A door: capabilities by name (the card\'s capability extension)', () => {
  const agent = useSampleAgent({ apiKey: API_KEY });
  const call = async (value: unknown) => {
    const client = await clientFor(agent.url);
    return asTask(await client.sendMessage(sendParams(userMessage([data(value)])), withKey()));
  };

  it('the extension points to the RESTAP catalog, where the skill\'s input schema is', async () => {
    // The card offers an extended card (issue 38, item 4), which the official client fetches with the caller's key.
    const card = await (await clientFor(agent.url)).getAgentCard(withKey());
    const extension = card.capabilities?.extensions.find((e) => e.uri === CAPABILITY_EXTENSION_URI);
    const catalog = await (await fetch(`${agent.url}${extension?.params?.catalog}`)).json();
    const reverse = catalog.capabilities.find((c: { id: string }) => c.id === 'text.reverse');
    expect(card.skills.map((s) => s.id)).toContain(reverse.id);
    expect(reverse.input_schema.required).toEqual(['text']);
  });

  it('a data part {capability, arguments} runs it (no model in between): completed, the result as a data artifact', async () => {
    const task = await call({ capability: 'text.reverse', arguments: { text: 'Hello' } });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => a.name)).toEqual(['result']);
    expect(dataOf(task.artifacts[0].parts)).toMatchObject({ original_text: 'Hello', reversed_text: 'olleH' });
  });

  it('a validation error ends the task failed with the ValidationPipe\'s messages', async () => {
    const task = await call({ capability: 'text.echo', arguments: { text: '' } });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(dataOf(task.status?.message?.parts)).toEqual({ status: 400, error: 'invalid_request', message: expect.stringMatching(/text should not be empty/) });
  });

  it('an unknown capability ends failed (unknown_capability); a malformed call is rejected', async () => {
    const unknown = await call({ capability: 'text.nope', arguments: {} });
    expect(unknown.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(dataOf(unknown.status?.message?.parts)).toMatchObject({ status: 404, error: 'unknown_capability' });
    const malformed = await call({ capability: 'text.echo', arguments: ['not', 'an', 'object'] });
    expect(malformed.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it('the capability\'s guards see the A2A caller\'s credentials (the invoker passes its headers on)', async () => {
    const client = await clientFor(agent.url);
    // X-API-Key passes the endpoint and reaches the capability's own guard the same way.
    const task = asTask(await client.sendMessage(sendParams(userMessage([data({ capability: 'text.echo', arguments: { text: 'hi' } })])), { serviceParameters: { 'x-api-key': API_KEY } }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(task.artifacts[0].parts)).toMatchObject({ echoed_text: 'hi' });
  });
});

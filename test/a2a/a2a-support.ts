import { Role, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client, type RequestOptions } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';

/** The API key the A2A tests start the sample with. */
export const API_KEY = 'a2a-test-key-0123456789';

/** Per-call options carrying `Authorization: Bearer <key>` (A2A "service parameters" are HTTP headers). */
export const withKey = (key = API_KEY): RequestOptions => ({ serviceParameters: { authorization: `Bearer ${key}` } });

/** The official client, from the agent's base URL alone (it reads /.well-known/agent-card.json). */
export function clientFor(baseUrl: string): Promise<Client> {
  return new ClientFactory().createFromUrl(baseUrl);
}

export function text(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function data(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A user message; `contextId` continues a conversation. */
export function userMessage(parts: Part[], ids: { contextId?: string; taskId?: string } = {}): Message {
  return { messageId: randomUUID(), contextId: ids.contextId ?? '', taskId: ids.taskId ?? '', role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** SendMessage's parameters for a message. */
export function sendParams(message: Message) {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** The text of every text part of an artifact list, in order. */
export function artifactText(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

/** The first data value of a message or artifact parts list. */
export function dataOf(parts: Part[] | undefined): unknown {
  return parts?.find((p) => p.content?.$case === 'data')?.content?.value;
}

/** Collects a stream's events (by payload kind). */
export async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function asTask(result: unknown): Task {
  if (!result || typeof result !== 'object' || !('id' in result) || !('status' in result)) throw new Error(`Expected a Task, got ${JSON.stringify(result)}`);
  return result as Task;
}

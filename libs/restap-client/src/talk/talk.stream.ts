import { RestapError } from '../errors/restap.error';
import type { TalkEvent } from '../interfaces/talk.interface';
import { sessionIdOf } from './talk-event.parser';

/** How the reply actually arrived (the server decides; spec: clients MUST inspect Content-Type). */
export type TalkTransportKind = 'sse' | 'json';

/** Result of {@link RestapClient.talk} and {@link TalkStream.result}. */
export interface TalkResult {
  reply: string;
  /** Session to continue the thread with, when the server returned one. */
  sessionId?: string;
  messageId?: string;
}

/** What the request side reports while a stream is read. */
export interface TalkStreamSource {
  events: AsyncGenerator<TalkEvent>;
  /** Set once the response headers are in. */
  transport(): TalkTransportKind | undefined;
}

/**
 * A streamed /talk reply: iterate it for typed events, or call {@link TalkStream.text} /
 * {@link TalkStream.result} to get the assembled reply. Single use, like a response body.
 *
 * @example
 * const stream = client.talkStream('Say hello');
 * for await (const e of stream) if (e.event === 'message.delta') process.stdout.write(e.text);
 * console.log(stream.sessionId);
 */
export class TalkStream implements AsyncIterable<TalkEvent> {
  private started = false;
  private source?: TalkStreamSource;
  private text_ = '';
  private sessionId_?: string;
  private messageId_?: string;
  private error_?: RestapError;

  /** @param open starts the request; called lazily on first iteration. */
  constructor(
    private readonly open: () => TalkStreamSource,
    private readonly onSessionId: (sessionId: string) => void = () => undefined,
  ) {}

  /** Session id seen on message.start or done (known once those events have been read). */
  get sessionId(): string | undefined {
    return this.sessionId_;
  }

  /** Id of the assistant message. */
  get messageId(): string | undefined {
    return this.messageId_;
  }

  /** `sse` when the server streamed, `json` when it fell back to a complete JSON body. */
  get transport(): TalkTransportKind | undefined {
    return this.source?.transport();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TalkEvent> {
    if (this.started) throw new RestapError('stream_error', 'A TalkStream can be consumed only once');
    this.started = true;
    this.source = this.open();
    for await (const event of this.source.events) {
      this.observe(event);
      yield event;
    }
  }

  /** Reads the whole stream and returns the reply text; an in-stream `error` event rejects. */
  async text(): Promise<string> {
    return (await this.result()).reply;
  }

  /** Reads the whole stream and returns reply, session id and message id. */
  async result(): Promise<TalkResult> {
    for await (const event of this) void event;
    if (this.error_) throw this.error_;
    return { reply: this.text_, sessionId: this.sessionId_, messageId: this.messageId_ };
  }

  private observe(event: TalkEvent): void {
    const sessionId = sessionIdOf(event);
    if (sessionId) {
      this.sessionId_ = sessionId;
      this.onSessionId(sessionId);
    }
    if (event.event === 'message.start') this.messageId_ ??= event.id || undefined;
    if (event.event === 'message.delta') this.text_ += event.text;
    if (event.event === 'error') {
      const code = typeof event.error === 'string' ? event.error : 'stream_error';
      this.error_ ??= new RestapError(code, event.message, { details: event });
    }
  }
}

/**
 * Assembles the reply of any stream of talk events (the text of every message.delta).
 *
 * @example
 * const reply = await collectText(client.talkStream('Say hello'));
 */
export async function collectText(events: AsyncIterable<TalkEvent>): Promise<string> {
  if (events instanceof TalkStream) return events.text();
  let text = '';
  for await (const event of events) {
    if (event.event === 'message.delta') text += event.text;
    if (event.event === 'error') throw new RestapError(event.error ?? 'stream_error', event.message, { details: event });
  }
  return text;
}

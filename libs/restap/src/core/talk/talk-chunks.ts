import { isObservable, type Observable } from 'rxjs';
import { SSE_OPTIONAL_EVENTS } from '../../restap.constants';
import type { TalkChunk } from '../../interfaces/talk.interface';

/** A handler's output as a pull-based sequence that can be abandoned at any time. */
export interface ChunkSource {
  next(): Promise<IteratorResult<unknown>>;
  /** Stops the producer: unsubscribes an Observable, returns an iterator. Never throws. */
  cancel(): void;
}

const OPTIONAL_EVENTS: ReadonlySet<string> = new Set(SSE_OPTIONAL_EVENTS);
const RETURN_HINT = 'return a string, a Promise of one, an Observable or an AsyncIterable of strings / TalkChunks';

/**
 * Wraps whatever a `@Talk()` handler returned. A Promise may also resolve to an Observable or
 * AsyncIterable (an `async` handler returning a stream).
 */
export function openChunkSource(result: unknown): ChunkSource {
  if (typeof result === 'string') return fromValues([result]);
  if (isObservable(result)) return fromObservable(result);
  if (isAsyncIterable(result)) return fromAsyncIterable(result);
  if (isPromiseLike(result)) return fromPromise(result);
  throw new TypeError(`The @Talk() handler returned ${typeName(result)}: ${RETURN_HINT}.`);
}

/**
 * One streamed value as a chunk: strings and `message.delta` become text, the spec's optional
 * events pass through, empty text is skipped (undefined), anything else is a handler bug.
 */
export function normalizeChunk(value: unknown): TalkChunk | undefined {
  if (typeof value === 'string') return value ? { event: 'message.delta', text: value } : undefined;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const chunk = value as { event?: unknown; text?: unknown };
    if (chunk.event === 'message.delta' && typeof chunk.text === 'string') {
      return chunk.text ? { event: 'message.delta', text: chunk.text } : undefined;
    }
    if (typeof chunk.event === 'string' && OPTIONAL_EVENTS.has(chunk.event)) return value as TalkChunk;
    throw new TypeError(
      `The @Talk() handler produced a chunk with event ${JSON.stringify(chunk.event)}: use a string, {event: 'message.delta', text}, or one of ${[...OPTIONAL_EVENTS].join(', ')}.`,
    );
  }
  throw new TypeError(`The @Talk() handler produced ${typeName(value)} as a chunk: use a string or a TalkChunk object.`);
}

function fromValues(values: unknown[]): ChunkSource {
  let index = 0;
  return {
    next: async () => (index < values.length ? { value: values[index++], done: false } : { value: undefined, done: true }),
    cancel: () => undefined,
  };
}

function fromPromise(promise: PromiseLike<unknown>): ChunkSource {
  let inner: ChunkSource | undefined;
  let cancelled = false;
  let opening: Promise<ChunkSource> | undefined;
  const open = (): Promise<ChunkSource> =>
    (opening ??= Promise.resolve(promise).then((value) => {
      inner = openChunkSource(value);
      if (cancelled) inner.cancel();
      return inner;
    }));
  return {
    next: async () => (await open()).next(),
    cancel: () => {
      cancelled = true;
      inner?.cancel();
    },
  };
}

function fromAsyncIterable(iterable: AsyncIterable<unknown>): ChunkSource {
  const iterator = iterable[Symbol.asyncIterator]();
  return {
    next: () => iterator.next(),
    // A generator busy in an await only returns at its next yield: we stop waiting for it now,
    // and the handler stops its own work through ctx.signal.
    cancel: () => void Promise.resolve().then(() => iterator.return?.()).catch(() => undefined),
  };
}

function fromObservable(observable: Observable<unknown>): ChunkSource {
  const queue: unknown[] = [];
  let state: 'open' | 'complete' | 'error' = 'open';
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const subscription = observable.subscribe({
    next: (value) => {
      queue.push(value);
      notify();
    },
    error: (error: unknown) => {
      state = 'error';
      failure = error;
      notify();
    },
    complete: () => {
      state = 'complete';
      notify();
    },
  });
  return {
    async next() {
      for (;;) {
        if (queue.length) return { value: queue.shift(), done: false };
        if (state === 'error') throw failure;
        if (state === 'complete') return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    cancel: () => subscription.unsubscribe(),
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? `an object (${value.constructor?.name ?? 'Object'})` : `a ${typeof value}`;
}

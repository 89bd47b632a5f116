import { negotiateTalkFormat } from './talk.negotiator';
import { NotAcceptableException } from '../../../exceptions';

const NOT_ACCEPTABLE = 406;
type Expected = 'json' | 'sse' | typeof NOT_ACCEPTABLE;

// [Accept header, streaming on, streaming off]
const MATRIX: Array<[string | undefined, Expected, Expected]> = [
  [undefined, 'json', 'json'],
  ['', 'json', 'json'],
  ['*/*', 'json', 'json'],
  ['application/json', 'json', 'json'],
  ['application/*', 'json', 'json'],
  ['application/json; charset=utf-8', 'json', 'json'],
  ['text/event-stream', 'sse', NOT_ACCEPTABLE],
  ['TEXT/Event-Stream', 'sse', NOT_ACCEPTABLE],
  ['text/event-stream, application/json', 'sse', 'json'],
  ['application/json, text/event-stream', 'json', 'json'],
  ['text/event-stream;q=0.5, application/json', 'json', 'json'],
  ['application/json;q=0.5, text/event-stream', 'sse', 'json'],
  ['text/event-stream, */*;q=0.1', 'sse', 'json'],
  ['*/*, text/event-stream', 'sse', 'json'],
  ['text/event-stream;q=0.5, */*', 'json', 'json'],
  ['text/event-stream;q=0, */*', 'json', 'json'],
  ['text/event-stream;q=0', NOT_ACCEPTABLE, NOT_ACCEPTABLE],
  ['application/json;q=0, text/event-stream', 'sse', NOT_ACCEPTABLE],
  ['application/json;q=0, */*', NOT_ACCEPTABLE, NOT_ACCEPTABLE],
  ['text/*', NOT_ACCEPTABLE, NOT_ACCEPTABLE],
  ['text/html', NOT_ACCEPTABLE, NOT_ACCEPTABLE],
  ['image/png, text/plain;q=0.5', NOT_ACCEPTABLE, NOT_ACCEPTABLE],
  ['text/html, text/event-stream;q=0.9', 'sse', NOT_ACCEPTABLE],
];

function outcome(accept: string | undefined, streaming: boolean): Expected {
  try {
    return negotiateTalkFormat(accept, streaming);
  } catch (error) {
    expect(error).toBeInstanceOf(NotAcceptableException);
    return NOT_ACCEPTABLE;
  }
}

describe('Content negotiation (spec, "Content negotiation")', () => {
  it.each(MATRIX)('Accept %j → %s with streaming on, %s with streaming off', (accept, on, off) => {
    expect(outcome(accept, true)).toBe(on);
    expect(outcome(accept, false)).toBe(off);
  });
});

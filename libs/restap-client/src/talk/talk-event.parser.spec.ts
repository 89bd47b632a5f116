import { toTalkEvent } from './talk-event.parser';

describe('toTalkEvent', () => {
  it('types the required events', () => {
    expect(toTalkEvent({ event: 'message.delta', data: '{"event":"message.delta","id":"m","text":"hi"}' })).toEqual({ event: 'message.delta', id: 'm', text: 'hi' });
    expect(toTalkEvent({ event: 'done', data: '{"session_id":"s"}' })).toEqual({ event: 'done', session_id: 's' });
  });

  it('takes the name from the payload when the frame has no event: line', () => {
    expect(toTalkEvent({ data: '{"event":"message.end","id":"m"}' })).toEqual({ event: 'message.end', id: 'm' });
  });

  it('passes presentational events through with their payload', () => {
    expect(toTalkEvent({ event: 'tool.start', data: '{"name":"search"}' })).toEqual({ event: 'tool.start', name: 'search' });
  });

  it('never fails on unknown events, JSON or not (clients MUST safely ignore them)', () => {
    expect(toTalkEvent({ event: 'x-vendor', data: '{"a":1}' })).toEqual({ event: 'unknown', name: 'x-vendor', data: { a: 1 } });
    expect(toTalkEvent({ event: 'ping', data: 'not json' })).toEqual({ event: 'unknown', name: 'ping', data: 'not json' });
    expect(toTalkEvent({ data: 'plain message' })).toEqual({ event: 'unknown', name: 'message', data: 'plain message' });
  });

  it('keeps an error readable even with a malformed payload', () => {
    expect(toTalkEvent({ event: 'error', data: 'boom' })).toEqual({ event: 'error', message: 'boom' });
  });

  it('rejects a malformed required event (the reply would be wrong)', () => {
    expect(() => toTalkEvent({ event: 'message.delta', data: '{"id":"m"}' })).toThrow(expect.objectContaining({ code: 'invalid_event' }));
    expect(() => toTalkEvent({ event: 'message.start', data: 'oops' })).toThrow(expect.objectContaining({ code: 'invalid_event' }));
  });
});

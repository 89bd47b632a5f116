import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { startChatSpan, startTurnSpan, traceSuffix, withToolSpan } from './restap.telemetry';
import { openDoorSpan, type DoorSpanOf } from './door-span.telemetry';

import { fakeRequest, fakeResponse, PARENT, TRACE, useInMemoryTracing } from '../../../../../test/support/in-memory-tracing';

describe('telemetry without a tracer provider (issue 36, item 1: no-op, no measurable cost)', () => {
  it('a door request opens no span and no context (nothing registered): its span is not even described, no listener is added', () => {
    const res = fakeResponse();
    const describe = jest.fn((): DoorSpanOf => ({ name: 'POST /talk', attributes: {} }));
    expect(openDoorSpan(fakeRequest(), res, describe, undefined)).toBeUndefined();
    expect(describe).not.toHaveBeenCalled();
    expect(res.listenerCount('close')).toBe(0);
  });

  it('a turn, its model calls and tools switch no context either', () => {
    const turn = startTurnSpan('Agent', undefined, 'msg_1');
    expect(turn.context).toBe(context.active());
    const chat = startChatSpan('m', 'openai');
    expect(chat.context).toBe(context.active());
    expect(chat.capturesContent).toBe(false);
  });

  it("a turn's run() calls its function at once, in the caller's context, and hands back what it returns", () => {
    const turn = startTurnSpan('Agent', undefined, 'msg_1');
    const outside = context.active();
    const enter = jest.spyOn(context, 'with');
    try {
      expect(turn.run(() => context.active())).toBe(outside);
      expect(enter).not.toHaveBeenCalled();
    } finally {
      enter.mockRestore();
    }
  });

  it('a tool call runs as it would without telemetry, its result untouched', async () => {
    const result = { ok: false as const, status: 403, error: 'forbidden', message: 'no' };
    await expect(withToolSpan('text_reverse', 'text.reverse', 'call_1', async () => result)).resolves.toBe(result);
  });

  it('log lines get no trace suffix when no span is active', () => {
    expect(traceSuffix()).toBe('');
  });
});

describe('telemetry with the SDK (in-memory exporter): structure, parents and attributes (issue 36, item 2)', () => {
  const { exporter, only } = useInMemoryTracing();

  it('a door span continues the traceparent header and ends when the response closes, with its status', () => {
    const res = fakeResponse();
    openDoorSpan(fakeRequest({ traceparent: `00-${TRACE}-${PARENT}-01` }), res, talkSpan, { 'restap.door': 'restap' });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    res.emit('close');
    const span = only();
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(PARENT);
    expect(span.attributes).toMatchObject({ 'restap.door': 'restap', 'http.response.status_code': 200 });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a 5xx is an error span; a client gone before the end is marked client_disconnected', () => {
    const failed = fakeResponse();
    failed.statusCode = 503;
    openDoorSpan(fakeRequest(), failed, talkSpan, {});
    failed.emit('close');
    expect(only()).toMatchObject({ status: { code: SpanStatusCode.ERROR }, attributes: { 'error.type': '503' } });
    exporter.reset();
    const gone = Object.assign(fakeResponse(), { writableFinished: false });
    openDoorSpan(fakeRequest(), gone, talkSpan, {});
    gone.emit('close');
    expect(only().attributes['error.type']).toBe('client_disconnected');
  });

  it('turn → chat and execute_tool: children of the turn, with the outcome of a refused tool and a failed model call', async () => {
    const turn = startTurnSpan('Agent', 'abcdef0123456789', 'msg_1');
    await context.with(turn.context, async () => {
      const chat = startChatSpan('m', 'openai');
      chat.end({ error: Object.assign(new Error('upstream said: secret text'), { status: 429 }) });
      await withToolSpan('orders_get', 'orders.get', 'call_9', async () => ({ ok: false as const, status: 403, error: 'forbidden', message: 'secret text' }));
      expect(traceSuffix()).toMatch(/^ trace_id=[0-9a-f]{32} span_id=[0-9a-f]{16}$/);
    });
    turn.end('error', 'timeout');
    const spans = exporter.getFinishedSpans();
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    const agent = byName['invoke_agent Agent'];
    expect(agent.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'abcdef0123456789', 'restap.turn.status': 'error', 'restap.turn.stopped': 'timeout', 'error.type': 'timeout' });
    expect(byName['chat m']).toMatchObject({ parentSpanContext: { spanId: agent.spanContext().spanId }, status: { code: SpanStatusCode.ERROR } });
    expect(byName['chat m'].attributes['error.type']).toBe('429');
    const tool = byName['execute_tool orders_get'];
    expect(tool.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'orders_get', 'gen_ai.tool.call.id': 'call_9', 'restap.capability.id': 'orders.get', 'http.response.status_code': 403, 'restap.tool.outcome': 'forbidden', 'error.type': 'forbidden' });
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain('secret text');
  });

  it("a turn's run() enters the turn's context when it is not the active one, and only then", () => {
    const turn = startTurnSpan('Agent', undefined, 'msg_3');
    const spanOf = (): unknown => trace.getSpan(context.active());
    expect(spanOf()).toBeUndefined();
    const turnSpan = turn.run(spanOf);
    expect(turnSpan).toBeDefined();
    expect(turnSpan).toBe(trace.getSpan(turn.context));
    context.with(turn.context, () => {
      const enter = jest.spyOn(context, 'with');
      try {
        expect(turn.run(spanOf)).toBe(turnSpan);
        expect(enter).not.toHaveBeenCalled();
      } finally {
        enter.mockRestore();
      }
    });
    turn.end('complete');
  });

  it('content is recorded only when the turn opts in (telemetry.captureContent; issue 36, item 6)', async () => {
    for (const capture of [false, true]) {
      exporter.reset();
      const turn = startTurnSpan('Agent', undefined, 'msg_2', capture);
      await context.with(turn.context, async () => {
        const chat = startChatSpan('m', 'openai');
        expect(chat.capturesContent).toBe(capture);
        chat.end(chat.capturesContent ? { inputMessages: [{ role: 'user', parts: [{ type: 'text', content: 'the user text' }] }], outputMessages: [] } : {});
        await withToolSpan('text_reverse', 'text.reverse', 'c', async () => ({ ok: true as const, status: 200, body: { reversed_text: 'olleh' } }), capture ? { arguments: { text: 'hello' } } : undefined);
      });
      turn.end('complete');
      const byName = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s.attributes]));
      if (capture) {
        expect(byName['chat m']['gen_ai.input.messages']).toBe('[{"role":"user","parts":[{"type":"text","content":"the user text"}]}]');
        expect(byName['execute_tool text_reverse']).toMatchObject({ 'gen_ai.tool.call.arguments': '{"text":"hello"}', 'gen_ai.tool.call.result': '{"reversed_text":"olleh"}' });
      } else {
        expect(JSON.stringify(byName)).not.toMatch(/the user text|hello|olleh/);
      }
    }
  });
});

/** A door span named `POST /talk` with the attributes given. */
function talkSpan(_req: unknown, attributes: DoorSpanOf['attributes']): DoorSpanOf {
  return { name: 'POST /talk', attributes };
}

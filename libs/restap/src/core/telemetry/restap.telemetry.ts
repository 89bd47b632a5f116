import { context, createContextKey, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { ATTR, TELEMETRY_SCOPE } from './telemetry.names';
import { meters, seconds, startClock, type Instruments } from './restap.metrics';

/**
 * The module's tracer. `trace.getTracer` hands back a proxy that follows whichever tracer provider
 * the host registers, even after this module is loaded. With none registered every span is a
 * non-recording one: nothing is recorded, and the helpers below skip their own work as soon as
 * `span.isRecording()` says so.
 */
const tracer = trace.getTracer(TELEMETRY_SCOPE);

/** Set on a turn's context when `telemetry.captureContent` is on: its `chat` spans record messages. */
const CAPTURE_CONTENT = createContextKey('nestjs-restap capture content');


/** A turn's `invoke_agent` span, from `startTurnSpan`. */
export interface TurnSpan {
  /** The context the turn runs in (its span active). */
  readonly context: Context;
  /** Ends the span with the turn's stored status; records the turn's duration. */
  end(status: string, stopped?: string): void;
  /**
   * `f()` in the turn's context: called directly when that context is already the active one (a
   * span that records nothing leaves the turn in the caller's context), entered otherwise.
   */
  run<T>(f: () => T): T;
}

/**
 * The `invoke_agent {agent}` span of one turn. `conversationRef` is a digest of the session id
 * (never the id itself); the caller passes a prefix of the hash the session is stored under.
 */
export function startTurnSpan(agentName: string, conversationRef: string | undefined, messageId: string, captureContent = false): TurnSpan {
  const m = meters();
  const startedAt = startClock(m);
  const parent = context.active();
  const span = tracer.startSpan(turnSpanName(agentName), TURN_SPAN_OPTIONS, parent);
  if (!span.isRecording()) return new OneTurnSpan(parent, undefined, m, startedAt);
  span.setAttribute(ATTR.genAiOperationName, 'invoke_agent');
  span.setAttribute(ATTR.genAiAgentName, agentName);
  span.setAttribute(ATTR.restapMessageId, messageId);
  if (conversationRef) span.setAttribute(ATTR.genAiConversationId, conversationRef);
  const turnContext = trace.setSpan(parent, span);
  return new OneTurnSpan(captureContent ? turnContext.setValue(CAPTURE_CONTENT, true) : turnContext, span, m, startedAt);
}

const TURN_SPAN_OPTIONS = Object.freeze({ kind: SpanKind.INTERNAL });
let turnSpanNames: { agentName: string; name: string } | undefined;

/** `invoke_agent {agentName}`, made once for the agent's name. */
function turnSpanName(agentName: string): string {
  if (turnSpanNames?.agentName !== agentName) turnSpanNames = { agentName, name: `invoke_agent ${agentName}` };
  return turnSpanNames.name;
}

/** A turn's span (`span` undefined when it records nothing) and the start of its duration metric. */
class OneTurnSpan implements TurnSpan {
  constructor(
    readonly context: Context,
    private readonly span: Span | undefined,
    private readonly m: Instruments,
    private readonly startedAt: number,
  ) {}

  run<T>(f: () => T): T {
    const turnContext = this.context;
    return context.active() === turnContext ? f() : context.with(turnContext, f);
  }

  end(status: string, stopped?: string): void {
    const { span, m } = this;
    if (span) {
      span.setAttribute(ATTR.restapTurnStatus, status);
      if (stopped) span.setAttribute(ATTR.restapTurnStopped, stopped);
      if (status === 'error') {
        span.setAttribute(ATTR.errorType, stopped ?? 'agent_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
    if (m.enabled) m.turnDuration.record(seconds(this.startedAt), { [ATTR.restapTurnStatus]: status });
  }
}

/** What a model call reported, as far as a chat span records it. */
export interface ChatReport {
  responseModel?: string;
  responseId?: string;
  finishReasons?: string[];
  inputTokens?: number;
  outputTokens?: number;
  /** The error that ended the call, if one did. */
  error?: unknown;
  /** `gen_ai.input.messages` / `gen_ai.output.messages`, set only when `ChatSpan.capturesContent`. */
  inputMessages?: unknown[];
  outputMessages?: unknown[];
}

/** A model call's `chat {model}` span, from `startChatSpan`. */
export interface ChatSpan {
  /** The context to make the request in (the client's own HTTP span, if instrumented, is its child). */
  readonly context: Context;
  /** True when the turn opted in to content capture (`telemetry.captureContent`) and the span records. */
  readonly capturesContent: boolean;
  end(report: ChatReport): void;
}

/**
 * The `chat {model}` client span of one model call, child of the active span (the turn's
 * `invoke_agent`). Not made active across the stream: the caller ends it with what the model
 * reported, and the `gen_ai.client.*` metrics are recorded then.
 */
export function startChatSpan(model: string, provider: string): ChatSpan {
  const m = meters();
  const startedAt = startClock(m);
  const parent = context.active();
  const common = { [ATTR.genAiOperationName]: 'chat', [ATTR.genAiProviderName]: provider, [ATTR.genAiRequestModel]: model };
  const span = tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes: common }, parent);
  const recording = span.isRecording();
  return {
    context: recording ? trace.setSpan(parent, span) : parent,
    capturesContent: recording && parent.getValue(CAPTURE_CONTENT) === true,
    end(report) {
      if (!recording && !m.enabled) return;
      const errorType = report.error === undefined ? undefined : errorTypeOf(report.error);
      const labels: Attributes = report.responseModel ? { ...common, [ATTR.genAiResponseModel]: report.responseModel } : { ...common };
      if (errorType) labels[ATTR.errorType] = errorType;
      if (recording) {
        if (report.responseModel) span.setAttribute(ATTR.genAiResponseModel, report.responseModel);
        if (report.responseId) span.setAttribute(ATTR.genAiResponseId, report.responseId);
        if (report.finishReasons?.length) span.setAttribute(ATTR.genAiResponseFinishReasons, report.finishReasons);
        if (report.inputTokens !== undefined) span.setAttribute(ATTR.genAiUsageInputTokens, report.inputTokens);
        if (report.outputTokens !== undefined) span.setAttribute(ATTR.genAiUsageOutputTokens, report.outputTokens);
        if (report.inputMessages) span.setAttribute(ATTR.genAiInputMessages, JSON.stringify(report.inputMessages));
        if (report.outputMessages) span.setAttribute(ATTR.genAiOutputMessages, JSON.stringify(report.outputMessages));
        if (errorType) {
          span.setAttribute(ATTR.errorType, errorType);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      }
      if (!m.enabled) return;
      m.operationDuration.record(seconds(startedAt), labels);
      if (report.inputTokens !== undefined) m.tokenUsage.record(report.inputTokens, { ...labels, [ATTR.genAiTokenType]: 'input' });
      if (report.outputTokens !== undefined) m.tokenUsage.record(report.outputTokens, { ...labels, [ATTR.genAiTokenType]: 'output' });
    },
  };
}

/** The outcome of a capability call, as an `execute_tool` span records it. */
export interface ToolReport {
  ok: boolean;
  status: number;
  /** The error code (`forbidden`, `invalid_request`, `tool_timeout`…) when not ok. */
  error?: string;
  /** The answer's body (recorded only with content capture). */
  body?: unknown;
  message?: string;
}

/**
 * Runs `call` under an `execute_tool {name}` span, child of what is active (the turn when the model
 * asked, the door's request span when a client did). The span carries the tool and capability,
 * the HTTP status the route answered, and the guard/pipe outcome (`ok` or the error code). The
 * arguments and the result only when `content` is given (`telemetry.captureContent`).
 */
export async function withToolSpan<T extends ToolReport>(
  toolName: string,
  capabilityId: string | undefined,
  callId: string | undefined,
  call: () => Promise<T>,
  content?: { arguments: unknown },
): Promise<T> {
  const m = meters();
  const startedAt = startClock(m);
  const parent = context.active();
  const span = tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL }, parent);
  const recording = span.isRecording();
  if (recording) {
    span.setAttribute(ATTR.genAiOperationName, 'execute_tool');
    span.setAttribute(ATTR.genAiToolName, toolName);
    span.setAttribute(ATTR.genAiToolType, 'function');
    if (capabilityId) span.setAttribute(ATTR.restapCapabilityId, capabilityId);
    if (callId) span.setAttribute(ATTR.genAiToolCallId, callId);
  }
  // Without a recording span there is nothing to make active: no context switch per call.
  const result = await (recording ? context.with(trace.setSpan(parent, span), call) : call());
  const outcome = result.ok ? 'ok' : (result.error ?? 'error');
  if (recording) {
    span.setAttribute(ATTR.httpResponseStatusCode, result.status);
    span.setAttribute(ATTR.restapToolOutcome, outcome);
    if (content) {
      span.setAttribute(ATTR.genAiToolCallArguments, JSON.stringify(content.arguments ?? {}) ?? '{}');
      span.setAttribute(ATTR.genAiToolCallResult, result.ok ? (JSON.stringify(result.body) ?? 'null') : (result.message ?? outcome));
    }
    if (!result.ok) {
      span.setAttribute(ATTR.errorType, outcome);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
  if (m.enabled) m.toolDuration.record(seconds(startedAt), result.ok ? { [ATTR.genAiToolName]: toolName } : { [ATTR.genAiToolName]: toolName, [ATTR.errorType]: outcome });
  return result;
}

/** Adds an event (approval asked, poll held, wake-up…) to the active span, if one is recording. */
export function spanEvent(name: string, attributes?: Attributes): void {
  const span = trace.getSpan(context.active());
  if (span?.isRecording()) span.addEvent(name, attributes);
}

/**
 * ` trace_id=… span_id=…` of the active span (recording or carried from the caller), for a log line;
 * empty when there is none.
 *
 * @example
 * logger.error(`Could not store a turn: ${reason}${traceSuffix()}`);
 */
export function traceSuffix(): string {
  const span = trace.getSpan(context.active());
  if (!span) return '';
  const { traceId, spanId } = span.spanContext();
  if (!trace.isSpanContextValid(span.spanContext())) return '';
  return ` trace_id=${traceId} span_id=${spanId}`;
}

/** A short, bounded error type: the error's class name (never its message, which may quote input). */
function errorTypeOf(error: unknown): string {
  const name = (error as { name?: unknown } | undefined)?.name;
  const status = (error as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number') return String(status);
  return typeof name === 'string' && /^[A-Za-z0-9_.]{1,64}$/.test(name) ? name : 'Error';
}

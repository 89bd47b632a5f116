import type { AguiDoorOptions } from './agui.options';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { InvalidRequestException, MethodNotAllowedException, RestapException, RouteNotFoundException } from '../../exceptions';
import { callerOf } from '../../core/caller';
import { TalkService } from '../../core/talk/talk.service';
import type { OpenTurn } from '../../core/talk/turn.types';
import { isStorageError } from '../../persistence/storage-errors';
import { DoorKit } from '../kit/door-kit';
import { DoorPipeline, doorPathOf } from '../kit/door-pipeline';
import { writeDoorError as fail } from '../kit/http/door-error.writer';
import { isValidHost } from '../kit/http/host-header';
import { toErrorBody } from '../kit/http/restap-exception.filter';
import { bindToDoor, openDoorSpan, runInDoor, type DoorSpanOf } from '../../core/telemetry/door-span.telemetry';
import { ATTR } from '../../core/telemetry/telemetry.names';
import type { Interrupt, RunFinishedOutcome } from '@ag-ui/core';
import type { TurnResult } from '../../core/talk/turn.types';
import { APPROVAL_RESPONSE_SCHEMA, readAguiRun, type AguiRun } from './agui-run.input';
import { AguiEventStream } from './agui-event.stream';

/**
 * How a complete run finished: waiting on a person's approvals (AG-UI's interrupt outcome, one
 * interrupt per approval, resumed with `resume` entries), or a success naming the frontend tool
 * calls it left for the client.
 */
function outcomeOf(result: TurnResult): RunFinishedOutcome {
  if (result.approvals?.length) {
    return {
      type: 'interrupt',
      interrupts: result.approvals.map((a): Interrupt => {
        const toolCallId = result.approvalCalls?.[a.id];
        return {
          id: a.id,
          reason: 'tool_approval',
          message: a.question,
          ...(toolCallId ? { toolCallId } : {}),
          responseSchema: { ...APPROVAL_RESPONSE_SCHEMA },
          expiresAt: a.expires_at,
          metadata: { capability: a.capability, arguments: a.arguments },
        };
      }),
    };
  }
  return result.handedOver?.length ? { type: 'success', pendingToolCallIds: result.handedOver.map((c) => c.id) } : { type: 'success' };
}

/** The handler the host's guards see on the AG-UI endpoint (`context.getClass()`). */
class AguiEndpoint {
  handle(): void {
    // never called: the door answers
  }
}

const AGUI_METHODS = ['POST'];

/**
 * The AG-UI door: `POST {agui.path}` takes an AG-UI `RunAgentInput` and runs it as a turn of the
 * `@Talk()` handler through the core's TalkService, streaming the run as AG-UI events
 * (`@ag-ui/encoder`: SSE, or protobuf when the client's `Accept` asks for it). `threadId` is the
 * RESTAP session: a second run on the same thread continues the stored conversation. The run's
 * `tools` are offered to the model as client tools: a call of one ends the run (success, with
 * `pendingToolCallIds`) and the next run's `tool` message carries its result. An approval the turn
 * asks ends the run with AG-UI's interrupt outcome; the next run's `resume` entries answer it.
 *
 * As the MCP door, it sits on the host's HTTP adapter in two places: while the application is
 * created, ahead of the host's middleware, the checks before the body is read — the method (405;
 * a CORS preflight goes on to the host's CORS), `Host` (400), the shutdown drain (503), the rate
 * limit (429, bucket `agui`), the JSON body (415/413/400); then, once Nest registered the host's
 * middleware (`onModuleInit`), the endpoint: the host's guards and the `guards` option (401/403),
 * an open-stream slot (429), the run. Every refusal before the stream opens is
 * `{"error","message"}` JSON; a turn that fails once it streams ends with RUN_ERROR carrying the
 * error code and its client-safe message.
 */
@Injectable()
export class AguiDoor implements OnModuleInit {
  private readonly logger = new Logger('Restap');
  private readonly admission: DoorPipeline;
  private readonly endpoint: DoorPipeline;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(RESTAP_OPTIONS) private readonly options: AguiDoorOptions,
    private readonly talk: TalkService,
    kit: DoorKit,
  ) {
    this.admission = new DoorPipeline([
      (req, res, next) => (req.method === 'POST' ? next() : fail(res, new MethodNotAllowedException(AGUI_METHODS, `${req.method} is not allowed here: an AG-UI run is a POST of a RunAgentInput.`))),
      (req, res, next) => (isValidHost(req.headers.host) ? next() : fail(res, new InvalidRequestException('The Host header is not a valid host[:port].'))),
      kit.refuseWhileDraining(),
      kit.rateLimit('agui'),
      // OAuth (auth.oauth): 401 naming the protected resource metadata before the body is read.
      kit.bearerAuth(),
      kit.jsonBody('An AG-UI run is an application/json RunAgentInput.'),
    ]);
    // Every run is a stream: it holds a slot of the open-stream caps until its response closes.
    this.endpoint = new DoorPipeline([kit.hostGuards(AguiEndpoint), kit.streamSlot(() => true)]);
    if (!options.agui.enabled) return;
    kit.admitBeforeHost(adapterHost.httpAdapter, (req, res, next) => this.admit(req, res, next));
  }

  /** After Nest registered the host's middleware and routes: the endpoint, behind them. */
  onModuleInit(): void {
    if (!this.options.agui.enabled) return;
    this.adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.serveEndpoint(req, res, next));
    this.logger.log(`AG-UI: runs at POST ${this.options.agui.path}`);
  }

  private isEndpoint(req: Request): boolean {
    return doorPathOf(req) === this.options.agui.path;
  }

  /** The checks before the host's middleware; a CORS preflight goes on untouched, to the host's CORS if any. */
  private admit(req: Request, res: Response, next: NextFunction): boolean {
    if (!this.isEndpoint(req) || req.method === 'OPTIONS') return false;
    res.removeHeader('X-Powered-By');
    this.admission.run(req, res, undefined, next);
    return true;
  }

  /** The endpoint, after the host's middleware: its guards, a stream slot, then the run. */
  private serveEndpoint(req: Request, res: Response, next: NextFunction): void {
    if (!this.isEndpoint(req)) return next();
    // A preflight no host CORS answered.
    if (req.method !== 'POST') return fail(res, new MethodNotAllowedException(AGUI_METHODS));
    // One server span per run (the path template only), continuing the caller's `traceparent`.
    const path = this.options.agui.path;
    const door = openDoorSpan(req, res, describeAguiRun, path);
    runInDoor(door, () => this.endpoint.run(req, res, undefined, bindToDoor(door, () => void this.serve(req, res))));
  }

  /** Runs the turn and streams it. Never rejects: every failure is answered or logged. */
  private async serve(req: Request, res: Response): Promise<void> {
    let run: AguiRun;
    const { talk } = this.options;
    try {
      if (!talk.enabled) throw new RouteNotFoundException('This agent takes no conversation (its talk is off): there is no run to start.');
      run = readAguiRun(req.body, { sessions: talk.sessions, maxMessageLength: talk.maxMessageLength });
    } catch (error) {
      return fail(res, error);
    }
    let turn: OpenTurn | undefined;
    let gone = false;
    // The client aborted (HttpAgent.abortRun, a closed tab): the turn stops through its ctx.signal.
    res.on('close', () => {
      if (res.writableFinished) return;
      gone = true;
      turn?.stop('disconnect');
    });
    try {
      turn = await this.talk.open({
        message: run.message,
        sessionId: run.sessionId,
        sessionMinted: run.sessionMinted,
        caller: callerOf(req),
        clientTools: run.tools,
        clientResults: run.toolResults,
        ...(run.approvals.length ? { approval: run.approvals } : {}),
        // Asked as AG-UI interrupts, not in the reply's text.
        approvalsInReply: false,
      });
    } catch (error) {
      return this.refuse(res, error, run);
    }
    if (gone) turn.stop('disconnect');
    const stream = new AguiEventStream(res, req.headers.accept, { threadId: run.threadId, runId: run.runId, messageId: turn.messageId }, talk.heartbeatMs);
    stream.open();
    const result = await turn.run((chunk) => stream.chunk(chunk));
    if (result.status === 'aborted') return stream.end();
    if (result.failure !== undefined) return stream.fail(toErrorBody(result.failure).body);
    stream.finish(outcomeOf(result));
  }

  /** A turn the core would not open (no handler, storage down, a message it cannot store): JSON, as on /talk. */
  private refuse(res: Response, error: unknown, run: AguiRun): void {
    const { status } = toErrorBody(error);
    if (status >= 500 && !(error instanceof RestapException) && !isStorageError(error)) this.talk.logFailure('AG-UI run failed', error, { sessionId: run.sessionId });
    fail(res, error);
  }
}

/** An AG-UI run's server span: the path template only, never the thread or run ids. */
function describeAguiRun(req: Request, path: string): DoorSpanOf {
  return { name: `POST ${path}`, attributes: { [ATTR.restapDoor]: 'agui', [ATTR.httpRequestMethod]: req.method, [ATTR.httpRoute]: path } };
}

import type { AgentCard } from '@a2a-js/sdk';
import { A2A_ERROR_CODE, JsonRpcRequestMalformedError, RequestMalformedError, toJsonRpcError, VersionNotSupportedError, type A2AError } from '@a2a-js/sdk/errors';
import { getSupportedVersions, ServerCallContext } from '@a2a-js/sdk/server';
import type * as A2aLegacy from '@a2a-js/sdk/compat/v0_3/server';
import { codePointLength } from '../../text/code-points';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { cardFor } from './agent-card.factory';

/** What one message may carry (the `a2a` options of the same names). */
export interface A2aMessageLimits {
  maxParts: number;
  maxMessageChars: number;
}

/** Tasks one message may name in `referenceTaskIds` (the SDK reads each from storage). */
export const MAX_REFERENCE_TASKS = 16;

/** Characters of a refused A2A-Version header quoted back. */
const QUOTED_VERSION_CHARS = 16;

const SEND = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);
/** Roles a 1.0 message may carry (protobuf JSON: the enum's name or number). */
const V1_ROLES = new Set<unknown>(['ROLE_USER', 'ROLE_AGENT', 1, 2]);
/** RFC 3339 date-time, as protobuf JSON writes a Timestamp. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const BY_TASK_ID = new Set(['GetTask', 'CancelTask', 'SubscribeToTask', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe']);

type Json = Record<string, unknown>;

/** True for an id PostgreSQL can hold as text (no NUL character). */
export const storableId = (id: string): boolean => !id.includes('\u0000');

/** True for a valid date of the years 0001 to 9999 (what ISO 8601 writes with four digits; PostgreSQL takes them all). */
export const storableTime = (date: Date): boolean => {
  const year = date.getUTCFullYear();
  return year >= 1 && year <= 9999;
};

/**
 * Checks what the JSON-RPC endpoint's request asks for before the SDK sees it, and answers what it
 * refuses itself, in the SDK's own JSON-RPC errors (-32602 invalid params, -32009 version not
 * supported; 1.0 or 0.3 as the SDK would pick). Two reasons to come first:
 *
 * - cost: a message's parts are capped in number (`a2a.maxParts`), the message in characters
 *   (`a2a.maxMessageChars`), its reference tasks (each a storage read) in number: a request of
 *   many small parts is one cheap refusal, not work for each part at every step of its task
 *   (issue 32, item 2);
 * - the log: the SDK writes every error of a streaming call, and any error before a call starts, to
 *   `console.error` with its stack and the request's own text (a 3,000-character version header, a
 *   NUL id). The usual client mistakes are answered here, so they never reach it (issue 32, items 11
 *   and 14); what remains reaches the log through A2aSdkLogging, one line, truncated.
 *
 * Ids with a NUL character (which PostgreSQL cannot hold) are refused here for every method; the
 * task store refuses them too, and validates the dates a list reads, before any statement.
 */
export class A2aRequestCheck {
  private readonly versions: Set<string>;
  /** The version the SDK assumes without an A2A-Version header: the legacy one (0.3). */
  private readonly legacyVersion = new ServerCallContext().requestedVersion;
  private legacy?: typeof A2aLegacy;

  constructor(card: AgentCard, path: string, private readonly limits: A2aMessageLimits) {
    this.versions = getSupportedVersions(cardFor(card, '', path), 'JSONRPC');
  }

  /** `rpc` (the SDK's JSON-RPC handler) behind the check. */
  guard(rpc: RequestHandler): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      const header = req.headers['a2a-version'];
      const version = (typeof header === 'string' && header) || this.legacyVersion;
      if (!this.versions.has(version)) {
        const quoted = version.length > QUOTED_VERSION_CHARS ? `${version.slice(0, QUOTED_VERSION_CHARS)}…` : version;
        return this.refuse(req, res, new VersionNotSupportedError(`A2A-Version '${quoted}' is not supported: send ${[...this.versions].join(' or ')}.`), false);
      }
      const legacy = version === this.legacyVersion;
      const envelope = envelopeProblem(req.body);
      if (envelope !== undefined) return this.refuse(req, res, new JsonRpcRequestMalformedError({ message: envelope, envelopeCode: A2A_ERROR_CODE.INVALID_REQUEST }), legacy);
      const problem = this.problemOf(req.body, legacy);
      if (problem === undefined) return rpc(req, res, next);
      this.refuse(req, res, new RequestMalformedError(problem), legacy);
    };
  }

  /** What is wrong with the request's parameters, if this check judges it; the SDK judges the rest. */
  problemOf(body: unknown, legacy = false): string | undefined {
    if (!isObject(body) || typeof body.method !== 'string' || !isObject(body.params)) return undefined;
    return this.paramsProblem(body.method, body.params, legacy);
  }

  /**
   * The same judgement for a request of either binding: `method` is the 1.0 (or 0.3) method name
   * the request stands for, `params` its parameters (the JSON-RPC `params`, or the HTTP+JSON body
   * and path parameters).
   */
  paramsProblem(method: string, params: Json, legacy = false): string | undefined {
    const history = historyProblem(params);
    if (history) return history;
    if (SEND.has(method)) return this.messageProblem(params.message, legacy);
    if (BY_TASK_ID.has(method)) return typeof params.id === 'string' && !storableId(params.id) ? 'id is not a task id of this agent: it holds a NUL character.' : undefined;
    if (method === 'ListTasks') {
      const after = params.statusTimestampAfter ?? params.status_timestamp_after;
      if (after !== undefined && (typeof after !== 'string' || !TIMESTAMP.test(after) || Number.isNaN(Date.parse(after)))) {
        return 'statusTimestampAfter must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z.';
      }
    }
    return undefined;
  }

  private messageProblem(message: unknown, legacy: boolean): string | undefined {
    if (!isObject(message)) return 'params.message is required: the message to send.';
    // The SDK reads a 1.0 message without a role as ROLE_UNSPECIFIED and runs it (A2A 1.0: role is required).
    if (!legacy && !V1_ROLES.has(message.role)) return 'message.role is required: ROLE_USER (or ROLE_AGENT).';
    // Both spellings the SDK reads (protobuf JSON: lowerCamelCase or the field's own name).
    const { parts } = message;
    if (!Array.isArray(parts) || parts.length === 0) return 'message.parts must hold at least one part.';
    const taskId = message.taskId ?? message.task_id;
    const referenceTaskIds = message.referenceTaskIds ?? message.reference_task_ids;
    if (Array.isArray(parts) && parts.length > this.limits.maxParts) {
      return `A message carries at most ${this.limits.maxParts} parts; this one has ${parts.length}.`;
    }
    // The whole message: its parts, but also its ids and metadata, all kept in the task's history.
    // Characters are code points, as talk.maxMessageLength counts them: UTF-16 units first (an
    // upper bound, and cheaper), code points only when that is over.
    const limit = this.limits.maxMessageChars;
    if (weigh(message, limit, 0, utf16Length) > limit && weigh(message, limit, 0, codePointLength) > limit) {
      return `A message holds at most ${this.limits.maxMessageChars} characters (its parts' text, data and files, its metadata and ids together); this one holds more.`;
    }
    if (typeof taskId === 'string' && !storableId(taskId)) return 'message.taskId is not a task id of this agent: it holds a NUL character.';
    if (Array.isArray(referenceTaskIds)) {
      if (referenceTaskIds.length > MAX_REFERENCE_TASKS) return `A message names at most ${MAX_REFERENCE_TASKS} reference tasks; this one names ${referenceTaskIds.length}.`;
      if (referenceTaskIds.some((id) => typeof id !== 'string' || !storableId(id))) return 'message.referenceTaskIds holds an id that is not a task id of this agent.';
    }
    return undefined;
  }

  /** Answers as the SDK's JSON-RPC handler answers an error it maps (HTTP 200, the request's id). */
  refuse(req: Request, res: Response, error: A2AError, legacy: boolean): void {
    const id = (req.body as { id?: unknown } | undefined)?.id;
    res.status(200).json({
      jsonrpc: '2.0',
      id: typeof id === 'string' || Number.isInteger(id) ? id : null,
      error: legacy ? this.legacySdk().LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) : toJsonRpcError(error),
    });
  }

  /** The SDK's 0.3 server module, loaded the first time a 0.3 request is refused. */
  private legacySdk(): typeof A2aLegacy {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, on purpose
    return (this.legacy ??= require('@a2a-js/sdk/compat/v0_3/server') as typeof A2aLegacy);
  }
}

/**
 * What is wrong with a JSON-RPC 2.0 request's envelope (answered -32600 Invalid Request): the SDK
 * 1.3.0 answers these -32602 Invalid params, JSON-RPC 2.0 section 4 and A2A 1.0 say -32600.
 */
export function envelopeProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'The request is not a JSON-RPC 2.0 request object (batches are not supported).';
  if (body.jsonrpc !== '2.0') return 'jsonrpc must be "2.0".';
  if (typeof body.method !== 'string' || !body.method) return 'method is required: the A2A method to call.';
  if ('id' in body && body.id !== null && typeof body.id !== 'string' && !Number.isFinite(body.id)) return 'id must be a string, a number or null.';
  if ('params' in body && body.params !== undefined && !isObject(body.params)) return 'params must be an object.';
  return undefined;
}

/** A negative or fractional historyLength (GetTask, ListTasks, SendMessage's configuration). */
function historyProblem(params: Json): string | undefined {
  const configuration = isObject(params.configuration) ? params.configuration : {};
  for (const value of [params.historyLength, params.history_length, configuration.historyLength, configuration.history_length]) {
    if (value === undefined || value === null) continue;
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return 'historyLength must be a whole number ≥ 0.';
  }
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `total` plus the characters of `value`'s strings and keys, one for each other scalar; stops
 * counting once past `limit`, so a large value costs no more than the limit. Its depth is bounded
 * by `limits.maxJsonDepth`, checked when the body was read.
 */
function weigh(value: unknown, limit: number, total: number, lengthOf: (text: string) => number): number {
  if (total > limit) return total;
  if (typeof value === 'string') return total + lengthOf(value);
  if (typeof value !== 'object' || value === null) return total + 1;
  if (Array.isArray(value)) {
    for (const item of value) if ((total = weigh(item, limit, total, lengthOf)) > limit) break;
    return total;
  }
  for (const key in value) if ((total = weigh((value as Json)[key], limit, total + lengthOf(key), lengthOf)) > limit) break;
  return total;
}

const utf16Length = (text: string): number => text.length;

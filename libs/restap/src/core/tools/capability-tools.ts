import { Inject, Injectable, Logger } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { JsonSchema } from '../../interfaces/catalog.interface';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { RestapRegistry, type RegisteredCapability } from '../registry/restap.registry';
import type { CapabilityCallEvents } from '../invoker/capability-events';
import type { RestapCaller } from '../caller';
import { CapabilityInvoker } from '../invoker/capability-invoker';
import { failure } from '../invoker/invocation-error';
import type { InvocationResult } from '../invoker/invocation-result';
import { toolNameOf } from './tool-names';
import { CallDeadline } from './call-deadline';
import { withToolSpan } from '../telemetry/restap.telemetry';
import { mayCall, requiredScopesOf, scopeRefusal } from '../auth/capability-scopes';

/**
 * Asked before a well-formed tool call runs: a result to answer instead (the call is held, e.g.
 * for a person's approval), or undefined to run it.
 */
export type ToolCallGate = (tool: ToolDefinition, args: Record<string, unknown>) => Promise<InvocationResult | undefined>;

/** A capability as a model (or any tool-calling client) sees it. */
export interface ToolDefinition {
  /** `^[a-zA-Z0-9_-]{1,64}$`, e.g. `text_reverse` (see `toolNameOf`). */
  name: string;
  capabilityId: string;
  title: string;
  description?: string;
  /** The discovery `input_schema`, with the path and query `parameters` folded in: always an object schema. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  method: string;
}

/**
 * The app's capabilities as tools: every `@Capability()` unless `tool: false`, each called
 * through the `CapabilityInvoker` with the caller's credentials, so a tool can do what its caller
 * could do over HTTP and no more. Used by `ctx.tools` in /talk and by the other doors.
 *
 * @example
 * const tools = app.get(CapabilityTools);
 * await tools.call('text_reverse', { text: 'hello world' }, callerOf(req)); // { ok: true, status: 200, body: { reversed_text: 'dlrow olleh', … } }
 */
@Injectable()
export class CapabilityTools {
  private readonly logger = new Logger('Restap');
  private tools?: { list: ToolDefinition[]; byName: Map<string, ToolDefinition> };
  /** True when some tool needs a scope: only then are lists filtered per caller. */
  private scoped = false;

  constructor(
    private readonly registry: RestapRegistry,
    private readonly invoker: CapabilityInvoker,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
  ) {}

  /**
   * Every capability offered as a tool, in catalog order (built once, after discovery); given a
   * caller with an OAuth token, only those its scopes allow (every door's list shows only what
   * the caller may call).
   */
  list(caller?: RestapCaller): ToolDefinition[] {
    const { list } = this.load();
    if (caller?.auth === undefined || !this.scoped) return list;
    return list.filter((tool) => mayCall(this.registry.getCapability(tool.capabilityId)!, caller, this.options));
  }

  /** The OAuth scopes a tool's capability needs (none when OAuth is off). */
  scopesOf(tool: ToolDefinition): readonly string[] {
    return requiredScopesOf(this.registry.getCapability(tool.capabilityId)!, this.options);
  }

  /** The tool of that name, if there is one. */
  find(name: string): ToolDefinition | undefined {
    return this.load().byName.get(name);
  }

  /**
   * Calls a tool. Never rejects: an unknown name (404 `unknown_tool`), arguments that are not an
   * object or lack a path parameter (400 `invalid_arguments`), a refusal, a failure, the timeout
   * (504 `tool_timeout`, default `capabilityTimeoutMs`) and an abort (499 `aborted`) all come back
   * as `{ ok: false, status, error, message }`. `gate`, when given, may hold a well-formed call
   * (see ToolCallGate). Each call is an `execute_tool {name}` span (`callId`: the model's
   * tool-call id, when a model asked).
   */
  call(
    name: string,
    args: unknown,
    caller: RestapCaller,
    signal?: AbortSignal,
    timeoutMs = this.options.capabilityTimeoutMs,
    gate?: ToolCallGate,
    callId?: string,
    events?: CapabilityCallEvents,
  ): Promise<InvocationResult> {
    const tool = this.find(name);
    const content = this.options.telemetry?.captureContent === true ? { arguments: args } : undefined;
    return withToolSpan(name, tool?.capabilityId, callId, () => this.callTool(name, tool, args, caller, signal, timeoutMs, gate, events), content);
  }

  private async callTool(
    name: string,
    tool: ToolDefinition | undefined,
    args: unknown,
    caller: RestapCaller,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    gate: ToolCallGate | undefined,
    events: CapabilityCallEvents | undefined,
  ): Promise<InvocationResult> {
    if (!tool) {
      const known = this.list().map((t) => t.name).join(', ') || 'none';
      return failure(404, 'unknown_tool', `There is no tool named '${name}'. Tools: ${known}.`);
    }
    return this.run(name, this.registry.getCapability(tool.capabilityId)!, args, caller, signal, timeoutMs, gate && ((checked) => gate(tool, checked)), events);
  }

  /**
   * Calls a capability by its id, as another door names it (an A2A skill), whether or not it is
   * offered as a tool: the same checks, timeout and failures as `call` (404 `unknown_capability`).
   */
  callCapability(id: string, args: unknown, caller: RestapCaller, signal?: AbortSignal, timeoutMs = this.options.capabilityTimeoutMs, events?: CapabilityCallEvents): Promise<InvocationResult> {
    const capability = this.registry.getCapability(id);
    const content = this.options.telemetry?.captureContent === true ? { arguments: args } : undefined;
    return withToolSpan(id, capability?.options.id, undefined, async () => {
      if (!capability) return failure(404, 'unknown_capability', `No capability has the id '${id}'.`);
      return this.run(id, capability, args, caller, signal, timeoutMs, undefined, events);
    }, content);
  }

  private async run(
    name: string,
    capability: RegisteredCapability,
    args: unknown,
    caller: RestapCaller,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    hold?: (args: Record<string, unknown>) => Promise<InvocationResult | undefined>,
    events?: CapabilityCallEvents,
  ): Promise<InvocationResult> {
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      return failure(400, 'invalid_arguments', `The arguments of ${name} must be a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}.`);
    }
    const missing = (capability.parameters ?? []).filter((p) => p.in === 'path' && (args as Record<string, unknown>)[p.name] == null);
    if (missing.length) {
      return failure(400, 'invalid_arguments', `${name} needs ${missing.map((p) => `'${p.name}'`).join(', ')}.`);
    }
    // The scope rule, the same on every door: a token without the capability's scopes is refused (403, step-up).
    const refused = caller.auth === undefined ? undefined : scopeRefusal(capability, caller, this.options);
    if (refused) return refused;
    // Asked only of a well-formed call: a person is never asked to approve one that cannot run.
    const held = hold ? await hold(args as Record<string, unknown>) : undefined;
    if (held) return held;
    const deadline = new CallDeadline(signal, timeoutMs);
    let result: InvocationResult;
    try {
      result = await this.invoker.invoke(capability.options.id, args as Record<string, unknown>, caller, deadline.signal, events);
    } finally {
      deadline.end();
    }
    if (!result.ok && result.error === 'aborted' && deadline.timedOut && !signal?.aborted) {
      return failure(504, 'tool_timeout', `${name} did not answer within ${timeoutMs} ms.`);
    }
    return result;
  }

  private load(): { list: ToolDefinition[]; byName: Map<string, ToolDefinition> } {
    if (this.tools) return this.tools;
    const list: ToolDefinition[] = [];
    for (const capability of this.registry.getCapabilities()) {
      if (capability.options.tool === false) continue;
      const name = toolNameOf(capability.options.id);
      if (!name) {
        this.logger.warn(`Capability '${capability.options.id}' is not offered as a tool: its tool name would be longer than 64 characters.`);
        continue;
      }
      list.push(toolOf(name, capability));
    }
    this.tools = { list, byName: new Map(list.map((t) => [t.name, t])) };
    this.scoped = list.some((t) => this.scopesOf(t).length > 0);
    return this.tools;
  }
}

function toolOf(name: string, capability: RegisteredCapability): ToolDefinition {
  const { options } = capability;
  return Object.freeze({
    name,
    capabilityId: options.id,
    title: options.title,
    ...(options.description ? { description: options.description } : {}),
    inputSchema: argumentsSchema(capability),
    ...(capability.outputSchema ? { outputSchema: capability.outputSchema } : {}),
    method: capability.method,
  });
}

/** The body's schema with each path and query parameter added as a property (required when it is). */
export function argumentsSchema(capability: Pick<RegisteredCapability, 'inputSchema' | 'parameters'>): JsonSchema {
  const { properties: bodyProperties, required: bodyRequired, ...body } = capability.inputSchema ?? {};
  const properties = { ...((bodyProperties ?? {}) as Record<string, JsonSchema>) };
  const required = new Set((bodyRequired ?? []) as string[]);
  for (const parameter of capability.parameters ?? []) {
    properties[parameter.name] = { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) };
    if (parameter.required) required.add(parameter.name);
    else required.delete(parameter.name);
  }
  return { ...body, type: 'object', properties, ...(required.size ? { required: [...required] } : {}) };
}

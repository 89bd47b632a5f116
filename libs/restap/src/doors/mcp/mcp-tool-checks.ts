import type { CallToolResult, StandardSchemaV1, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { toolError } from './mcp-tool-errors';

/**
 * The checks the SDK makes of a tool's arguments and structured result, made by the door instead
 * (issue 38, item 9): a refusal is then the same tool error the SDK writes — "Input validation
 * error: Invalid arguments for tool …", "Output validation error: …" — with our
 * `_meta["io.restap/error"]` code (`invalid_arguments` 400, `invalid_output` 500), as every other
 * refusal of the door. The SDK is given {@link listedOnly} schemas: their JSON Schema is still what
 * tools/list shows, their validation accepts anything.
 */
export function listedOnly<T>(schema: StandardSchemaWithJSON<T>): StandardSchemaWithJSON<T> {
  const standard = schema['~standard'];
  return { '~standard': { ...standard, validate: (value: unknown) => ({ value: value as T }) } } as StandardSchemaWithJSON<T>;
}

/** The arguments as `schema` parses them, or the tool error refusing them. */
export async function checkArguments<T>(schema: StandardSchemaV1<unknown, T>, args: unknown, toolName: string): Promise<{ value: T } | { refused: CallToolResult }> {
  const checked = await schema['~standard'].validate(args ?? {});
  if (!checked.issues) return { value: checked.value };
  return { refused: toolError(`Input validation error: Invalid arguments for tool ${toolName}: ${issuesText(checked.issues)}`, 'invalid_arguments', 400) };
}

/** `result` when its structured content is what `schema` describes (or it is an error), else the tool error saying it is not. */
export async function checkResult(result: CallToolResult, schema: StandardSchemaV1 | undefined, toolName: string): Promise<CallToolResult> {
  if (!schema || result.isError) return result;
  if (result.structuredContent === undefined) {
    return toolError(`Output validation error: Tool ${toolName} has an output schema but no structured content was provided`, 'invalid_output', 500);
  }
  const checked = await schema['~standard'].validate(result.structuredContent);
  if (!checked.issues) return result;
  return toolError(`Output validation error: Invalid structured content for tool ${toolName}: ${issuesText(checked.issues)}`, 'invalid_output', 500);
}

/** Issues as the SDK words them: each message, after its path when it has one. */
export function issuesText(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues.map((issue) => (issue.path?.length ? `${issue.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${issue.message}` : issue.message)).join(', ');
}

import { fromJsonSchema } from '@modelcontextprotocol/server';

/** What the SDK's `registerTool` takes for a plain JSON Schema. */
type ToolSchema<T> = ReturnType<typeof fromJsonSchema<T>>;

/** One wrapper (and so one compiled validator) per distinct schema text, for the life of the process. */
const compiled = new Map<string, ToolSchema<unknown>>();

/**
 * `fromJsonSchema` once per schema. The door builds an `McpServer` for every request (stateless
 * serving), and the SDK compiles each schema's validator again on every call: that compilation was
 * most of an MCP tool call's CPU. The set of schemas is fixed at bootstrap (the capabilities, talk
 * and news), so the map stays small.
 */
export function toolSchema<T>(schema: object): ToolSchema<T> {
  const key = JSON.stringify(schema);
  let wrapped = compiled.get(key);
  if (!wrapped) compiled.set(key, (wrapped = fromJsonSchema<unknown>(schema as Parameters<typeof fromJsonSchema>[0])));
  return wrapped as ToolSchema<T>;
}

import type { CallToolResult } from '@modelcontextprotocol/server';

/** `_meta` key of a failed call's error code (`invalid_request`, `unauthorized`, …) and HTTP status. */
export const ERROR_META_KEY = 'io.restap/error';

/** A tool-level failure: the model reads the message and may retry. */
export function toolError(message: string, error: string, status?: number): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [ERROR_META_KEY]: { error, ...(status === undefined ? {} : { status }) } },
  };
}

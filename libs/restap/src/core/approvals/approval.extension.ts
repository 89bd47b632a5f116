/** The optional SSE event a /talk turn sends when a call waits for a person's approval. */
export const APPROVAL_REQUIRED_EVENT = 'approval.required';

/** Key of the approval extension under the catalog's top-level `extensions`. */
export const APPROVAL_EXTENSION = 'io.restap/approval';

/**
 * What the catalog declares of the extension: everything in it is optional for a client (the
 * spec: unknown SSE events are ignored, unknown JSON fields too), and a plain client still reads
 * the question in the reply text and may answer "approve" or "deny" in words.
 */
export const APPROVAL_EXTENSION_ENTRY = Object.freeze({
  version: '1',
  capability: 'talk',
  description:
    "Some calls the agent makes need a person's approval. The turn then sends the optional SSE event approval.required (JSON reply: approval_required) and asks the question in its reply; answer in the same session with the request field approval, or the message approve / deny.",
  events: [APPROVAL_REQUIRED_EVENT],
  request_fields: {
    approval: {
      type: 'object',
      required: ['id', 'decision'],
      additionalProperties: false,
      properties: { id: { type: 'string', pattern: '^apr_[A-Za-z0-9_-]{32}$' }, decision: { enum: ['approve', 'deny'] } },
    },
  },
  response_fields: {
    approval_required: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'capability', 'arguments', 'question', 'expires_at'],
        properties: { id: { type: 'string' }, capability: { type: 'string' }, arguments: {}, question: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } },
      },
    },
  },
});

// The A2A door's public names, in a file of their own: reading them loads no SDK.

/**
 * URI of the A2A extension that lets a client call a capability by name: a message whose data part
 * is `{ "capability": "<id>", "arguments": { ... } }` runs that capability (input schemas in the
 * RESTAP catalog, at `params.catalog`) and answers with its result as a data artifact.
 */
export const CAPABILITY_EXTENSION_URI = 'https://restap.dev/a2a/extensions/capabilities/v1';

/** The conversation skill's id: plain text to the @Talk() handler. */
export const TALK_SKILL_ID = 'talk';

import { InvalidRequestException } from '../../exceptions';
import { assertStorableText } from '../../text/storable-text';
import { codePointLength } from '../../text/code-points';

/**
 * The one rule for what a turn says, on every door (RESTAP's POST /talk, MCP's `talk` tool, A2A's
 * text parts), as news has one parser: not blank, at most `maxLength` characters counted in code
 * points (`talk.maxMessageLength`; an emoji is one), storable as is (no NUL, no unpaired surrogate:
 * see `assertStorableText`). Throws 400 invalid_request saying which.
 */
export function checkTurnMessage(message: string, maxLength: number): void {
  if (!message.trim()) {
    throw new InvalidRequestException('Field "message" must not be empty or only whitespace.');
  }
  // UTF-16 length bounds the code point count from above: count code points only when it matters.
  if (message.length > maxLength && codePointLength(message) > maxLength) {
    throw new InvalidRequestException(`Field "message" is longer than the ${maxLength} characters allowed.`);
  }
  assertStorableText(message, 'message');
}

import { Matches } from 'class-validator';
import { STORABLE_TEXT_PATTERN } from '../text/storable-text';

/**
 * A DTO string a PostgreSQL text column can store exactly: no NUL (U+0000), no unpaired UTF-16
 * surrogate (the module's own rule, `assertStorableText`). The ValidationPipe refuses the rest with
 * 400, and the catalog, MCP's inputSchema and the model's tools advertise it as a `pattern`.
 *
 * @example
 * @IsString() @IsStorableText() title: string;
 */
export const IsStorableText = (): PropertyDecorator =>
  Matches(STORABLE_TEXT_PATTERN, { message: '$property must not contain a NUL (U+0000) character or an unpaired UTF-16 surrogate: it cannot be stored' });

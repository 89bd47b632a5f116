import { SetMetadata } from '@nestjs/common';
import { TALK_METADATA } from '../restap.constants';

/**
 * Marks the one provider method that answers POST /talk. It receives a `TalkContext` and may
 * return a string, a Promise of one, an Observable or an AsyncIterable of strings / `TalkChunk`s.
 *
 * @example
 * @Talk()
 * answer(ctx: TalkContext): Observable<string> { return this.llm.stream(ctx.toMessages(), ctx.signal); }
 */
export const Talk = (): MethodDecorator => SetMetadata(TALK_METADATA, true);

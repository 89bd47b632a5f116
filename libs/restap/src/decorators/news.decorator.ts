import { SetMetadata } from '@nestjs/common';
import { NEWS_METADATA } from '../restap.constants';

/**
 * Marks a provider method that consumes items posted to /news, after they are stored. Its return
 * value is ignored and its errors are logged: /news never replies.
 *
 * @example
 * @News()
 * async remember(item: NewsItem): Promise<void> { await this.memory.add(item); }
 */
export const News = (): MethodDecorator => SetMetadata(NEWS_METADATA, true);

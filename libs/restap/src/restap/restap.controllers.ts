import { UseGuards, type Type } from '@nestjs/common';
import { DEFAULT_NEWS_PATH, DEFAULT_TALK_PATH } from '../restap.constants';
import type { RestapModuleExtras } from '../interfaces/restap-options.interface';
import { createTalkController } from './talk/talk.controller';
import { createNewsController } from './news/news.controller';
import { RestapGuardsRunner } from '../guards/restap-guards.runner';
import { RestapThrottlerGuard } from '../guards/restap-throttler.guard';

/**
 * The module's /talk and /news controllers, created per module definition because their paths are
 * options. Each gets the module's guards: the rate limit first, then
 * the `guards` option (both after the host's global guards, which Nest runs first).
 */
export function createRestapControllers(extras: RestapModuleExtras): Array<Type<unknown>> {
  const talkPath = extras.talkPath ?? DEFAULT_TALK_PATH;
  const newsPath = extras.newsPath ?? DEFAULT_NEWS_PATH;
  const controllers: Array<Type<unknown>> = [createTalkController(talkPath), createNewsController(newsPath)];
  for (const controller of controllers) UseGuards(RestapThrottlerGuard, RestapGuardsRunner)(controller);
  return controllers;
}

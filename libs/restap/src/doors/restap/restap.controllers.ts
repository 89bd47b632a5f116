import { UseGuards, type Type } from '@nestjs/common';
import { DEFAULT_NEWS_PATH, DEFAULT_TALK_PATH } from '../../restap.constants';
import type { RestapModuleExtras } from '../../interfaces/restap-options.interface';
import { createTalkController } from './talk/talk.controller';
import { createNewsController } from './news/news.controller';
import { RestapGuardsRunner } from '../kit/guards/restap-guards.runner';

/**
 * The module's /talk and /news controllers, created per module definition because their paths are
 * options. Each gets the `guards` option, after the host's global guards (which Nest runs first);
 * `guarded: false` (forRoot without `guards`) leaves the runner off, as it would pass everything.
 * `routeDecorators` are applied to both classes. The rate limit is not a guard: the front door applies it before the body is read.
 */
export function createRestapControllers(extras: RestapModuleExtras, guarded: boolean): Array<Type<unknown>> {
  const talkPath = extras.talkPath ?? DEFAULT_TALK_PATH;
  const newsPath = extras.newsPath ?? DEFAULT_NEWS_PATH;
  const controllers: Array<Type<unknown>> = [createTalkController(talkPath), createNewsController(newsPath)];
  for (const controller of controllers) {
    if (guarded) UseGuards(RestapGuardsRunner)(controller);
    // The host's own class decorators (`Public()`, `SkipThrottle()`), as on a controller of its own.
    for (const decorate of extras.routeDecorators ?? []) decorate(controller);
  }
  return controllers;
}

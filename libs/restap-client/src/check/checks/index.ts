import type { CheckDefinition } from '../check.types';
import { discoveryChecks } from './discovery.checks';
import { newsSessionChecks } from './news-session.checks';
import { protocolsChecks } from './protocols.checks';
import { newsChecks } from './news.checks';
import { sessionsChecks } from './sessions.checks';
import { sseChecks } from './sse.checks';
import { talkChecks } from './talk.checks';

/** Every rule, in spec order. Ids are unique (a unit spec keeps them so). */
export const CONFORMANCE_CHECKS: readonly CheckDefinition[] = [
  ...discoveryChecks,
  ...talkChecks,
  ...sseChecks,
  ...sessionsChecks,
  ...newsChecks,
  ...newsSessionChecks,
  ...protocolsChecks,
];

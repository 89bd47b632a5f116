/** Public API of `restap-client`. */
export { RestapClient } from './restap.client';
export { RestapError, isTransientError } from './errors/restap.error';
export type { RestapClientErrorCode, RestapErrorInit } from './errors/restap.error';
export { TalkStream, collectText } from './talk/talk.stream';
export type { TalkResult, TalkTransportKind } from './talk/talk.stream';
export type { TalkOptions } from './talk/talk.options';
export { NewsClient } from './news/news.client';
export type { NewsListOptions, NewsFollowOptions, NewsPostOptions } from './news/news.options';
export type { CapabilityCallOptions } from './capabilities/call.options';
export type { PathParams } from './capabilities/capability.path';
export type { SchemaIssue } from './capabilities/schema.validator';
export type { QueryParams } from './http/transport';
export type { CallOptions, FetchLike, RestapClientOptions } from './interfaces/options.interface';
export type * from './interfaces/catalog.interface';
export type * from './interfaces/talk.interface';
export type * from './interfaces/news.interface';
export { validateCatalog } from './catalog/catalog.validator';
export type { CatalogValidation } from './catalog/catalog.validator';
export { locateCatalog } from './catalog/catalog.location';
export type { CatalogLocation } from './catalog/catalog.location';
export { SESSION_ID_HEADER, SESSION_ID_PATTERN, IDEMPOTENCY_KEY_HEADER, CATALOG_PATH } from './restap.constants';
export { runConformance } from './check/run-conformance';
export type { ConformanceOptions } from './check/run-conformance';
export { CONFORMANCE_CHECKS } from './check/checks';
export { CheckContext, PROBE_MESSAGE } from './check/check.context';
export type { Probe, ProbeRequest } from './check/check.probe';
export type {
  CheckDefinition,
  CheckGroup,
  CheckLevel,
  CheckResult,
  CheckStatus,
  ConformanceReport,
  ConformanceSummary,
} from './check/check.types';
export { formatReport, formatSummary } from './check/check.report';
export type { ReportStyle } from './check/check.report';
export { renderSkill, skillName } from './skill/skill.renderer';

import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { context, trace } from '@opentelemetry/api';

/** Query parameters whose values an access line may show: RESTAP's numeric paging parameters. */
const SHOWN_VALUES = new Set(['since', 'limit']);
/** Known parameters shown by name only: their values are secrets or unbounded text. */
const SHOWN_NAMES = new Set(['session_id']);

/** A query parameter's name as the app's query parser reads it (`session%5Fid` is `session_id`). */
function decodedName(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * A request URL as it may be logged. Parameters are judged by their decoded name, as the app
 * reads them, never by their spelling: `since` and `limit` keep short numeric values, a
 * `session_id` (however encoded) shows as `session_id=[redacted]`, and any other parameter as
 * `[redacted]` — a name can be a secret too (`?<token>`).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const shown = query.split('&').filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=');
    const name = decodedName(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (name !== undefined && SHOWN_VALUES.has(name) && /^\d{1,16}$/.test(value)) return `${name}=${value}`;
    if (name !== undefined && (SHOWN_VALUES.has(name) || SHOWN_NAMES.has(name))) return `${name}=[redacted]`;
    return '[redacted]';
  });
  return `${url.slice(0, q)}?${shown.join('&')}`;
}

/**
 * The sample's access log (RESTAP_ACCESS_LOG=1): method, path with query values redacted (see
 * `redactUrl`), status and duration, when the response ends, and the request's `trace_id`/`span_id`
 * when a span is active for it (the SDK's http instrumentation, see sample.telemetry.ts). Headers
 * and bodies are never logged.
 */
export function accessLog(logger = new Logger('Access')): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const span = trace.getSpan(context.active())?.spanContext();
    const ids = span && trace.isSpanContextValid(span) ? ` trace_id=${span.traceId} span_id=${span.spanId}` : '';
    res.on('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log(`${req.method} ${redactUrl(req.originalUrl)} ${res.statusCode} ${ms.toFixed(1)} ms${res.writableFinished ? '' : ' (client left)'}${ids}`);
    });
    next();
  };
}

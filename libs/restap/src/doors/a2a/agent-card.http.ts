import type { Request, Response } from 'express';

/** How long a browser may keep the card's CORS preflight, seconds. */
const PREFLIGHT_MAX_AGE = 86_400;

/**
 * What the door adds around the SDK's card handler (issue 38, item 6):
 *
 * - CORS: the card is public, so any page may read it (`Access-Control-Allow-Origin: *`, its
 *   `ETag` and `Last-Modified` exposed); a preflight is answered by {@link answerCardPreflight};
 * - a strong ETag: the SDK writes `W/"<sha-256 of the body>"`, but the tag names these exact bytes,
 *   so it is strong — the SDK's weak one is written without the `W/`;
 * - `Last-Modified`: when the card was built (it changes only with a restart);
 * - a conditional request (`If-None-Match`) gets 304 when the tag matches even if it also says
 *   `Cache-Control: no-cache`, as a browser's reload does: no-cache addresses caches, an origin
 *   server still evaluates the condition (RFC 9111 5.2.1.4, RFC 9110 13.1.2). Express's `req.fresh`,
 *   which the SDK asks, treats no-cache as "never fresh", so the directive is not shown to it.
 */
export function prepareCardResponse(req: Request, res: Response, builtAt: Date): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'ETag, Last-Modified');
  res.setHeader('Last-Modified', builtAt.toUTCString());
  const setHeader = res.setHeader.bind(res);
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    setHeader(name, name.toLowerCase() === 'etag' && typeof value === 'string' ? value.replace(/^W\//, '') : value)) as Response['setHeader'];
  if (req.headers['if-none-match'] !== undefined) {
    delete req.headers['cache-control'];
    delete req.headers.pragma;
  }
}

/** The CORS preflight of the card (OPTIONS): any origin may GET it, with the A2A-Version header. */
export function answerCardPreflight(req: Request, res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  const asked = req.headers['access-control-request-headers'];
  res.setHeader('Access-Control-Allow-Headers', typeof asked === 'string' && /^[A-Za-z0-9-, ]{1,500}$/.test(asked) ? asked : 'A2A-Version');
  res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
  res.status(204).end();
}

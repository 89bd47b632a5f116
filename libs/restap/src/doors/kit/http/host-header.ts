/**
 * A `Host` header as RFC 9110 allows it: a DNS name or IPv4 address, or an IPv6 literal in
 * brackets, and an optional port of at most 65535. Anything else (`user@evil.example`, spaces,
 * `[::1`, markup) is refused by the doors that build URLs from it (the MCP SDK's web `Request`,
 * the A2A card's interface URLs), before it can reach a URL parser or a cached document.
 */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/** True when `host` is a well-formed `Host` header value (see {@link HOST}). */
export function isValidHost(host: string | undefined): host is string {
  if (host === undefined || host.length > 300) return false;
  const match = HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

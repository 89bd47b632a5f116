import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

/** What a webhook check allows (`a2a.pushNotifications`). */
export interface PushWebhookPolicy {
  allowHosts: string[] | '*';
  allowHttp: boolean;
}

/**
 * Addresses a webhook may not reach unless its host is allowed: loopback, "this network", private
 * (RFC 1918, unique local), carrier-grade NAT, link-local (cloud metadata at 169.254.169.254),
 * benchmarking, multicast and reserved ranges, IPv4 and IPv6 (IPv4-mapped IPv6 is checked as IPv4).
 */
const NON_PUBLIC = (() => {
  const list = new BlockList();
  for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
    list.addSubnet(net, prefix, 'ipv4');
  }
  for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
    list.addSubnet(net, prefix, 'ipv6');
  }
  return list;
})();

/** True for an address a webhook may reach without being allowed by name. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The SSRF check of a push-notification webhook URL: `https:` (or `http:` when allowed), no
 * credentials in the URL, and a host that is allowed by name (`allowHosts`) or resolves only to
 * public addresses. Returns why the URL is refused, or undefined when it may be called.
 *
 * It runs when a config is stored and again before each delivery (a name may resolve elsewhere
 * later). The SDK's sender then resolves the name once more itself: a DNS server that answers a
 * public address to the check and a private one to the sender (rebinding within the TTL) is not
 * stopped here — allow only hosts you trust if that matters, or route webhooks through an egress proxy.
 */
export async function webhookProblem(raw: string, policy: PushWebhookPolicy, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The webhook url is not an absolute URL.';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return `The webhook url must be ${policy.allowHttp ? 'http: or https:' : 'https:'}.`;
  if (url.username || url.password) return 'The webhook url must not carry credentials: put them in the config\'s authentication.';
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (policy.allowHosts === '*' || policy.allowHosts.includes(host)) return undefined;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return 'The webhook url\'s host does not resolve.';
  }
  if (!addresses.length) return 'The webhook url\'s host does not resolve.';
  if (addresses.some((address) => !isPublicAddress(address))) {
    return 'The webhook url reaches a loopback, private or link-local address, which this agent does not call (allow its host in a2a.pushNotifications.allowHosts).';
  }
  return undefined;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

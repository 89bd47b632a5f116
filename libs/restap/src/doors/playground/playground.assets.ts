import { createHash } from 'node:crypto';
import { PLAYGROUND_SOURCES } from './playground-sources.generated';

/** One asset, ready to write: bytes and every header but the security ones. */
export interface PlaygroundAsset {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string | number>>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The page is small and changes with the package: revalidate it every time (304 when unchanged). */
const PAGE_CACHE = 'no-cache';
/** Assets live under a URL naming their content's hash, so a browser may keep them for good. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * The playground's fixed in-memory asset map, built once from the sources compiled into the
 * package (playground-sources.generated.ts). A request is answered by looking its path up in this
 * map: no path is ever built from a request and nothing is read from disk, so no request can reach
 * any other file (LangServe's playground once served arbitrary files that way).
 *
 * Keys: `''` for the page, `assets/<version>/<name>` for the rest, where `<version>` hashes every
 * source: a new package version never meets a stale cached module.
 *
 * @example
 * new PlaygroundAssets('/api/playground', '/.well-known/restap.json').get('') // the page
 */
export class PlaygroundAssets {
  readonly version: string;
  private readonly assets = new Map<string, PlaygroundAsset>();

  /**
   * `oauthClientId`: the playground's client at the authorization server (`auth.oauth.playgroundClientId`),
   * named in the page so it can offer "Sign in"; the page finds the server itself through the catalog.
   */
  constructor(basePath: string, catalogPath: string, oauthClientId = '') {
    const hash = createHash('sha256');
    for (const [name, text] of Object.entries(PLAYGROUND_SOURCES)) hash.update(name).update('\0').update(text).update('\0');
    this.version = hash.digest('base64url').slice(0, 12);
    const assetBase = `${basePath}/assets/${this.version}`;
    for (const [name, text] of Object.entries(PLAYGROUND_SOURCES)) {
      if (name === 'index.html') {
        // The page names its assets and the catalog by absolute path, so it works with or without a trailing slash.
        const page = text
          .replaceAll('{{assets}}', escapeAttribute(assetBase))
          .replaceAll('{{catalog}}', escapeAttribute(catalogPath))
          .replaceAll('{{base}}', escapeAttribute(basePath))
          .replaceAll('{{oauthClient}}', escapeAttribute(oauthClientId));
        this.assets.set('', asset(page, 'html', PAGE_CACHE));
      } else {
        this.assets.set(`assets/${this.version}/${name}`, asset(text, extensionOf(name), ASSET_CACHE));
      }
    }
  }

  /** The asset at `key` (relative to the playground path), if the map holds one. */
  get(key: string): PlaygroundAsset | undefined {
    return this.assets.get(key);
  }

  /** Every asset's size in bytes, page included (the page must stay light: under 100 KB in all). */
  totalBytes(): number {
    let total = 0;
    for (const { body } of this.assets.values()) total += body.length;
    return total;
  }
}

function asset(text: string, extension: string, cacheControl: string): PlaygroundAsset {
  const body = Buffer.from(text, 'utf8');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const contentType = CONTENT_TYPES[extension];
  if (!contentType) throw new Error(`Playground asset type .${extension} has no content type.`);
  return { body, headers: { 'Content-Type': contentType, 'Content-Length': body.length, ETag: etag, 'Cache-Control': cacheControl } };
}

function extensionOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

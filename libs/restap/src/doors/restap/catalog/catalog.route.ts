import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Server, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { CATALOG_PATH, RESTAP_OPTIONS } from '../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { CatalogService } from './catalog.service';

/**
 * Serves GET/HEAD /.well-known/restap.json at the root whatever global prefix the app sets, as
 * pre-serialized bytes with pre-built headers (bench: discovery vs bare node:http). The front door
 * (http/restap-front-door.ts) calls `serve()` ahead of the body parsers and Nest's router, after
 * the module's CORS; host middleware added later with `app.use()` does not see these requests.
 *
 * When no `cors` option asks for per-origin headers, the catalog is answered one step earlier
 * still, on the HTTP server itself, before Express: the document is public and identical for
 * everyone, and Express's per-request setup costs several times the bytes' own write.
 */
@Injectable()
export class CatalogRoute implements OnApplicationBootstrap {
  private headers?: OutgoingHttpHeaders;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly catalog: CatalogService,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
  ) {}

  onApplicationBootstrap(): void {
    const server: unknown = this.adapterHost.httpAdapter?.getHttpServer?.();
    if (this.options.cors || !(server instanceof Server)) return;
    const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    if (listeners.length !== 1) return; // someone else composes this server's listeners: leave them be
    const [app] = listeners;
    server.removeListener('request', app);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if ((req.method === 'GET' || req.method === 'HEAD') && isCatalogUrl(req.url)) this.serve(req, res);
      else app.call(server, req, res);
    });
  }

  /** Writes the catalog (or 304). Also called by the front door when the server-level path is off. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const { bytes, etag } = this.catalog.serialize();
    this.headers ??= {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': bytes.length,
      ETag: etag,
      'Cache-Control': this.options.catalogCacheControl,
    };
    if (matchesEtag(req.headers['if-none-match'], etag)) {
      res.writeHead(304, { ETag: etag, 'Cache-Control': this.options.catalogCacheControl });
      res.end();
      return;
    }
    res.writeHead(200, this.headers);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }
}

/** The catalog path, with or without a query string (express matches paths, not queries). */
function isCatalogUrl(url: string | undefined): boolean {
  if (!url?.startsWith(CATALOG_PATH)) return false;
  return url.length === CATALOG_PATH.length || url[CATALOG_PATH.length] === '?';
}

/** RFC 9110 If-None-Match: `*` or a list of entity tags (weak comparison). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

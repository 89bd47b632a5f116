import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { CATALOG_PATH, RESTAP_OPTIONS } from '../restap.constants';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';
import { CatalogService } from './catalog.service';

/**
 * Serves GET/HEAD /.well-known/restap.json at the root whatever global prefix the app sets. It
 * is registered on the HTTP adapter while the application is created, so it answers ahead of
 * the body parsers and Nest's router: a request costs one path comparison and one write of the
 * pre-serialized bytes with pre-built headers (bench: discovery vs bare node:http). Host
 * middleware added later with `app.use()` does not see these requests.
 */
@Injectable()
export class CatalogRoute {
  private headers?: OutgoingHttpHeaders;

  constructor(
    adapterHost: HttpAdapterHost,
    private readonly catalog: CatalogService,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
  ) {
    // An application context without HTTP serves no routes.
    adapterHost.httpAdapter?.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      if ((req.method === 'GET' || req.method === 'HEAD') && isCatalogUrl(req.url)) this.serve(req, res);
      else next();
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
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

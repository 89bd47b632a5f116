import { Injectable, Inject, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { CATALOG_PATH, RESTAP_OPTIONS } from '../restap.constants';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';
import { CatalogService } from './catalog.service';

/**
 * Serves GET /.well-known/restap.json straight on the HTTP adapter: at the root whatever global
 * prefix the app sets, with no reflection, pipes or serialisation per request.
 */
@Injectable()
export class CatalogRoute implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly catalog: CatalogService,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return; // an application context without HTTP serves no routes
    const handler = (req: Request, res: Response): void => this.serve(req, res);
    adapter.get(CATALOG_PATH, handler);
    adapter.head(CATALOG_PATH, handler);
  }

  private serve(req: Request, res: Response): void {
    const { bytes, etag } = this.catalog.serialize();
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', this.options.catalogCacheControl);
    res.setHeader('Vary', 'Accept-Encoding');
    if (matchesEtag(req.headers['if-none-match'], etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', bytes.length);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }
}

/** RFC 9110 If-None-Match: `*` or a list of entity tags (weak comparison). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

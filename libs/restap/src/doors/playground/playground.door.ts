import type { PlaygroundDoorOptions } from './playground.options';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { CATALOG_PATH, RESTAP_OPTIONS } from '../../restap.constants';
import { MethodNotAllowedException, RouteNotFoundException } from '../../exceptions';
import { writeDoorError } from '../kit/http/door-error.writer';
import { PlaygroundAssets, type PlaygroundAsset } from './playground.assets';

/**
 * Headers of every playground answer. The CSP allows only the page's own script and style files
 * (no inline script or style, no eval) and requests to its own origin (`connect-src 'self'`):
 * the catalog, /talk, /news and the capability routes the page calls.
 */
export const PLAYGROUND_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const ALLOW = ['GET', 'HEAD'] as const;

/**
 * The playground door: serves the page and its assets at `playground.path` (below the global
 * prefix) from the fixed in-memory map of `PlaygroundAssets`. An Express middleware registered once
 * Nest has registered the host's middleware and routes (`onModuleInit`), so the host's own
 * middleware (`app.use()` in main.ts, `MiddlewareConsumer`) runs before it, as before a controller
 * route. The module's guards do not: the page is public like the catalog (the calls it makes to
 * /talk, /news and the capabilities meet their guards as any client's do). Every answer, its 404
 * and 405 included, carries the page's security headers. Off unless `playground.enabled`; it
 * imports nothing from the other doors.
 */
@Injectable()
export class PlaygroundDoor implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('RestapPlayground');
  private basePath?: string;
  private assets?: PlaygroundAssets;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: ApplicationConfig,
    @Inject(RESTAP_OPTIONS) private readonly options: PlaygroundDoorOptions,
  ) {}

  onModuleInit(): void {
    if (!this.options.playground.enabled) return;
    this.adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.handle(req, res, next));
  }

  /** Builds the asset map once the app is set up (its global prefix known) and says where the page is. */
  onApplicationBootstrap(): void {
    if (this.options.playground.enabled) void this.path;
  }

  /** The page's path with the global prefix, read once `setGlobalPrefix` has run (after the module was created). */
  get path(): string {
    if (this.basePath === undefined) {
      const prefix = this.appConfig.getGlobalPrefix().replace(/^\/+|\/+$/g, '');
      this.basePath = `${prefix ? `/${prefix}` : ''}${this.options.playground.path}`;
      this.assets = new PlaygroundAssets(this.basePath, CATALOG_PATH);
      this.logger.log(`Playground at ${this.basePath} (${Math.round(this.assets.totalBytes() / 1024)} KB)`);
    }
    return this.basePath;
  }

  private handle(req: Request, res: Response, next: NextFunction): void {
    const base = this.path;
    const path = req.path;
    if (path !== base && !path.startsWith(`${base}/`)) return next();
    res.removeHeader('X-Powered-By'); // like the module's other answers: nothing about the stack
    for (const [name, value] of Object.entries(PLAYGROUND_SECURITY_HEADERS)) res.setHeader(name, value);
    // The map key is compared, never used to build a file path.
    const key = path === base || path === `${base}/` ? '' : path.slice(base.length + 1);
    const asset = (this.assets as PlaygroundAssets).get(key);
    if (!asset) return writeDoorError(res, new RouteNotFoundException("There is no playground asset at this path."));
    if (req.method !== 'GET' && req.method !== 'HEAD') return writeDoorError(res, new MethodNotAllowedException(ALLOW));
    this.serve(req, res, asset);
  }

  private serve(req: IncomingMessage, res: ServerResponse, asset: PlaygroundAsset): void {
    const etag = asset.headers.ETag as string;
    if (req.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      res.writeHead(304, { ETag: etag, 'Cache-Control': asset.headers['Cache-Control'] });
      res.end();
      return;
    }
    res.writeHead(200, asset.headers);
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }
}

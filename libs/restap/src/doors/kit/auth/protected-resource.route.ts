import { Inject, Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { MethodNotAllowedException } from '../../../exceptions';
import { doorPathOf } from '../door-pipeline';
import { writeDoorError } from '../http/door-error.writer';
import { writeJson } from '../http/restap-json.writer';
import { OAUTH_RESOURCE, PROTECTED_RESOURCE_PATH, type OAuthGate } from './oauth-gate';

/**
 * Serves the protected resource metadata (RFC 9728) when `auth.oauth` is on: at
 * `/.well-known/oauth-protected-resource`, and at its path-suffixed forms for the MCP and A2A
 * endpoints (`/.well-known/oauth-protected-resource/mcp`), where MCP clients look first. Public,
 * with `Access-Control-Allow-Origin: *` (browser clients discover it too). Without OAuth no
 * middleware is registered.
 */
@Injectable()
export class ProtectedResourceRoute {
  private readonly paths: Set<string>;

  constructor(
    adapterHost: HttpAdapterHost,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    @Optional() @Inject(OAUTH_RESOURCE) private readonly resource: OAuthGate | null = null,
  ) {
    this.paths = new Set([PROTECTED_RESOURCE_PATH, ...[options.doorPaths.mcp, options.doorPaths.a2a].filter((path) => path !== undefined).map((path) => `${PROTECTED_RESOURCE_PATH}${path}`)]);
    if (resource) this.paths.add(new URL(resource.metadataUrl).pathname);
    if (!resource) return;
    adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.handle(req, res, next));
  }

  private handle(req: Request, res: Response, next: NextFunction): void {
    if (!req.path.startsWith(PROTECTED_RESOURCE_PATH) || !this.paths.has(doorPathOf(req))) return next();
    res.removeHeader('X-Powered-By');
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? '*');
      res.statusCode = 204;
      return void res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return writeDoorError(res, new MethodNotAllowedException(['GET', 'HEAD', 'OPTIONS']));
    try {
      const { body } = (this.resource as OAuthGate).document();
      writeJson(res, 200, req.method === 'HEAD' ? '' : body);
    } catch (error) {
      writeDoorError(res, error);
    }
  }
}

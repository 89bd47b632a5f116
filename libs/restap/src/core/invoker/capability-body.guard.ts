import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { InvalidRequestException } from '../../exceptions/invalid-request.exception';
import { tooDeepMessage, withinDepth } from '../../text/json-depth';

/**
 * Applied by `@Capability()` to its route alone: a body nested deeper than `limits.maxJsonDepth`
 * is 400 `invalid_request` before the host's pipes see it. The host's body parser reads a few
 * thousand levels in a small body without complaint, and class-transformer (ValidationPipe with
 * `transform`) recurses through them until the stack overflows: a 500 for a client's mistake.
 * Guards run ahead of every pipe, the global ones included. In-process calls (MCP, A2A, the
 * model's tools) pass through it too, with their arguments as the body. In an app without
 * RestapModule the decorator is inert, and so is this guard.
 */
@Injectable()
export class CapabilityBodyGuard implements CanActivate {
  private readonly maxDepth: number | undefined;

  constructor(@Optional() @Inject(RESTAP_OPTIONS) options?: ResolvedRestapCoreOptions) {
    this.maxDepth = options?.limits.maxJsonDepth;
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.maxDepth === undefined || context.getType() !== 'http') return true;
    if (!withinDepth(context.switchToHttp().getRequest<Request>().body, this.maxDepth)) throw new InvalidRequestException(tooDeepMessage(this.maxDepth));
    return true;
  }
}

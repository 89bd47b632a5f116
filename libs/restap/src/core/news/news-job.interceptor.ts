import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { mergeMap, Observable } from 'rxjs';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { RestapRegistry } from '../registry/restap.registry';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { randomToken } from '../../sessions/random-token';
import { resolveSessionId } from '../../sessions/session-id';
import { NewsService } from './news.service';

/**
 * Applied by `@Capability({ news: true })` to that route alone. After the handler succeeds it publishes the spec's `job.completed` item
 *     { type, job_id, query_id, data: { query_id, result } }
 * (job_id taken from the result when it has one), tagged to the request's session when the call
 * carried one (Restap-Session-Id header or session_id query). The response waits for the commit,
 * so a client that polls /news right after the call finds the item; a failure to publish is
 * logged and never changes the capability's own answer.
 */
@Injectable()
export class NewsJobInterceptor implements NestInterceptor {
  private readonly logger = new Logger('RestapNews');

  constructor(
    private readonly registry: RestapRegistry,
    private readonly news: NewsService,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || !this.options.news.enabled) return next.handle();
    const capability = this.registry.getCapabilityOf(context.getClass().name, context.getHandler().name);
    if (!capability?.options.news) return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        await this.publish(capability.options.id, result, req);
        return result;
      }),
    );
  }

  private async publish(capabilityId: string, result: unknown, req: Request): Promise<void> {
    let sessionId: string | undefined;
    try {
      sessionId = resolveSessionId(req, undefined, ['header', 'query']);
    } catch {
      sessionId = undefined; // a malformed id did not stop the capability; it just tags nothing
    }
    if (sessionId === undefined && this.options.news.scope === 'session') return; // no feed to put it in
    const value = toJson(result);
    const { job_id: ownId, ...rest } = isRecord(value) ? value : { job_id: undefined };
    const jobId = typeof ownId === 'string' && ownId ? ownId : `job_${randomToken(9)}`;
    const data = { query_id: jobId, result: isRecord(value) ? rest : (value ?? null) };
    try {
      await this.news.publish({ type: 'job.completed', job_id: jobId, query_id: jobId, data }, { sessionId });
    } catch (error) {
      this.logger.error(`job.completed of ${capabilityId} (${jobId}) was not published: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The result as the client received it in JSON (DTO instances become plain objects). */
function toJson(result: unknown): unknown {
  try {
    const text = JSON.stringify(result);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

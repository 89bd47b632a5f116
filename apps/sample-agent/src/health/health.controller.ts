import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';
import type { Response } from 'express';

/** Longest wait for the database ping of the readiness check, ms. */
export const READINESS_PING_TIMEOUT_MS = 1500;

/** `Retry-After` of a 503 readiness answer, seconds: as /talk's and /news's 503 storage_unavailable. */
export const READINESS_RETRY_AFTER_S = 1;

/**
 * Liveness and readiness through `@nestjs/terminus`. Not capabilities: they carry no
 * `@Capability()`, so the catalog leaves them out, and Swagger does too.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  /** The process answers: 200 `{status: "ok"}`, whatever the database does (no restart for a DB outage). */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Ready for traffic: the database answers `SELECT 1` in time; else 503 with `database: down` and `Retry-After`. */
  @Get('ready')
  @HealthCheck()
  async ready(@Res({ passthrough: true }) res: Response): Promise<HealthCheckResult> {
    try {
      return await this.health.check([() => this.db.pingCheck('database', { timeout: READINESS_PING_TIMEOUT_MS })]);
    } catch (error) {
      // terminus answers a failed check with a bare 503: say when to ask again, as the module's 503s do.
      res.setHeader('Retry-After', String(READINESS_RETRY_AFTER_S));
      throw error;
    }
  }
}

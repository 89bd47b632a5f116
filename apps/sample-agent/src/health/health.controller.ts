import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';

/** Longest wait for the database ping of the readiness check, ms. */
export const READINESS_PING_TIMEOUT_MS = 1500;

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

  /** Ready for traffic: the database answers `SELECT 1` in time; else 503 with `database: down`. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.db.pingCheck('database', { timeout: READINESS_PING_TIMEOUT_MS })]);
  }
}

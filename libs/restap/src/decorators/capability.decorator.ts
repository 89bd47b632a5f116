import { applyDecorators, SetMetadata, UseGuards, UseInterceptors } from '@nestjs/common';
import { CAPABILITY_METADATA } from '../restap.constants';
import type { CapabilityOptions } from '../interfaces/capability-options.interface';
import { NewsJobInterceptor } from '../core/news/news-job.interceptor';
import { CapabilityBodyGuard } from '../core/invoker/capability-body.guard';

/**
 * Advertises a controller route in the RESTAP catalog. Method, endpoint and schemas are derived
 * from the route and its DTOs at bootstrap.
 *
 * @example
 * @Post('echo')
 * @Capability({ id: 'text.echo', title: 'Echo text back', output: EchoResultDto })
 * echo(@Body() body: TextDto): EchoResultDto { … }
 */
export const Capability = (options: CapabilityOptions): MethodDecorator =>
  applyDecorators(
    SetMetadata(CAPABILITY_METADATA, Object.freeze({ ...options })),
    // The body's nesting, checked ahead of the host's pipes (limits.maxJsonDepth).
    UseGuards(CapabilityBodyGuard),
    // Only routes that publish job.completed pay for an interceptor; every other route of the
    // host runs without one (a global interceptor would wrap each request in an RxJS pipeline).
    ...(options.news ? [UseInterceptors(NewsJobInterceptor)] : []),
  );

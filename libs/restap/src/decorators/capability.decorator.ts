import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { CAPABILITY_METADATA } from '../restap.constants';
import type { CapabilityOptions } from '../interfaces/capability-options.interface';
import { NewsJobInterceptor } from '../core/news/news-job.interceptor';

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
    // Only routes that publish job.completed pay for an interceptor; every other route of the
    // host runs without one (a global interceptor would wrap each request in an RxJS pipeline).
    ...(options.news ? [UseInterceptors(NewsJobInterceptor)] : []),
  );

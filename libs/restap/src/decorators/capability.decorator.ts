import { SetMetadata } from '@nestjs/common';
import { CAPABILITY_METADATA } from '../restap.constants';
import type { CapabilityOptions } from '../interfaces/capability-options.interface';

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
  SetMetadata(CAPABILITY_METADATA, Object.freeze({ ...options }));

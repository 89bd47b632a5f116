import {
  Body, CanActivate, Controller, ExecutionContext, Get, Injectable, Module, Param, ParseArrayPipe, ParseBoolPipe, ParseEnumPipe,
  NotFoundException, ParseIntPipe, ParseUUIDPipe, Post, Query, SetMetadata, UnauthorizedException, ValidationPipe, type LoggerService,
} from '@nestjs/common';
import { APP_GUARD, NestFactory, Reflector } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { IsInt, IsString, Min } from 'class-validator';
import { Capability, RestapModule, Talk, type RestapModuleOptions } from 'nestjs-restap';
import { DatabaseModule } from '../../apps/sample-agent/src/database/database.module';
import type { DatabaseTarget } from '../../apps/sample-agent/src/database/database.options';
import { listen, type RunningApp } from '../support/sample-app';

/** The Nest docs' `@Public()` pattern (Authentication, "Enable authentication globally"). */
export const IS_PUBLIC_KEY = 'isPublic';
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);

/** The host's global guard: a bearer token everywhere except on what is marked `@Public()`. */
@Injectable()
export class HostAuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (req.headers.authorization === 'Bearer host-token') return true;
    throw new UnauthorizedException();
  }
}

export enum Colour { Red = 'red', Green = 'green' }

export class CreateOrderDto {
  @IsString() item: string;
  @IsInt() @Min(1) quantity: number;
}

@Controller('orders')
export class OrdersController {
  @Post()
  @Capability({ id: 'orders.create', title: 'Create an order' })
  create(@Body() body: CreateOrderDto): { item: string; quantity: number } {
    return { item: body.item, quantity: body.quantity };
  }

  @Get(':id')
  @Capability({ id: 'orders.get', title: 'Get an order' })
  get(@Param('id', ParseIntPipe) id: number): { id: number } {
    return { id };
  }

  @Get('by-ref/:ref')
  @Capability({ id: 'orders.by_ref', title: 'Get an order by reference' })
  byRef(
    @Param('ref', new ParseUUIDPipe()) ref: string,
    @Query('colour', new ParseEnumPipe(Colour)) colour: Colour,
    @Query('express', ParseBoolPipe) express: boolean,
    @Query('tags', new ParseArrayPipe({ items: Number, separator: ',' })) tags: number[],
  ): { ref: string } {
    return { ref: `${ref}:${colour}:${express}:${tags.join('+')}` };
  }

  /** Nest's own 404 body (`{statusCode, message, error: "Not Found"}`): the app has no RESTAP filter. */
  @Get('missing/:id')
  @Capability({ id: 'orders.missing', title: 'A missing order' })
  missing(@Param('id', ParseIntPipe) id: number): never {
    throw new NotFoundException(`No order ${id}.`);
  }

  /** A host route under the global guard: no exemption. */
  @Get()
  list(): string[] {
    return [];
  }
}

@Injectable()
export class EchoBrain {
  @Talk()
  answer(): string {
    return 'hello';
  }
}

export interface NewcomerAppOptions {
  restap?: Partial<RestapModuleOptions> & { routeDecorators?: ClassDecorator[] };
  hostGuard?: boolean;
  validationPipe?: boolean;
  logger?: LoggerService | false;
  /** main.ts settings (global prefix…), before listen. */
  configure?: (app: NestExpressApplication) => void;
}

/** A host the way a newcomer writes one: a global guard honouring @Public(), the doors, its own capabilities. */
export async function startNewcomerApp(database: DatabaseTarget, options: NewcomerAppOptions = {}): Promise<RunningApp> {
  @Module({
    imports: [
      DatabaseModule.forRoot(database),
      RestapModule.forRoot({ agent: { name: 'Newcomer' }, mcp: { enabled: true }, a2a: { enabled: true }, ...options.restap }),
    ],
    controllers: [OrdersController],
    providers: [EchoBrain, ...(options.hostGuard ? [{ provide: APP_GUARD, useClass: HostAuthGuard }] : [])],
  })
  class NewcomerModule {}
  const app = await NestFactory.create<NestExpressApplication>(NewcomerModule, { logger: options.logger ?? false });
  if (options.validationPipe !== false) app.useGlobalPipes(new ValidationPipe({ transform: true }));
  options.configure?.(app);
  return listen(app);
}

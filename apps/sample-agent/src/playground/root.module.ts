import { Module } from '@nestjs/common';
import { RootController } from './root.controller';

/** `GET /`: a redirect to the playground page. */
@Module({ controllers: [RootController] })
export class RootModule {}

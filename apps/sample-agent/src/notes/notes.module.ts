import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Note } from './note.entity';
import { NOTES_DIGEST_STEP_MS, NotesController } from './notes.controller';

/** The notes capabilities under /notes, stored in PostgreSQL. */
@Module({})
export class NotesModule {
  static register(digestStepMs: number): DynamicModule {
    return {
      module: NotesModule,
      imports: [TypeOrmModule.forFeature([Note])],
      controllers: [NotesController],
      providers: [{ provide: NOTES_DIGEST_STEP_MS, useValue: digestStepMs }],
    };
  }
}

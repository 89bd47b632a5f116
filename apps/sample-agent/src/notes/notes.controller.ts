import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, ParseIntPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { InjectRepository } from '@nestjs/typeorm';
import { Capability } from 'nestjs-restap';
import { Repository } from 'typeorm';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Note } from './note.entity';
import { CreateNoteDto, DeletedNoteDto, ListNotesQuery, NoteDto } from './note.dto';

const view = (note: Note): NoteDto => ({ id: note.id, title: note.title, body: note.body, created_at: note.createdAt.toISOString() });
/** `%` and `_` in the filter are text, not LIKE wildcards. */
const likePattern = (q: string): string => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The sample's second domain: notes with real state in PostgreSQL — create, list with a query
 * filter, get by id (a path parameter), delete (a consequential action). Every door sees them:
 * the catalog, MCP tools, A2A capability calls, the model's tools and the playground's cards.
 */
@ApiTags('notes')
@UseGuards(ApiKeyGuard)
@Controller('notes')
export class NotesController {
  constructor(@InjectRepository(Note) private readonly notes: Repository<Note>) {}

  @Post()
  @Capability({ id: 'notes.create', title: 'Create a note', description: 'Stores a note with a title and a body; answers it with its id', output: NoteDto })
  async create(@Body() body: CreateNoteDto): Promise<NoteDto> {
    return view(await this.notes.save(this.notes.create({ title: body.title, body: body.body ?? '' })));
  }

  @Get()
  @Capability({ id: 'notes.list', title: 'List notes', description: 'Newest first; q keeps the notes whose title or body contains it', output: [NoteDto] })
  async list(@Query() query: ListNotesQuery): Promise<NoteDto[]> {
    const select = this.notes.createQueryBuilder('n').orderBy('n.id', 'DESC').limit(query.limit ?? 20);
    if (query.q) select.where('(n.title ILIKE :q OR n.body ILIKE :q)', { q: likePattern(query.q) });
    return (await select.getMany()).map(view);
  }

  @Get(':id')
  @Capability({ id: 'notes.get', title: 'Get a note', description: 'One note by its id', output: NoteDto })
  async get(@Param('id', ParseIntPipe) id: number): Promise<NoteDto> {
    const note = await this.notes.findOneBy({ id });
    if (!note) throw new NotFoundException(`No note ${id}.`);
    return view(note);
  }

  @Delete(':id')
  @HttpCode(200)
  @Capability({ id: 'notes.delete', title: 'Delete a note', description: 'Deletes a note for good (a consequential action)', output: DeletedNoteDto })
  async remove(@Param('id', ParseIntPipe) id: number): Promise<DeletedNoteDto> {
    const { affected } = await this.notes.delete({ id });
    if (!affected) throw new NotFoundException(`No note ${id}.`);
    return { id, deleted: true };
  }
}

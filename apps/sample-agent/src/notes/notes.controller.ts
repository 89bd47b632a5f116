import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Param, ParseIntPipe, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { InjectRepository } from '@nestjs/typeorm';
import { Capability, capabilityLog, capabilityProgress, capabilitySignal } from 'nestjs-restap';
import { setTimeout as sleep } from 'node:timers/promises';
import { Repository } from 'typeorm';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Note } from './note.entity';
import { CreateNoteDto, DeletedNoteDto, DigestNotesDto, ListNotesQuery, NoteDto, NotesDigestDto } from './note.dto';

/** How long the digest spends on each note, ms (RESTAP_NOTES_DIGEST_STEP_MS): it stands for a slow summariser. */
export const NOTES_DIGEST_STEP_MS = Symbol('NOTES_DIGEST_STEP_MS');

/** The id column is PostgreSQL's 32-bit serial: an id past it names no note (and the database would refuse it, a 500). */
const MAX_NOTE_ID = 2_147_483_647;
const isNoteId = (id: number): boolean => id >= 1 && id <= MAX_NOTE_ID;

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
  constructor(
    @InjectRepository(Note) private readonly notes: Repository<Note>,
    @Inject(NOTES_DIGEST_STEP_MS) private readonly digestStepMs: number,
  ) {}

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

  @Post('digest')
  @HttpCode(200)
  // A long-running job: MCP and A2A run it as a task (issue 38, item 8) that any replica can follow or cancel.
  @Capability({
    id: 'notes.digest',
    title: 'Digest the notes',
    description: 'Reads the notes (q filters them) one by one and writes a Markdown digest: a slow job, run as a task',
    output: NotesDigestDto,
    task: true,
  })
  async digest(@Body() body: DigestNotesDto, @Req() req: object): Promise<NotesDigestDto> {
    // Aborted when the task is cancelled (from any replica) or times out: the job stops between notes.
    const signal = capabilitySignal(req);
    const select = this.notes.createQueryBuilder('n').orderBy('n.id', 'DESC').limit(body.limit ?? 50);
    if (body.q) select.where('(n.title ILIKE :q OR n.body ILIKE :q)', { q: likePattern(body.q) });
    const notes = await select.getMany();
    if (!notes.length) throw new NotFoundException(body.q ? `No note contains '${body.q}'.` : 'There are no notes to digest.');
    const lines: string[] = [];
    let words = 0;
    // An MCP client that asked for them sees the job advance (notifications/progress) and its log.
    capabilityLog(req, 'info', { digest: 'started', notes: notes.length });
    for (const [k, note] of notes.entries()) {
      await sleep(this.digestStepMs, undefined, { signal });
      const count = `${note.title} ${note.body}`.split(/\s+/).filter(Boolean).length;
      words += count;
      const gist = note.body.length > 80 ? `${note.body.slice(0, 79)}…` : note.body;
      lines.push(`- **${note.title}** (#${note.id}, ${count} words)${gist ? `: ${gist}` : ''}`);
      capabilityProgress(req, k + 1, notes.length, `Read note #${note.id}`);
      capabilityLog(req, 'debug', { digest: 'read', note: note.id, words: count });
    }
    capabilityLog(req, 'info', { digest: 'done', notes: notes.length, words });
    return { notes: notes.length, words, digest: lines.join('\n'), created_at: new Date().toISOString() };
  }

  @Get(':id')
  @Capability({ id: 'notes.get', title: 'Get a note', description: 'One note by its id', output: NoteDto })
  async get(@Param('id', ParseIntPipe) id: number): Promise<NoteDto> {
    const note = isNoteId(id) ? await this.notes.findOneBy({ id }) : null;
    if (!note) throw new NotFoundException(`No note ${id}.`);
    return view(note);
  }

  @Delete(':id')
  @HttpCode(200)
  // A consequential action: a person approves it before the model, MCP or A2A runs it (docs/approvals.md).
  @Capability({
    id: 'notes.delete',
    title: 'Delete a note',
    description: 'Deletes a note for good (a consequential action)',
    output: DeletedNoteDto,
    approval: (args) => `Delete note ${String(args.id)} for good?`,
  })
  async remove(@Param('id', ParseIntPipe) id: number): Promise<DeletedNoteDto> {
    const { affected } = isNoteId(id) ? await this.notes.delete({ id }) : { affected: 0 };
    if (!affected) throw new NotFoundException(`No note ${id}.`);
    return { id, deleted: true };
  }
}

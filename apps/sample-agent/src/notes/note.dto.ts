import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDateString, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsStorableText } from 'nestjs-restap';

export class CreateNoteDto {
  @ApiProperty({ description: 'A short title', example: 'Groceries' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsStorableText()
  title: string;

  @ApiPropertyOptional({ description: 'The note itself', example: 'Milk, eggs, bread' })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  @IsStorableText()
  body?: string;
}

export class ListNotesQuery {
  @ApiPropertyOptional({ description: 'Only notes whose title or body contains this text (case-insensitive)', example: 'milk' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IsStorableText()
  q?: string;

  @ApiPropertyOptional({ description: 'At most this many notes, newest first', example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class NoteDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  id: number;

  @ApiProperty({ example: 'Groceries' })
  @IsString()
  title: string;

  @ApiProperty({ example: 'Milk, eggs, bread' })
  @IsString()
  body: string;

  @ApiProperty({ example: '2026-12-05T10:00:00.000Z' })
  @IsDateString()
  created_at: string;
}

export class DeletedNoteDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  id: number;

  @ApiProperty({ example: true })
  deleted: boolean;
}

export class DigestNotesDto {
  @ApiPropertyOptional({ description: 'Only notes whose title or body contains this text (case-insensitive)', example: 'milk' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IsStorableText()
  q?: string;

  @ApiPropertyOptional({ description: 'At most this many notes, newest first', example: 50 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

export class NotesDigestDto {
  @ApiProperty({ description: 'How many notes the digest covers', example: 3 })
  @IsInt()
  notes: number;

  @ApiProperty({ description: 'Words in those notes', example: 42 })
  @IsInt()
  words: number;

  @ApiProperty({ description: 'The digest: one Markdown line per note, newest first', example: '- **Groceries** (#1, 3 words): Milk, eggs, bread' })
  @IsString()
  digest: string;

  @ApiProperty({ example: '2026-12-05T10:00:00.000Z' })
  @IsDateString()
  created_at: string;
}

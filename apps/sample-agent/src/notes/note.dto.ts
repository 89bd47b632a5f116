import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDateString, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class CreateNoteDto {
  @ApiProperty({ description: 'A short title', example: 'Groceries' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ description: 'The note itself', example: 'Milk, eggs, bread' })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  body?: string;
}

export class ListNotesQuery {
  @ApiPropertyOptional({ description: 'Only notes whose title or body contains this text (case-insensitive)', example: 'milk' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
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

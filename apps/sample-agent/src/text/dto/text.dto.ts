import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export const MAX_TEXT_LENGTH = 100_000;

export class TextDto {
  @ApiProperty({ description: 'The text to process', example: 'Hello World' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT_LENGTH)
  text: string;
}

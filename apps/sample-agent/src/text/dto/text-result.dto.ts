import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601, IsString } from 'class-validator';

/** Fields every text capability answers with (spec, "Use a capability"). */
export class TextResultDto {
  @ApiProperty({ description: 'Identifier of this job', example: 'job_3f2c0e4a9b7d' })
  @IsString()
  job_id: string;

  @ApiProperty({ description: 'The text as received' })
  @IsString()
  original_text: string;

  @ApiProperty({ description: 'When the job ran' })
  @IsISO8601()
  timestamp: string;
}

export class EchoResultDto extends TextResultDto {
  @ApiProperty({ description: 'The text, unchanged' })
  @IsString()
  echoed_text: string;
}

export class ReverseResultDto extends TextResultDto {
  @ApiProperty({ description: 'The text in reverse order of Unicode code points' })
  @IsString()
  reversed_text: string;
}

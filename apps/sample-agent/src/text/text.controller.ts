import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Capability } from 'nestjs-restap';
import { randomBytes } from 'node:crypto';
import { TextDto } from './dto/text.dto';
import { EchoResultDto, ReverseResultDto } from './dto/text-result.dto';
import { ApiKeyGuard } from '../auth/api-key.guard';

const jobId = (): string => `job_${randomBytes(9).toString('base64url')}`;

@ApiTags('text')
@UseGuards(ApiKeyGuard)
@Controller('text')
export class TextController {
  @Post('echo')
  @HttpCode(200)
  @Capability({ id: 'text.echo', title: 'Echo text back', description: 'Returns the input text unchanged', output: EchoResultDto, news: true })
  echo(@Body() body: TextDto): EchoResultDto {
    return { job_id: jobId(), original_text: body.text, echoed_text: body.text, timestamp: new Date().toISOString() };
  }

  @Post('reverse')
  @HttpCode(200)
  @Capability({ id: 'text.reverse', title: 'Reverse text', description: 'Returns the input text in reverse order', output: ReverseResultDto, news: true })
  reverse(@Body() body: TextDto): ReverseResultDto {
    // Array.from splits by code point, so surrogate pairs (emoji, astral scripts) stay whole.
    const reversed = Array.from(body.text).reverse().join('');
    return { job_id: jobId(), original_text: body.text, reversed_text: reversed, timestamp: new Date().toISOString() };
  }
}

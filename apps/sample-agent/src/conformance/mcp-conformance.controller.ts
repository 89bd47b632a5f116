import { Controller, HttpCode, Post, Req, UnprocessableEntityException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Capability, capabilityLog, capabilityProgress } from 'nestjs-restap';
import { setTimeout as sleep } from 'node:timers/promises';

/** A pause between a fixture's notifications: the suite checks that several arrive while the call runs. */
const STEP_MS = 50;

/**
 * The tools the official MCP conformance suite calls by name (`test_*`, the fixtures of its own
 * "everything" server), written as any host writes capabilities, with the module's public API only:
 * `capabilityLog`, `capabilityProgress`, an HTTP exception. Loaded only with
 * RESTAP_MCP_CONFORMANCE_FIXTURES=1, which scripts/mcp-conformance.sh sets; never in the sample's
 * catalog otherwise. What the suite asks of them is what any capability can do through the MCP door.
 * Their ids are dotted (`test.simple.text`): a dot becomes the tool name's `_` (an id's own `_` would be `__`).
 */
@ApiExcludeController()
@Controller('conformance')
export class McpConformanceController {
  @Post('simple-text')
  @HttpCode(200)
  @Capability({ id: 'test.simple.text', title: 'Conformance: simple text', description: 'Answers a fixed text (MCP conformance fixture)' })
  simpleText(): { text: string } {
    return { text: 'This is a simple text response for testing.' };
  }

  @Post('logging')
  @HttpCode(200)
  @Capability({ id: 'test.tool.with.logging', title: 'Conformance: logging', description: 'Logs three messages while it runs (MCP conformance fixture)' })
  async logging(@Req() req: object): Promise<{ logged: number }> {
    return { logged: await logThree(req) };
  }

  @Post('log-level')
  @HttpCode(200)
  @Capability({ id: 'test.logging.tool', title: 'Conformance: logging, per request', description: 'Logs three messages while it runs, sent only when the request asks for logs (MCP conformance fixture)' })
  async logLevel(@Req() req: object): Promise<{ logged: number }> {
    return { logged: await logThree(req) };
  }

  @Post('progress')
  @HttpCode(200)
  @Capability({ id: 'test.tool.with.progress', title: 'Conformance: progress', description: 'Reports three steps of progress while it runs (MCP conformance fixture)' })
  async progress(@Req() req: object): Promise<{ steps: number }> {
    for (let step = 1; step <= 3; step++) {
      capabilityProgress(req, step, 3, `Step ${step} of 3`);
      await sleep(STEP_MS);
    }
    return { steps: 3 };
  }

  @Post('error')
  @HttpCode(200)
  @Capability({ id: 'test.error.handling', title: 'Conformance: error', description: 'Always refuses (MCP conformance fixture)' })
  error(): never {
    throw new UnprocessableEntityException('This tool always fails: the conformance suite checks how the error is reported.');
  }
}

async function logThree(req: object): Promise<number> {
  for (let step = 1; step <= 3; step++) {
    capabilityLog(req, 'info', { step, of: 3 });
    await sleep(STEP_MS);
  }
  return 3;
}

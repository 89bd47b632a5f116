import type { Request, Response } from 'express';
import { DoorKit } from './door-kit';
import { DoorPipeline, type DoorStep } from './door-pipeline';
import { resolveOptions } from '../../restap-options.resolver';

describe('DoorKit.bearerAuth without OAuth (issue 34: zero cost when auth.oauth is unset)', () => {
  const options = resolveOptions({ agent: { name: 'Agent' } });
  const kit = new DoorKit(options, {} as never, {} as never, {} as never, {} as never, null);

  it('is no step at all: the pipeline leaves it out', () => {
    expect(kit.bearerAuth()).toBeUndefined();
    const ran: string[] = [];
    const step = (name: string): DoorStep => (_req, _res, next) => {
      ran.push(name);
      next();
    };
    const pipeline = new DoorPipeline([step('a'), kit.bearerAuth(), step('b')]);
    expect((pipeline as unknown as { steps: unknown[] }).steps).toHaveLength(2);
    let done = false;
    pipeline.run({} as Request, {} as Response, undefined, () => (done = true));
    expect(ran).toEqual(['a', 'b']);
    expect(done).toBe(true);
  });
});

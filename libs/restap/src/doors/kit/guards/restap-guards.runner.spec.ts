import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { of } from 'rxjs';
import { RestapGuardsRunner } from './restap-guards.runner';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';

const calls: string[] = [];
const verdicts: Record<string, unknown> = {};

function guard(name: string): new () => CanActivate {
  @Injectable()
  class NamedGuard implements CanActivate {
    canActivate(): boolean {
      calls.push(name);
      return verdicts[name] as boolean;
    }
  }
  return NamedGuard;
}

const First = guard('first');
const Second = guard('second');
const context = {} as ExecutionContext;

async function runner(...guards: Array<new () => CanActivate>): Promise<RestapGuardsRunner> {
  const moduleRef = await Test.createTestingModule({ providers: guards }).compile();
  return new RestapGuardsRunner({ guards } as unknown as ResolvedRestapCoreOptions, moduleRef.get(ModuleRef));
}

describe('RestapGuardsRunner: the guards option on /talk and /news, in order', () => {
  beforeEach(() => {
    calls.length = 0;
    verdicts.first = true;
    verdicts.second = true;
  });

  it('without the option every request passes at once', async () => {
    expect((await runner()).canActivate(context)).toBe(true);
  });

  it('runs every guard in order; once resolved, boolean guards answer without a promise', async () => {
    const run = await runner(First, Second);
    expect(await run.canActivate(context)).toBe(true);
    expect(run.canActivate(context)).toBe(true);
    expect(calls).toEqual(['first', 'second', 'first', 'second']);
  });

  it('a guard that says no stops the ones after it', async () => {
    verdicts.first = false;
    const run = await runner(First, Second);
    expect(await run.canActivate(context)).toBe(false);
    expect(run.canActivate(context)).toBe(false);
    expect(calls).toEqual(['first', 'first']);
  });

  it('a guard answering a promise or an Observable is awaited before the next runs', async () => {
    const run = await runner(First, Second);
    await run.canActivate(context);
    calls.length = 0;
    verdicts.first = Promise.resolve(true);
    expect(await run.canActivate(context)).toBe(true);
    verdicts.first = of(false);
    expect(await run.canActivate(context)).toBe(false);
    verdicts.first = Promise.resolve(undefined);
    expect(await run.canActivate(context)).toBe(false);
    expect(calls).toEqual(['first', 'second', 'first', 'first']);
  });
});

import { Logger } from '@nestjs/common';
import { AgentEvent, ResultManager, ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { resolveOptions } from '../../restap-options.resolver';
import { A2aSdkLogging, SDK_LINE_CHARS, SDK_SERVER_FILE, sdkLine } from './a2a-sdk.logging';

describe('A2aSdkLogging (issue 32, item 14)', () => {
  describe('sdkLine: one SDK console call as one log line', () => {
    it('item 14: one line, no stack, at most 300 characters, a long request id leaving room for the error', () => {
      const error = new TaskNotFoundError('Task not found: 1234');
      const line = sdkLine([`Pre-stream error for request ${'i'.repeat(3_000)}\n    at evil (x.js:1:1):`, error]);
      expect(line.length).toBeLessThanOrEqual(SDK_LINE_CHARS);
      expect(line).not.toMatch(/[\r\n]/);
      expect(line).not.toContain(error.stack?.split('\n')[1]?.trim() ?? 'at ');
      expect(line).toMatch(/^A2A SDK: Pre-stream error for request i+… TaskNotFoundError: Task not found: 1234$/);
    });

    it('item 14: values the SDK quotes (context ids, versions) are elided; objects are named, never printed', () => {
      const secret = 'sess_0123456789abcdefghij';
      const line = sdkLine([new RequestMalformedError(`contextId mismatch: message contextId '${secret}' does not match task 't1' contextId '${secret}x'`), { contextId: secret }]);
      expect(line).toBe("A2A SDK: RequestMalformedError: contextId mismatch: message contextId '…' does not match task '…' contextId '…' [Object]");
      expect(line).not.toContain(secret);
    });

    it('item 14: control characters (terminal escapes) become spaces', () => {
      expect(sdkLine(['Reference task \u001b[31mred\u001b[0m\r\nnot found.'])).toBe('A2A SDK: Reference task [31mred [0m not found.');
    });
  });

  it('item 14: the files it redirects are the SDK\'s server side (server, Express, 0.3 layer), not its client', () => {
    for (const entry of ['@a2a-js/sdk/server', '@a2a-js/sdk/server/express', '@a2a-js/sdk/compat/v0_3/server']) {
      expect(require.resolve(entry)).toMatch(SDK_SERVER_FILE);
    }
    expect(require.resolve('@a2a-js/sdk/client')).not.toMatch(SDK_SERVER_FILE);
  });

  describe('while an A2A door is enabled', () => {
    const provider = new A2aSdkLogging(resolveOptions({ agent: { name: 'Agent' }, a2a: { enabled: true } }));
    let warn: jest.SpyInstance;
    let consoleWarn: jest.SpyInstance;

    beforeEach(() => {
      consoleWarn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      provider.onApplicationBootstrap();
    });
    afterEach(() => {
      provider.onApplicationShutdown();
      warn.mockRestore();
      consoleWarn.mockRestore();
    });

    it('item 14: what the SDK writes goes to Nest\'s logger; the console of everyone else is untouched', async () => {
      const store: TaskStore = { save: async () => undefined, load: async () => undefined, list: async () => ({ tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 }) };
      // The SDK's ResultManager warns on an update for a task it cannot load.
      await new ResultManager(store, new ServerCallContext()).processEvent(AgentEvent.statusUpdate({ taskId: 'unknown-task', contextId: '', status: undefined, metadata: undefined }));
      expect(warn).toHaveBeenCalledWith('A2A SDK: ResultManager: Received status update for unknown task unknown-task');
      expect(consoleWarn).not.toHaveBeenCalled();
      console.warn('the host\'s own warning');
      expect(consoleWarn).toHaveBeenCalledWith('the host\'s own warning');
      expect(warn).toHaveBeenCalledTimes(1);
    });

    it('item 14: on shutdown the console is given back', () => {
      provider.onApplicationShutdown();
      expect(console.warn).toBe(consoleWarn);
      provider.onApplicationBootstrap();
    });
  });
});

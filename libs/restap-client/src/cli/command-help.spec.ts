import { main } from './main';
import type { CliIo } from './cli.io';

/** Runs the CLI in-process and keeps what it printed. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) }, env: {} } as unknown as CliIo;
  const code = await main(argv, io);
  return { code, out, err };
}

const COMMANDS = [['discover'], ['talk'], ['news'], ['news', 'post'], ['call'], ['check'], ['skill']];

describe('restap <command> --help: each command has its own help', () => {
  it.each(COMMANDS)('restap %s … --help prints that command\'s usage, every option of the usage line explained, and an example', async (...words) => {
    const { code, out, err } = await run([...words, '--help']);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toMatch(new RegExp(`^Usage: restap ${words.join(' ')} <url>`));
    const [usageLine, rest] = [out.split('\n')[0], out.slice(out.indexOf('Options:'))];
    for (const [flag] of usageLine.matchAll(/--[a-z][a-z-]*/g)) expect(rest).toContain(flag);
    expect(out).toMatch(/\nExample:\n {2}restap /);
    expect(out).not.toContain('Exit codes'); // not the global help
  });

  it('`restap help news` is `restap news --help`, and -h works too', async () => {
    const help = await run(['news', '--help']);
    expect(await run(['help', 'news'])).toEqual(help);
    expect(await run(['news', '-h'])).toEqual(help);
  });

  it('a usage error points to the command\'s own help', async () => {
    const { code, err } = await run(['call', 'http://127.0.0.1:1']);
    expect(code).toBe(2);
    expect(err).toContain('Run "restap call --help" for usage.');
  });

  it('an unknown command is a usage error that points to the global help', async () => {
    const { code, err } = await run(['nope', '--help']);
    expect(code).toBe(2);
    expect(err).toContain('unknown command "nope"');
    expect(err).toContain('Run "restap --help" for usage.');
  });
});

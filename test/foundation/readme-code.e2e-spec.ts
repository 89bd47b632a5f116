import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ts from 'typescript';

// Compiles the TypeScript blocks of the READMEs as a host app would: against the module's types
// (`nestjs-restap` resolves to libs/restap/src through tsconfig's paths, as the package's .d.ts
// would), with the repository's strict compiler options. Each program takes a few seconds.
jest.setTimeout(120_000);

const ROOT = join(__dirname, '../..');
/** Where the blocks are placed (never written to disk): inside the repository, so node_modules resolve. */
const VIRTUAL_ROOT = join(ROOT, '.readme-blocks');

interface Block {
  readme: string;
  line: number;
  /** `src/app.module.ts` from the block's first line `// src/app.module.ts`, else a generated name. */
  file: string;
  code: string;
}

function blocksOf(readme: string): Block[] {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const blocks: Block[] = [];
  const fence = /^( *)```ts\n([\s\S]*?)^\1```$/gm;
  for (const match of text.matchAll(fence)) {
    const indent = match[1].length;
    const code = match[2].split('\n').map((l) => l.slice(indent)).join('\n');
    const line = text.slice(0, match.index).split('\n').length;
    const named = /^\/\/ (src\/[\w./-]+\.ts)\b/.exec(code)?.[1];
    blocks.push({ readme, line, file: named ?? `src/block-${line}.ts`, code });
  }
  return blocks;
}

const options = (): ts.CompilerOptions => {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { ...parsed.options, noEmit: true, noUnusedLocals: false, types: ['node'] };
};

/** The last program: the next one reuses its parsed declaration files (node_modules), unchanged. */
let previous: ts.Program | undefined;

/** Type-checks `files` (virtual path → code) together; returns readable diagnostics. */
function compile(files: Map<string, string>): string[] {
  const compilerOptions = options();
  const host = ts.createCompilerHost(compilerOptions);
  const virtual = new Map([...files].map(([file, code]) => [join(VIRTUAL_ROOT, file), code]));
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, version, onError, create) => {
    const code = virtual.get(name);
    return code !== undefined ? ts.createSourceFile(name, code, version, true) : getSourceFile.call(host, name, version, onError, create);
  };
  host.directoryExists = (dir) => [...virtual.keys()].some((f) => f.startsWith(dir)) || ts.sys.directoryExists(dir);
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options: compilerOptions, host, oldProgram: previous });
  previous = program;
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => !d.file || virtual.has(d.file.fileName))
    .map((d) => {
      const where = d.file ? `${d.file.fileName.slice(VIRTUAL_ROOT.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
      return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

/**
 * The programs that cover every block: blocks with distinct file names compile together (so
 * `./brain` in app.module.ts finds the Brain block); a second block of the same name (another
 * version of src/main.ts) compiles with the others in a program of its own.
 */
function programsOf(blocks: Block[]): Array<{ label: string; files: Map<string, string> }> {
  const programs: Array<{ label: string; files: Map<string, string> }> = [];
  for (const block of blocks) {
    let program = programs.find((p) => !p.files.has(block.file));
    if (!program) {
      const base = new Map(programs[0]?.files ?? []);
      base.delete(block.file);
      program = { label: '', files: base };
      programs.push(program);
    }
    program.files.set(block.file, block.code);
    program.label += `${program.label ? ', ' : ''}${block.file} (line ${block.line})`;
  }
  return programs;
}

describe.each(['README.md', 'libs/restap/README.md'])('the TypeScript in %s compiles as a host app would write it', (readme) => {
  const blocks = blocksOf(readme);

  it('has TypeScript blocks to check (the fence pattern still finds them)', () => {
    expect(blocks.length).toBeGreaterThan(2);
  });

  it.each(programsOf(blocks).map((p) => [p.label, p.files] as const))('compiles: %s', (_label, files) => {
    expect(compile(files)).toEqual([]);
  });
});

describe('Strict options: a misspelt @Capability() option does not compile', () => {
  const controller = (options: string): string =>
    [
      "import { Controller, Get } from '@nestjs/common';",
      "import { Capability } from 'nestjs-restap';",
      'class TodoDto { id: number; }',
      "@Controller('todos')",
      'export class TodosController {',
      '  @Get()',
      `  @Capability({ id: 'todos.list', title: 'List todos', ${options} })`,
      '  list(): TodoDto[] { return []; }',
      '}',
    ].join('\n');

  it('`ouput` instead of `output` is a compile error naming the option; the same line with `output` and `extra` compiles', () => {
    const errors = compile(new Map([
      ['src/typo.ts', controller('ouput: [TodoDto]')],
      ['src/right.ts', controller('output: [TodoDto], extra: { pricing: { per_call_usd: 0 } }')],
    ]));
    expect(errors).toEqual([expect.stringMatching(/^src\/typo\.ts:7 TS2561: .*'ouput'.*Did you mean to write 'output'\?/)]);
  });

  it('a pass-through field at the top level (the shape before `extra`) does not compile either', () => {
    expect(compile(new Map([['src/old.ts', controller('pricing: { per_call_usd: 0 }')]]))).toEqual([
      expect.stringMatching(/^src\/old\.ts:7 TS2353: .*'pricing' does not exist in type 'CapabilityOptions'/),
    ]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ts from 'typescript';

// Compiles the TypeScript blocks of the README, the docs pages and the package's README as a host app
// would: against the module's types (`nestjs-restap` resolves to libs/restap/src through tsconfig's
// paths, as the package's .d.ts would), with the repository's strict compiler options, twice: as a
// CommonJS app, and as the ESM app `nest new` scaffolds (`"type": "module"` in its package.json, so
// a relative import without `.js` is TS2835) (issue 40, item 1). Each program takes a few seconds.
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
    blocks.push({ readme, line, file: named ?? `src/block-${readme.replace(/\W+/g, '-')}-${line}.ts`, code });
  }
  return blocks;
}

const options = (): ts.CompilerOptions => {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { ...parsed.options, noEmit: true, noUnusedLocals: false, types: ['node'] };
};

/** How the host app is set up: the repository's CommonJS, or the ESM of a `nest new` scaffold. */
type Host = 'CommonJS' | 'ESM (nest new)';
const HOSTS: Host[] = ['CommonJS', 'ESM (nest new)'];

/** The host's package.json beside the blocks: what makes Node (and TypeScript's nodenext) treat them as ESM. */
const hostPackageJson = (host: Host): string =>
  JSON.stringify({ name: 'host-app', private: true, ...(host === 'ESM (nest new)' ? { type: 'module' } : {}) });

/** The README and every docs page: one host app, so a page's `./app.module.js` is the README's. */
const GUIDES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** The last program: the next one reuses its parsed declaration files (node_modules), unchanged. */
let previous: { kind: Host; program: ts.Program } | undefined;

/** Type-checks `files` (virtual path → code) together; returns readable diagnostics. */
function compile(files: Map<string, string>, kind: Host = 'CommonJS'): string[] {
  const compilerOptions = options();
  // An ESM import of a bare name never resolves a folder's index: the installed package's `main`
  // (dist/index.js) is what Node loads, so the sources stand in as that file.
  if (kind === 'ESM (nest new)') {
    compilerOptions.paths = { ...compilerOptions.paths, 'nestjs-restap': ['./libs/restap/src/index.js'], 'restap-client': ['./libs/restap-client/src/index.js'] };
  }
  const host = ts.createCompilerHost(compilerOptions);
  const virtual = new Map([...files].map(([file, code]) => [join(VIRTUAL_ROOT, file), code]));
  const packageJson = join(VIRTUAL_ROOT, 'package.json');
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => name === packageJson || virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => (name === packageJson ? hostPackageJson(kind) : virtual.get(name) ?? readFile.call(host, name));
  host.getSourceFile = (name, version, onError, create) => {
    const code = virtual.get(name);
    return code !== undefined ? ts.createSourceFile(name, code, version, true) : getSourceFile.call(host, name, version, onError, create);
  };
  host.directoryExists = (dir) => [...virtual.keys()].some((f) => f.startsWith(dir)) || ts.sys.directoryExists(dir);
  // A program's files keep the module format they were first read with: no reuse across hosts.
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options: compilerOptions, host, oldProgram: previous?.kind === kind ? previous.program : undefined });
  previous = { kind, program };
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
    program.label += `${program.label ? ', ' : ''}${block.file} (${block.readme}:${block.line})`;
  }
  return programs;
}

describe.each([
  ['README.md and docs/*.md', GUIDES],
  ['libs/restap/README.md', ['libs/restap/README.md']],
])('the TypeScript in %s compiles as a host app would write it (issue 40, items 1 and 13)', (_name, readmes) => {
  const blocks = readmes.flatMap(blocksOf);

  it('has TypeScript blocks to check (the fence pattern still finds them)', () => {
    expect(blocks.length).toBeGreaterThan(2);
  });

  describe.each(HOSTS)('in a %s host', (kind) => {
    it.each(programsOf(blocks).map((p) => [p.label, p.files] as const))('compiles: %s', (_label, files) => {
      expect(compile(files, kind)).toEqual([]);
    });
  });
});

describe('issue 40 item 1: the ESM host is really ESM (the check above can fail)', () => {
  const files = (from: string) => new Map([
    ['src/brain.ts', 'export class Brain {}'],
    ['src/app.ts', `import { Brain } from '${from}';\nexport const brain = new Brain();`],
  ]);

  it('a relative import without .js is TS2835 in the ESM host and compiles in the CommonJS one; with .js it compiles in both', () => {
    expect(compile(files('./brain'), 'ESM (nest new)')).toEqual([expect.stringMatching(/^src\/app\.ts:1 TS2835: /)]);
    expect(compile(files('./brain'), 'CommonJS')).toEqual([]);
    expect(compile(files('./brain.js'), 'ESM (nest new)')).toEqual([]);
    expect(compile(files('./brain.js'), 'CommonJS')).toEqual([]);
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

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Every source file (specs and test helpers aside) and the files it imports, type-only imports included. */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) {
        const targets = [...readFileSync(path, 'utf8').matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map(([, spec]) => {
          const base = resolve(dirname(path), spec);
          return [`${base}.ts`, join(base, 'index.ts')].find((file) => existsSync(file)) ?? base;
        });
        graph.set(path, targets);
      }
    }
  };
  walk(root);
  return graph;
}

/** The first circle found, as the files around it, or undefined. */
function findCircle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'open') return [...trail.slice(trail.indexOf(file)), file];
    if (state.get(file) === 'done') return undefined;
    state.set(file, 'open');
    trail.push(file);
    for (const next of graph.get(file) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    trail.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe("issue 33: restap-client's import graph", () => {
  it('has no import circle, type-only imports included (check.context ↔ check.probe / check.types was the one)', () => {
    const graph = importGraph(__dirname);
    expect(graph.size).toBeGreaterThan(50);
    expect(findCircle(graph)?.map((file) => relative(__dirname, file))).toBeUndefined();
  });
});

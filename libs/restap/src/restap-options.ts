import type { RestapCoreOptions, ResolvedRestapCoreOptions } from './interfaces/restap-options.interface';
import type { RestapA2aOptions, ResolvedRestapA2aOptions } from './doors/a2a/a2a.options';
import type { RestapAguiOptions } from './doors/agui/agui.options';
import type { RestapMcpOptions, ResolvedRestapMcpOptions } from './doors/mcp/mcp.options';
import type { RestapPlaygroundOptions } from './doors/playground/playground.options';

/**
 * Options of `RestapModule.forRoot()` / `forRootAsync()`: the core's (`RestapCoreOptions`) and one
 * slice per optional door, each typed, defaulted and validated beside its door
 * (`doors/<door>/<door>.options.ts`).
 *
 * @example
 * RestapModule.forRoot({ agent: { name: 'Text Analysis Agent' }, news: { scope: 'global' } })
 */
export interface RestapModuleOptions extends RestapCoreOptions {
  /** The A2A door. @default { enabled: false } */
  a2a?: RestapA2aOptions;
  /** The playground page (off unless enabled). @default { enabled: false, path: '/playground' } */
  playground?: RestapPlaygroundOptions;
  /** The MCP door (off unless enabled). @default { enabled: false, path: '/mcp' } */
  mcp?: RestapMcpOptions;
  /** The AG-UI door (off unless enabled). @default { enabled: false, path: '/ag-ui' } */
  agui?: RestapAguiOptions;
}

/** Options with every default filled in; produced once by `resolveOptions()`. */
export interface ResolvedRestapOptions extends ResolvedRestapCoreOptions {
  a2a: ResolvedRestapA2aOptions;
  playground: Required<RestapPlaygroundOptions>;
  mcp: ResolvedRestapMcpOptions;
  agui: Required<RestapAguiOptions>;
}

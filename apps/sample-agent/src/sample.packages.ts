import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RestapPackage } from 'nestjs-restap';

/** Version of libs/restap-client this sample advertises (test/client-sample checks it against its package.json). */
export const CLIENT_VERSION = '0.1.0';
/** File name `npm run pack:client` gives the client's tarball. */
export const CLIENT_TARBALL = `restap-client-${CLIENT_VERSION}.tgz`;
/** Where the sample serves the tarballs it advertises (public, like the catalog). */
export const PACKAGES_ROUTE = 'packages';

/**
 * The typed client and `restap` CLI as an npm package. It is not on the npm registry yet, so the
 * agent serves the tarball itself: `tarball` is its path on the agent (relative, like capability
 * endpoints), and `install` installs it from there.
 */
export const CLIENT_PACKAGE: RestapPackage = {
  name: 'RESTAP client and CLI',
  type: 'npm-package',
  description: 'Typed TypeScript client for this agent (discovery, /talk with SSE streaming and sessions, /news, capability calls checked against their schemas), the `restap` command line and a conformance checker',
  language: 'typescript',
  package: 'restap-client',
  version: CLIENT_VERSION,
  tarball: `/${PACKAGES_ROUTE}/${CLIENT_TARBALL}`,
  install: `npm install <agent-url>/${PACKAGES_ROUTE}/${CLIENT_TARBALL}`,
  cli: 'npx restap discover <agent-url>',
  path: 'libs/restap-client',
};

/** The Claude Code plugin whose SKILL.md `npm run skill:sample` generates from this catalog. */
export const PLUGIN_PACKAGE: RestapPackage = {
  name: 'Text Analysis Agent skill',
  type: 'claude-plugin',
  description: 'Claude Code plugin with a skill teaching an AI client when and how to use this agent: /talk vs /news, the session secret, each capability with its schemas and a curl example',
  version: '0.1.0',
  skill_file: 'SKILL.md',
  path: 'apps/sample-agent/plugin',
  // `apps/sample-agent/plugin` exists only in this repository: the install line works anywhere the
  // client is installed, since `restap skill` writes this very SKILL.md from the live catalog.
  install: 'restap skill <agent-url> --out ~/.claude/skills/text-analysis-agent/SKILL.md',
};

/**
 * What the sample advertises under `packages` (spec, "Optional Packages"). The client is listed
 * only when its tarball is in `packagesDir` (`npm run build` puts it in dist/packages), because
 * the agent serves it from there: a package that cannot be installed is not advertised.
 */
export function samplePackages(packagesDir: string | undefined): RestapPackage[] {
  const clientServed = packagesDir !== undefined && existsSync(join(packagesDir, CLIENT_TARBALL));
  return clientServed ? [CLIENT_PACKAGE, PLUGIN_PACKAGE] : [PLUGIN_PACKAGE];
}

'use strict';
// How the repository's TypeScript is compiled outside `nest build`: by Jest (@swc/jest), by
// child processes started from tests (test/reliability/support/swc-register.js) and by
// scripts/run-ts.mjs. One place, so all see the same decorator settings (legacy decorators +
// metadata, as Nest needs).
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

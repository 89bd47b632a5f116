// Jest runs TypeScript and the ESM-only @nestjs 12 packages through @swc/jest (see shared STACK.md).
const swc = require('./test/support/swc.options');
const esm = ['@nestjs', 'file-type', 'load-esm', 'strtok3', 'token-types', '@tokenizer', 'uint8array-extras',
  '@borewit', '@standard-schema', '@electric-sql', 'es-toolkit', 'eventsource-parser', 'jose'];
const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj|cj)s$': ['@swc/jest', swc] },
  transformIgnorePatterns: [`/node_modules/(?!(${esm.join('|')})/)`],
  moduleNameMapper: {
    '^nestjs-restap$': '<rootDir>/libs/restap/src',
    '^nestjs-restap/(.*)$': '<rootDir>/libs/restap/src/$1',
    '^restap-client$': '<rootDir>/libs/restap-client/src',
    '^restap-client/(.*)$': '<rootDir>/libs/restap-client/src/$1',
  },
};
module.exports = {
  // testTimeout is a global option: inside a project Jest ignores it. A fresh embedded PGlite
  // database takes 4–17 s to create on a busy 2-core machine.
  testTimeout: 120000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};

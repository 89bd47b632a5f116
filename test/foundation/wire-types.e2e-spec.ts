import { readdirSync, readFileSync, lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as server from 'nestjs-restap';
import * as client from 'restap-client';

const ROOT = join(__dirname, '../..');
const WIRE = join(ROOT, 'libs/restap-wire/src');

describe('RESTAP wire types and constants are defined once, for the module and the client', () => {
  it('both libraries compile the one shared folder: their src/wire is a link to libs/restap-wire/src', () => {
    for (const lib of ['libs/restap/src/wire', 'libs/restap-client/src/wire']) {
      expect(lstatSync(join(ROOT, lib)).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(ROOT, lib))).toBe('../../restap-wire/src');
    }
  });

  it('the shared folder imports nothing (it compiles into either package as it is)', () => {
    for (const file of readdirSync(WIRE).filter((f) => f.endsWith('.ts'))) {
      expect(readFileSync(join(WIRE, file), 'utf8')).not.toMatch(/^\s*import\s|require\(/m);
    }
  });

  it('the module and the client agree on the catalog path, the session_id pattern and header names', () => {
    expect(server.CATALOG_PATH).toBe(client.CATALOG_PATH);
    expect(server.SESSION_ID_PATTERN.source).toBe(client.SESSION_ID_PATTERN.source);
    expect(server.SESSION_ID_HEADER).toBe(client.SESSION_ID_HEADER.toLowerCase());
  });

  it('no library keeps its own copy of the wire constants', () => {
    const own = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
    for (const file of ['libs/restap/src/restap.constants.ts', 'libs/restap-client/src/restap.constants.ts']) {
      expect(own(file)).not.toMatch(/'message\.start'|\.well-known\/restap\.json|\[A-Za-z0-9\._-\]\{16,128\}/);
    }
  });
});

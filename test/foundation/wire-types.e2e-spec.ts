import { readdirSync, readFileSync, lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as server from 'nestjs-restap';
import * as client from 'restap-client';
import { CAPABILITY_ID_PATTERN as MODULE_CAPABILITY_ID_PATTERN } from 'nestjs-restap/restap.constants';
import { RESTAP_CATALOG_SCHEMA } from '../../libs/restap-wire/src/catalog.schema';
import { CAPABILITY_ID_PATTERN } from '../../libs/restap-wire/src/constants';

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

  it('issue 33: one NewsPage: the public NewsPage of the module is the wire page (has_more), as the client\'s is (checked by tsc)', () => {
    const page: server.NewsPage = { items: [{ type: 'note', timestamp: 1, news_id: '1' }], timestamp: 1, has_more: false };
    const read: client.NewsPage = page;
    expect(read.has_more).toBe(false);
  });

  it('issue 33: the catalog schema and the capability-id pattern are the wire\'s, exported by the module as they are', () => {
    expect(server.RESTAP_CATALOG_SCHEMA).toBe(RESTAP_CATALOG_SCHEMA);
    expect(MODULE_CAPABILITY_ID_PATTERN).toBe(CAPABILITY_ID_PATTERN);
  });
});

import { bearerJwtOf } from './verified-caller';

/** The MCP SDK's `verifyBearerToken` parse, then OAuthResource's JWT test: the token it would verify as a JWT, if any. */
function sdkJwtOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [type, token] = header.split(' ');
  if (type?.toLowerCase() !== 'bearer' || !token) return undefined;
  return token.split('.').length === 3 ? token : undefined;
}

describe('bearerJwtOf (issue 41: the remembered-token path reads the header as the SDK does)', () => {
  const headers = [
    'Bearer a.b.c',
    'Bearer a.b.c extra',
    'Bearer eyJ.eyJ.sig',
    'Bearer ..',
    'Bearer .b.c',
    'Bearer a.b.c.d',
    'Bearer a.b',
    'Bearer abc',
    'Bearer ',
    'Bearer  a.b.c',
    'Bearer',
    'Basic a.b.c',
    'Bearera.b.c',
    '',
    undefined,
  ];

  it.each(headers.map((h) => [h]))('%p: the SDK\'s JWT or none (then the SDK\'s path answers it)', (header) => {
    const fast = bearerJwtOf(header);
    // A header it leaves to the SDK's path may be one the SDK takes (another spelling of the scheme): never the reverse.
    if (fast !== undefined) expect(fast).toBe(sdkJwtOf(header));
    else if (header?.startsWith('Bearer ')) expect(sdkJwtOf(header)).toBeUndefined();
  });

  it('takes the common spelling, and leaves the others to the SDK', () => {
    expect(bearerJwtOf('Bearer a.b.c')).toBe('a.b.c');
    expect(bearerJwtOf('bearer a.b.c')).toBeUndefined();
    expect(sdkJwtOf('bearer a.b.c')).toBe('a.b.c');
  });
});

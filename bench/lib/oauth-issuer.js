'use strict';
/**
 * A minimal OAuth authorization server on loopback for the bench's `talk-oauth` kind: RFC 8414
 * metadata naming a JWKS, one RS256 key, and access tokens minted in-process with jose (the same
 * library the module verifies with). No token endpoint: the bench signs its one token itself.
 */
const http = require('node:http');

async function startOAuthIssuer() {
  const jose = await import('jose');
  const { publicKey, privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
  let url;
  const server = http.createServer((req, res) => {
    const send = (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/oauth-authorization-server' || req.url === '/.well-known/openid-configuration') {
      return send({ issuer: url, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token`, response_types_supported: ['code'], grant_types_supported: ['client_credentials'] });
    }
    if (req.url === '/jwks') return send({ keys: [jwk] });
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    /** An access token for `audience`, valid for an hour, with `scope`. */
    token: (audience, scope = 'text:reverse') =>
      new jose.SignJWT({ scope, client_id: 'bench' })
        .setProtectedHeader({ alg: 'RS256', kid: 'bench-1', typ: 'at+jwt' })
        .setIssuer(url)
        .setAudience(audience)
        .setSubject('bench-user')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

module.exports = { startOAuthIssuer };

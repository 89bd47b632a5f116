import { RequestMethod } from '@nestjs/common';
import type { RegisteredCapability } from '../registry/restap.registry';
import { toSyntheticRequest } from './invocation-request';
import { toInvocationFailure } from './invocation-error';

const capability = (over: Partial<RegisteredCapability> = {}): RegisteredCapability => ({
  options: { id: 'orders.update', title: 'Update an order' },
  className: 'OrdersController',
  methodName: 'update',
  method: 'POST',
  endpoint: '/api/orders/{id}',
  inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
  parameters: [
    { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
    { name: 'tags', in: 'query', required: false, schema: { type: 'array' } },
    { name: 'dry', in: 'query', required: false, schema: { type: 'boolean' } },
  ],
  route: { wrapper: undefined as never, requestMethod: RequestMethod.POST },
  ...over,
});

describe('toSyntheticRequest: tool arguments spread over the route as its catalog entry describes', () => {
  it('fills the path and query with strings, as HTTP would carry them, and the body with the rest', () => {
    const init = toSyntheticRequest(capability(), { id: 7, tags: ['a', 'b c'], dry: true, item: 'tea' }, { headers: {} });
    expect(init).toMatchObject({
      method: 'POST',
      url: '/api/orders/7?tags=a&tags=b+c&dry=true',
      params: { id: '7' },
      query: { tags: ['a', 'b c'], dry: 'true' },
      body: { item: 'tea' },
    });
  });

  it('escapes a path value, and leaves out absent query values', () => {
    expect(toSyntheticRequest(capability(), { id: 'a/b?c' }, { headers: {} }).url).toBe('/api/orders/a%2Fb%3Fc');
  });

  it('gives a route without a body schema no body', () => {
    expect(toSyntheticRequest(capability({ inputSchema: undefined }), { id: 1, extra: 'x' }, { headers: {} }).body).toBeUndefined();
  });

  it('passes the caller\'s credentials but never the session_id or the original body\'s headers', () => {
    const { headers, ip } = toSyntheticRequest(capability(), { id: 1 }, {
      headers: { authorization: 'Bearer k', cookie: 'a=b', 'restap-session-id': 'secret-secret-secret', 'content-length': '999', accept: 'text/event-stream' },
      ip: '10.0.0.1',
    });
    expect(headers).toEqual({ authorization: 'Bearer k', cookie: 'a=b', accept: 'application/json', 'content-type': 'application/json' });
    expect(ip).toBe('10.0.0.1');
  });
});

describe('toInvocationFailure: any filter\'s error body as {status, error, message}', () => {
  it('keeps the RESTAP shape as it is', () => {
    expect(toInvocationFailure(401, { error: 'unauthorized', message: 'Send a key.' })).toEqual({ ok: false, status: 401, error: 'unauthorized', message: 'Send a key.' });
  });

  it('joins the ValidationPipe\'s messages and names Nest\'s error in snake_case', () => {
    expect(toInvocationFailure(400, { statusCode: 400, message: ['a is bad', 'b is bad'], error: 'Bad Request' })).toEqual({
      ok: false,
      status: 400,
      error: 'bad_request',
      message: 'a is bad; b is bad',
    });
  });

  it('names a bare status by its reason phrase', () => {
    expect(toInvocationFailure(500, { statusCode: 500, message: 'Internal server error' })).toMatchObject({ error: 'internal_server_error', message: 'Internal server error' });
    expect(toInvocationFailure(503, undefined)).toMatchObject({ error: 'service_unavailable', message: 'Service Unavailable' });
    expect(toInvocationFailure(418, 'short and stout')).toMatchObject({ error: 'i_m_a_teapot', message: 'short and stout' });
  });
});

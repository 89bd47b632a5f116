import { Controller, Get, Module, Post, Body, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse, Server as HttpServer } from 'node:http';
import { Server as HttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import { RestapExpressAdapter } from 'nestjs-restap';
import { buildsOnExpressPrototypes } from '../../libs/restap/src/doors/kit/http/restap-express.adapter';
import { expressMessageClasses } from '../../libs/restap/src/doors/kit/http/express-message-classes';
import { listen } from '../support/sample-app';

/** What the handler saw of its request: prototypes and a few Express APIs. */
interface Seen {
  reqIsAppRequest: boolean;
  resIsAppResponse: boolean;
  nodeTypes: boolean;
  header: string | undefined;
  query: unknown;
  sameApp: boolean;
  hello: unknown;
}

let expressApp: Express;

@Controller('probe')
class ProbeController {
  @Get()
  probe(@Req() req: Request): Seen {
    return {
      reqIsAppRequest: Object.getPrototypeOf(req) === expressApp.request,
      resIsAppResponse: Object.getPrototypeOf(req.res) === expressApp.response,
      nodeTypes: req instanceof IncomingMessage && req.res instanceof ServerResponse,
      header: req.get('x-probe'),
      query: req.query,
      sameApp: req.app === expressApp,
      hello: (req as unknown as { hello?: () => string }).hello?.(),
    };
  }

  @Post()
  echo(@Body() body: unknown): unknown {
    return { body };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

/** Records, for each request, whether it already had the app's prototypes before Express handled it. */
function watchArrivals(server: HttpServer): boolean[] {
  const arrivals: boolean[] = [];
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    arrivals.push(Object.getPrototypeOf(req) === expressApp.request && Object.getPrototypeOf(res) === expressApp.response);
  });
  return arrivals;
}

async function create(options: Parameters<typeof NestFactory.create>[2] = {}, instance?: Express): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ProbeModule, new RestapExpressAdapter(instance), { logger: false, ...options });
  expressApp = app.getHttpAdapter().getInstance();
  return app;
}

describe('RestapExpressAdapter: requests and responses are built on the Express app prototypes', () => {
  let app: NestExpressApplication;
  let url: string;
  let arrivals: boolean[];

  beforeAll(async () => {
    app = await create();
    (expressApp.request as unknown as { hello: () => string }).hello = () => 'added by the host after creation';
    const sub = express();
    sub.get('/sub/where', (req, res) => {
      res.json({ subApp: req.app === sub, subPrototype: Object.getPrototypeOf(req) === sub.request });
    });
    sub.get('/sub/pass', (_req, _res, next) => next());
    expressApp.use(sub);
    expressApp.get('/sub/pass', (req: Request, res: Response) => {
      res.json({ parentPrototype: Object.getPrototypeOf(req) === expressApp.request, parentApp: req.app === expressApp });
    });
    arrivals = watchArrivals(app.getHttpServer());
    ({ url } = await listen(app));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a request arrives already on app.request / app.response, so Express has no prototype to swap', async () => {
    arrivals.length = 0;
    const res = await fetch(`${url}/probe?a=1`, { headers: { 'x-probe': 'yes' } });
    expect(res.status).toBe(200);
    expect(arrivals).toEqual([true]);
    expect(await res.json()).toEqual({
      reqIsAppRequest: true,
      resIsAppResponse: true,
      nodeTypes: true,
      header: 'yes',
      query: { a: '1' },
      sameApp: true,
      hello: 'added by the host after creation',
    });
  });

  it('Nest parses bodies and answers JSON through the Express response API as before', async () => {
    const res = await fetch(`${url}/probe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":[1,2]}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ body: { x: [1, 2] } });
  });

  it('a mounted Express sub-app still gets its own prototypes, and the parent its own back after it', async () => {
    expect(await (await fetch(`${url}/sub/where`)).json()).toEqual({ subApp: true, subPrototype: true });
    expect(await (await fetch(`${url}/sub/pass`)).json()).toEqual({ parentPrototype: true, parentApp: true });
  });

  it('keeps keep-alive connections working across many requests on one socket', async () => {
    let connections = 0;
    const count = (): void => void connections++;
    app.getHttpServer().on('connection', count);
    try {
      const answers = [];
      for (let i = 0; i < 20; i++) answers.push((await fetch(`${url}/probe?i=${i}`)).status);
      expect(answers.every((s) => s === 200)).toBe(true);
      expect(connections).toBeLessThanOrEqual(1); // 0 when fetch reuses a socket of the earlier tests
    } finally {
      app.getHttpServer().off('connection', count);
    }
  });
});

describe('RestapExpressAdapter on an Express app the host built, with a sub-app mounted before Nest started', () => {
  it('the new app.request inherits from the previous one: what is set on that object still reaches every request', async () => {
    const existing = express();
    const previous = existing.request;
    const sub = express();
    sub.get('/early/where', (req, res) => {
      res.json({ early: (req as unknown as { early?: () => string }).early?.(), subApp: req.app === sub });
    });
    existing.use(sub);
    const app = await create({}, existing);
    try {
      expect(Object.getPrototypeOf(existing.request)).toBe(previous);
      (previous as unknown as { early: () => string }).early = () => 'set on the previous app.request';
      const arrivals = watchArrivals(app.getHttpServer());
      const base = (await listen(app)).url;
      expect(await (await fetch(`${base}/early/where`)).json()).toEqual({ early: 'set on the previous app.request', subApp: true });
      expect(((await (await fetch(`${base}/probe`)).json()) as Seen).reqIsAppRequest).toBe(true);
      expect(arrivals).toEqual([true, true]);
    } finally {
      await app.close();
    }
  });

  it('a second server of the same Express app (two Nest apps on one adapter) shares the classes', () => {
    const instance = express();
    const first = expressMessageClasses(instance);
    const request = instance.request;
    expect(expressMessageClasses(instance)).toBe(first);
    expect(instance.request).toBe(request);
  });
});

describe('RestapExpressAdapter with Nest server options', () => {
  it('keeps the server Nest made with forceCloseConnections, or when httpsOptions bring message classes of the host', () => {
    expect(buildsOnExpressPrototypes({})).toBe(true);
    expect(buildsOnExpressPrototypes({ httpsOptions: {} })).toBe(true);
    expect(buildsOnExpressPrototypes({ forceCloseConnections: true })).toBe(false);
    expect(buildsOnExpressPrototypes({ httpsOptions: { IncomingMessage } as never })).toBe(false);
    expect(buildsOnExpressPrototypes({ httpsOptions: { ServerResponse } as never })).toBe(false);
  });

  it('forceCloseConnections: Nest keeps its own server (it tracks connections on it), which still serves and closes', async () => {
    const app = await create({ forceCloseConnections: true });
    try {
      const arrivals = watchArrivals(app.getHttpServer());
      const base = (await listen(app)).url;
      const seen = (await (await fetch(`${base}/probe`)).json()) as Seen;
      expect(arrivals).toEqual([false]);
      expect(seen).toMatchObject({ reqIsAppRequest: true, sameApp: true });
    } finally {
      await app.close();
    }
  });

  it('httpsOptions: an HTTPS server whose requests arrive on the app prototypes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'restap-tls-'));
    let app: NestExpressApplication | undefined;
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
      const cert = readFileSync(`${dir}/cert.pem`);
      app = await create({ httpsOptions: { key: readFileSync(`${dir}/key.pem`), cert } });
      expect(app.getHttpServer()).toBeInstanceOf(HttpsServer);
      const arrivals = watchArrivals(app.getHttpServer());
      await app.listen(0, '127.0.0.1');
      const { port } = app.getHttpServer().address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        httpsRequest({ host: '127.0.0.1', port, path: '/probe', ca: cert }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text));
        }).on('error', reject).end();
      });
      expect(arrivals).toEqual([true]);
      expect(JSON.parse(body)).toMatchObject({ reqIsAppRequest: true, resIsAppResponse: true, sameApp: true });
    } finally {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

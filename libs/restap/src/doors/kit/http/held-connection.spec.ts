import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { releaseParser } from './held-connection';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** One request on its own connection: status, headers, body, and whether the server closed the socket. */
function ask(port: number, method = 'GET', body?: string): Promise<{ status: number; headers: IncomingMessage['headers']; text: string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method, path: '/', agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, closed }));
    });
    const closed = new Promise<void>((done) => req.once('socket', (socket) => socket.once('close', () => done())));
    req.on('error', reject);
    req.end(body);
  });
}

describe('releaseParser (a held connection gives back its HTTP parser)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('a response whose head is not out yet says Connection: close, is answered whole, and its socket closes', async () => {
    let socketParser: unknown;
    ({ server } = await serve((req, res) => {
      // Held after a first read, as a poll is: the request has been read whole by then.
      setTimeout(() => {
        releaseParser(res);
        socketParser = (req.socket as unknown as { parser: unknown }).parser;
        setTimeout(() => res.end('{"items":[]}'), 50);
      }, 10);
    }));
    const { port } = server.address() as AddressInfo;
    const answer = await ask(port);
    expect(socketParser).toBeNull();
    expect(answer).toMatchObject({ status: 200, text: '{"items":[]}' });
    expect(answer.headers.connection).toBe('close');
    await answer.closed;
  });

  it('a stream whose head is out keeps writing, and its socket closes once it ends', async () => {
    ({ server } = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': first\n\n');
        setTimeout(() => {
          releaseParser(res);
          res.write(': heartbeat\n\n');
          setTimeout(() => res.end('event: done\ndata: {}\n\n'), 20);
        }, 20);
      });
    }));
    const { port } = server.address() as AddressInfo;
    const answer = await ask(port, 'POST', '{"message":"hi"}');
    expect(answer.headers.connection).toBe('keep-alive');
    expect(answer.text).toBe(': first\n\n: heartbeat\n\nevent: done\ndata: {}\n\n');
    await answer.closed;
  });

  it('the client hanging up still closes the response at once', async () => {
    let closed!: () => void;
    const responseClosed = new Promise<void>((resolve) => (closed = resolve));
    ({ server } = await serve((req, res) => {
      res.on('close', closed);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': first\n\n');
      releaseParser(res);
    }));
    const { port } = server.address() as AddressInfo;
    const req = request({ port, host: '127.0.0.1', path: '/', agent: false }, (res) => res.once('data', () => req.destroy()));
    req.on('error', () => undefined);
    req.end();
    await responseClosed;
  });

  it('leaves a request not read whole alone (its parser still has body to read)', async () => {
    let kept: unknown;
    ({ server } = await serve((req, res) => {
      releaseParser(res);
      kept = (req.socket as unknown as { parser: unknown }).parser;
      req.resume();
      req.on('end', () => res.end('ok'));
    }));
    const { port } = server.address() as AddressInfo;
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/', agent: false, headers: { 'content-length': '4' } });
    const done = new Promise<string>((resolve) =>
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      }),
    );
    req.write('ab');
    setTimeout(() => req.end('cd'), 30);
    expect(await done).toBe('ok');
    expect(kept).not.toBeNull();
  });
});

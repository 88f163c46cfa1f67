/**
 * A provider stand-in for the HTTP adapters' tests: a real HTTP server on 127.0.0.1 that records
 * every request (method, path, headers, JSON body) and answers what the test's handler says.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** What to answer: a status with a JSON body, or `hang` (never answer: the client times out). */
export type StubAnswer = { status: number; body?: unknown } | 'hang';

export interface HttpStub {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler; it sees the request and how many came before it. */
  answer(handler: (req: RecordedRequest, index: number) => StubAnswer): void;
  close(): Promise<void>;
}

export async function startHttpStub(
  handler: (req: RecordedRequest, index: number) => StubAnswer = () => ({ status: 200 }),
): Promise<HttpStub> {
  const requests: RecordedRequest[] = [];
  let current = handler;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      requests.push(recorded);
      const answer = current(recorded, requests.length - 1);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on (bound, then released): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A local OTLP/HTTP receiver for the servers that trace (lib/servers.ts `app+tracing`): it takes every
 * export (any protocol over HTTP), answers 200 and counts requests and bytes, so the bench measures what
 * tracing costs the API with a collector that keeps up. Runs in the parent, started once.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OnCleanup } from './processes';

export interface OtlpSink {
  url: string;
  exports: number;
  bytes: number;
}

let started: Promise<OtlpSink> | undefined;

export function otlpSink(onCleanup: OnCleanup): Promise<OtlpSink> {
  started ??= new Promise((resolve) => {
    const sink: OtlpSink = { url: '', exports: 0, bytes: 0 };
    const server = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => (sink.bytes += chunk.length));
      req.on('end', () => {
        sink.exports += 1;
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      onCleanup('OTLP sink', () => new Promise((done) => server.close(() => done())));
      resolve(sink);
    });
  });
  return started;
}

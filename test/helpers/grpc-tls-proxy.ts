// A TLS endpoint on loopback in front of the Temporal dev server, whose CLI has no TLS flags: an HTTP/2
// server over TLS (mTLS when given a CA for client certificates) that forwards every gRPC call to the dev
// server's plaintext port, headers, body and trailers, and records what each call carried.
import http2, { type ClientHttp2Session, type IncomingHttpHeaders, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface SeenCall {
  path: string;
  authorization?: string;
  namespace?: string;
  /** The client certificate's common name, when one was presented. */
  clientCertificate?: string;
}

export interface GrpcTlsProxy {
  /** host:port of the TLS endpoint. */
  address: string;
  /** Every call forwarded. */
  calls: SeenCall[];
  /** TLS handshakes the server refused or the client gave up (a wrong CA, a missing client certificate). */
  failedHandshakes: number;
  close(): Promise<void>;
}

export async function startGrpcTlsProxy(opts: {
  upstream: string;
  cert: Buffer;
  key: Buffer;
  /** Require a client certificate signed by this CA (mTLS). */
  clientCa?: Buffer;
}): Promise<GrpcTlsProxy> {
  const upstream: ClientHttp2Session = http2.connect(`http://${opts.upstream}`);
  upstream.on('error', () => undefined);
  const sessions = new Set<ServerHttp2Session>();
  const calls: SeenCall[] = [];
  const proxy = { failedHandshakes: 0 };
  const server = http2.createSecureServer({
    cert: opts.cert,
    key: opts.key,
    ...(opts.clientCa ? { ca: opts.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
  });
  server.on('tlsClientError', () => (proxy.failedHandshakes += 1));
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => undefined);
  });
  server.on('stream', (stream, headers) => {
    const socket = stream.session?.socket as TLSSocket | undefined;
    const peer = socket?.getPeerCertificate?.();
    calls.push({
      path: String(headers[':path']),
      authorization: headerText(headers, 'authorization'),
      namespace: headerText(headers, 'temporal-namespace'),
      clientCertificate: commonName(peer?.subject?.CN),
    });
    const forwarded: IncomingHttpHeaders = { ...headers };
    delete forwarded[':scheme'];
    delete forwarded[':authority'];
    const call = upstream.request(forwarded);
    let trailers: IncomingHttpHeaders = {};
    call.on('response', (answer) => {
      if (stream.destroyed) return;
      // A trailers-only answer (an error) is one HEADERS frame that ends the stream: pass it on as such.
      if ('grpc-status' in answer) {
        stream.respond(answer, { endStream: true });
        return;
      }
      stream.respond(answer, { waitForTrailers: true });
      call.pipe(stream);
    });
    call.on('trailers', (received: IncomingHttpHeaders) => {
      trailers = received;
    });
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.pipe(call);
    call.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('error', () => call.close(http2.constants.NGHTTP2_CANCEL));
    stream.on('close', () => {
      if (!call.closed) call.close(http2.constants.NGHTTP2_CANCEL);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    calls,
    get failedHandshakes() {
      return proxy.failedHandshakes;
    },
    async close() {
      for (const session of sessions) session.destroy();
      upstream.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function commonName(cn: string | string[] | undefined): string | undefined {
  return Array.isArray(cn) ? cn[0] : cn;
}

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

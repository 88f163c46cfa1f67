// A loopback TCP proxy a test puts between a process and a server (Postgres, here) to make faults:
// cut (open connections dropped, new ones refused), freeze (connections stay open, nothing passes: a
// half-open peer), and restore on the same port.
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and stops listening: connects are refused. */
  cut(): Promise<void>;
  /** Keeps connections open but passes nothing either way, and accepts new ones that stay silent. */
  freeze(): void;
  /** Listens again on the same port (after a cut) and passes bytes again (after a freeze). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let frozen = false;
  let server: Server | undefined;
  let port = 0;

  function pipe(from: Socket, to: Socket) {
    from.on('data', (chunk: Buffer) => {
      if (!frozen) to.write(chunk);
    });
  }

  async function listen(): Promise<void> {
    server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(target.port, target.host);
      const pair = { client, upstream };
      pairs.add(pair);
      const end = () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) {
        s.on('error', end);
        s.on('close', end);
      }
      pipe(client, upstream);
      pipe(upstream, client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }

  async function stopListening(): Promise<void> {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await listen();
  return {
    get port() {
      return port;
    },
    async cut() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await stopListening();
    },
    freeze() {
      frozen = true;
    },
    async restore() {
      frozen = false;
      if (!server) await listen();
    },
    async close() {
      frozen = false;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await stopListening();
    },
  };
}

/** The test database server's address (TEST_DATABASE_ADMIN_URL). */
export function testDatabaseServer(): { host: string; port: number } {
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  return { host: url.hostname, port: Number(url.port) };
}

/** A connection string to `database` through the proxy. */
export function throughProxy(proxy: TcpProxy, database: string): string {
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.port = String(proxy.port);
  url.pathname = `/${database}`;
  return url.toString();
}

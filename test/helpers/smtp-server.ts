/**
 * A real SMTP server on 127.0.0.1 for the e-mail adapter's tests (smtp-server): it records each
 * message it accepts (envelope, raw source, the parse by mailparser) and can refuse recipients,
 * require a login, or stall before answering the message data.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  raw: string;
  parsed: ParsedMail;
  /** The user who logged in, when the server asked for a login. */
  user?: string;
}

export interface SmtpServerOptions {
  /** Recipients answered `550 5.1.1`. */
  refuse?: (address: string) => boolean;
  /** When set, a login with exactly these credentials is required. */
  credentials?: { user: string; password: string };
  /** Never answer the message data (the client's timeout fires). */
  stallOnData?: boolean;
  /** Listen on this port (a server started again after a stop); default: any free port. */
  port?: number;
  /** Record accepted messages here (a restarted server goes on with its predecessor's list). */
  received?: ReceivedMail[];
}

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = options.received ?? [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered, so a login may travel unencrypted here only.
    disabledCommands: options.credentials ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !options.credentials,
    logger: false,
    onAuth(auth, _session, callback) {
      const ok = auth.username === options.credentials?.user && auth.password === options.credentials?.password;
      callback(ok ? null : new Error('Invalid username or password'), ok ? { user: auth.username } : undefined);
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.(address.address)) {
        callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected`), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (options.stallOnData) return;
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
              user: typeof session.user === 'string' ? session.user : undefined,
            });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

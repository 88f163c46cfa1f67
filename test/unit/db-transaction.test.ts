import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { createDb } from '../../src/db/sql';

// A connection the server ends while a transaction holds it: pg's client emits 'error', and an
// EventEmitter with no listener throws that error out of the socket handler (the process would die).
class FakeClient extends EventEmitter {
  released: unknown[] = [];
  query(): Promise<{ rows: never[]; rowCount: number }> {
    return Promise.resolve({ rows: [], rowCount: 0 });
  }
  release(err?: unknown): void {
    this.released.push(err);
  }
}

it('listens for the connection’s error while the transaction holds it, and stops listening after', async () => {
  const client = new FakeClient();
  const db = createDb({ connect: () => Promise.resolve(client) } as unknown as Pool);
  await db.transaction(() => {
    expect(() => client.emit('error', new Error('Connection terminated unexpectedly'))).not.toThrow();
    return Promise.resolve();
  });
  expect(client.listenerCount('error')).toBe(0);
  expect(client.released).toEqual([undefined]);
});

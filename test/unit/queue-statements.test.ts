// Issue 35 item 3: "one set of queue statements used by the queues". Checked on the tree: the relay
// loop's statements (claim the due rows, when the next is due, a failure's backoff, make the waiting
// rows due) are written in src/relay/statements.ts only, and each relayed table hands its description
// (a QueueTable in its repository) to them from its relay.
import fs from 'node:fs';
import path from 'node:path';
import { queueStatementTexts } from '../../src/relay/statements';
import { OUTBOX_QUEUE } from '../../src/messages/repository';
import { INBOX_QUEUE } from '../../src/webhooks/repository';
import { SIGNALS_QUEUE } from '../../src/workflow-signals/repository';
import { STARTS_QUEUE } from '../../src/workflow-starts/repository';

const ROOT = path.resolve(__dirname, '..', '..');
const ROOTS = ['src', 'activities', 'worker', 'workflows', 'bench'];
const STATEMENTS = 'src/relay/statements.ts';
const RELAYS = ['src/webhooks/relay.ts', 'src/workflow-starts/relay.ts', 'src/workflow-signals/relay.ts', 'src/messages/relay.ts'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

const files = ROOTS.flatMap(sourceFiles)
  .filter((file) => !file.startsWith('src/db/migrations/'))
  .map((file) => ({ file, code: fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '') }));

/** The queue statements' marks: the backoff, the next-due answer, due or waiting rows, the failures' unnest. */
const QUEUE_SQL = /power\(2|"dueInMs"|next_attempt_at\s*(<=|>)\s*now\(\)|unnest\(\$1::bigint\[\],\s*\$2::text\[\]\)/;

it('finds the rule on what it is for', () => {
  expect(
    [
      'least($3::float8, $4::float8 * power(2, w.attempts))',
      '* 1000)::float8 as "dueInMs"',
      'where started_at is null and next_attempt_at <= now()',
      'from unnest($1::bigint[], $2::text[]) as f(id, error)',
    ].every((t) => QUEUE_SQL.test(t)),
  ).toBe(true);
  expect(
    ['insert into t (next_attempt_at) values (now())', 'set next_attempt_at = now() where id = $1', 'for update skip locked'].some((t) =>
      QUEUE_SQL.test(t),
    ),
  ).toBe(false);
});

it('writes the queue statements in src/relay/statements.ts only', () => {
  expect(files.find((f) => f.file === STATEMENTS)?.code).toMatch(QUEUE_SQL);
  expect(files.filter(({ file, code }) => file !== STATEMENTS && QUEUE_SQL.test(code)).map((f) => f.file)).toEqual([]);
});

it('every relay takes its queue methods from them', () => {
  for (const file of RELAYS) {
    const code = files.find((f) => f.file === file)?.code ?? '';
    expect([file, /queueStatements<\w+>\(\w+_QUEUE\)/.test(code)]).toEqual([file, true]);
  }
});

it('builds the four queues the same way', () => {
  const texts = [INBOX_QUEUE, STARTS_QUEUE, SIGNALS_QUEUE, OUTBOX_QUEUE].map((q) => ({ q, t: queueStatementTexts(q) }));
  for (const { q, t } of texts) {
    expect(t.claim).toContain(`from ${q.table} ${q.alias}`);
    expect(t.claim).toMatch(/ limit \$1\n for update of \w+ skip locked$/);
    expect(t.recovered).toContain(`update ${q.table} ${q.alias} set next_attempt_at = now()`);
  }
  // The outbox's failed message never waits past its expiry; starts and signals keep new rows for the API's attempt.
  expect(texts[3].t.failed).toContain('least(m.expires_at, now() + make_interval');
  expect(texts.map(({ t }) => t.recovered.includes('attempts > 0'))).toEqual([false, true, true, false]);
});

import { query, type Sql } from '../db/sql';

/** The SQL of the settings table: one JSON value per key. */

/** The stored value of a key, or undefined when never saved. `lock` takes the row for update. */
export async function settingValue(sql: Sql, key: string, opts: { lock?: boolean } = {}): Promise<Record<string, unknown> | undefined> {
  const row = await sql.one<{ value: Record<string, unknown> }>(
    opts.lock
      ? query('settings.lock-value', 'select value from settings where key = $1 for update')
      : query('settings.value', 'select value from settings where key = $1'),
    [key],
  );
  return row?.value;
}

/** Creates the key's row with an empty value unless it exists; true when this call created it. */
export async function createSettingIfMissing(sql: Sql, key: string, now: Date, userId: string): Promise<boolean> {
  const created = await sql.exec(
    query(
      'settings.create-if-missing',
      `insert into settings (key, value, updated_at, updated_by) values ($1, '{}'::jsonb, $2, $3) on conflict (key) do nothing`,
    ),
    [key, now, userId],
  );
  return created > 0;
}

export async function writeSetting(sql: Sql, key: string, value: Record<string, unknown>, now: Date, userId: string): Promise<void> {
  await sql.exec(query('settings.write', 'update settings set value = $2::jsonb, updated_at = $3, updated_by = $4 where key = $1'), [
    key,
    JSON.stringify(value),
    now,
    userId,
  ]);
}

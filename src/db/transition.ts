import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryResultRow } from 'pg';
import type { Query, Sql } from './sql';

/**
 * TRANSITIONAL (issue 21): lets code that still holds a MikroORM EntityManager (and its
 * transaction) call a repository already written against `Sql`. The `$n` placeholders become the
 * ORM's `?` in order, arrays become Postgres array literals (the ORM would spread them). Removed
 * once no EntityManager is handed around outside migrations.
 */
export function sqlOf(em: EntityManager): Sql {
  const rows = <T>(statement: Query | string, values?: readonly unknown[]) => {
    const { text, params } = toOrm(statement, values);
    return em.execute<T[]>(text, params);
  };
  return {
    rows: <T extends QueryResultRow>(statement: Query | string, values?: readonly unknown[]) => rows<T>(statement, values),
    async one<T extends QueryResultRow>(statement: Query | string, values?: readonly unknown[]): Promise<T | undefined> {
      const found = await rows<T>(statement, values);
      return found[0];
    },
    async exec(statement, values) {
      const { text, params } = toOrm(statement, values);
      const result = await em.execute<{ affectedRows?: number }>(text, params, 'run');
      return result.affectedRows ?? 0;
    },
  };
}

function toOrm(statement: Query | string, values: readonly unknown[] = []): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const text = (typeof statement === 'string' ? statement : statement.text).replace(/\$(\d+)/g, (_m, n: string) => {
    params.push(toOrmParam(values[Number(n) - 1]));
    return '?';
  });
  return { text, params };
}

function toOrmParam(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return `{${value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}

import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from '../entities';
import { migrationsList } from './migrations';
import { postgresConnection, type PostgresConnection } from './tls';

/**
 * MikroORM options: the entities are the schema's source, and its migrator applies src/db/migrations.
 * A URL is read for its sslmode (src/db/tls.ts); MikroORM gets the URL without it and the same TLS
 * options as the pool, since it would drop the parameter.
 */
export function ormOptions(target: string | PostgresConnection, poolMax = 10): Options {
  const { connectionString, ssl } = typeof target === 'string' ? postgresConnection(target) : target;
  return {
    clientUrl: connectionString,
    entities,
    extensions: [Migrator],
    // The schema is only ever changed by committed migrations, never synced at run time.
    migrations: {
      migrationsList,
      path: 'src/db/migrations',
      pathTs: 'src/db/migrations',
      emit: 'ts',
      transactional: true,
      allOrNothing: true,
      snapshot: true,
      snapshotOnMigrate: false,
      snapshotName: '.snapshot-activation-sys',
      silent: true,
    },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30_000 },
    driverOptions: { connectionTimeoutMillis: 5_000, ssl },
    allowGlobalContext: false,
    debug: false,
  };
}

export async function openOrm(target: string | PostgresConnection, poolMax?: number): Promise<MikroORM> {
  return MikroORM.init(ormOptions(target, poolMax));
}

/** Applies what is pending; the migrations applied. */
export async function migrate(orm: MikroORM): Promise<Array<{ name: string }>> {
  return orm.migrator.up();
}

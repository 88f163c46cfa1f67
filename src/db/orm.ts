import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from '../entities';
import { migrationsList } from './migrations';

/** MikroORM options: the entities are the schema's source, and its migrator applies src/db/migrations. */
export function ormOptions(clientUrl: string, poolMax = 10): Options {
  return {
    clientUrl,
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
    driverOptions: { connectionTimeoutMillis: 5_000 },
    allowGlobalContext: false,
    debug: false,
  };
}

export async function openOrm(clientUrl: string, poolMax?: number): Promise<MikroORM> {
  return MikroORM.init(ormOptions(clientUrl, poolMax));
}

export async function migrate(orm: MikroORM): Promise<void> {
  await orm.migrator.up();
}

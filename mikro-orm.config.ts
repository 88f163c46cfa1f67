// Used by tooling (migration generation); the processes build their options in src/db/orm.ts.
import { ormOptions } from './src/db/orm';

export default ormOptions(process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:54329/activation_sys');

/** Where the bench writes, from the compiled file's place (dist/bench/lib -> repository root). */
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const OUT_DIR = path.join(ROOT, '.data', 'bench');
/** --cpu-prof: the servers' profiles. */
export const PROFILE_DIR = path.join(OUT_DIR, 'profiles');
/** The embedded PostgreSQL's data folders, one per run. */
export const PG_PARENT_DIR = path.join(ROOT, '.data', 'bench-pg');

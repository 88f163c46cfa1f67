/**
 * Creates a user with any role, e.g. the first super_admin:
 *   npm run create-user -- --role super_admin --name "Ops" --phone +966500000001 [--email a@b.c] [--areas b2b] [--areas-write b2b]
 * Uses DATABASE_URL, else the database of the running local stack (`npm start`), else starts the
 * embedded PostgreSQL itself.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { APP_ROLES, IDENTITY_TYPES } from '../entities';
import { createPersonalDataCipher, type PersonalDataCipher } from '../lib/crypto';
import { messageOf } from '../lib/errors';
import { insertVerifiedUser } from '../auth/repository';
import type { Sql } from '../db/sql';
import { stackDatabaseUrl } from './stack-database';

const Args = z
  .object({
    role: z.enum(APP_ROLES),
    name: z.string().trim().min(1).max(255),
    phone: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, 'phone must be E.164')
      .optional(),
    email: z
      .email()
      .transform((v) => v.toLowerCase())
      .optional(),
    'identity-type': z.enum(IDENTITY_TYPES).default('citizen'),
    areas: z.string().optional(),
    'areas-write': z.string().optional(),
  })
  .refine((a) => a.phone || a.email, { message: 'give --phone or --email' });

export type CreateUserArgs = z.infer<typeof Args>;

/** Parses command-line arguments; throws with one line per problem. */
export function parseCreateUserArgs(argv: string[]): CreateUserArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      role: { type: 'string' },
      name: { type: 'string' },
      phone: { type: 'string' },
      email: { type: 'string' },
      'identity-type': { type: 'string' },
      areas: { type: 'string' },
      'areas-write': { type: 'string' },
    },
  });
  const parsed = Args.safeParse(values);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('\n'));
  return parsed.data;
}

/** Inserts the user, verified, with the given role (and areas for an `admin`). */
export async function createUser(sql: Sql, cipher: PersonalDataCipher, args: CreateUserArgs) {
  const list = (v?: string) =>
    v
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  const { id } = await insertVerifiedUser(sql, {
    name: args.name,
    appRole: args.role,
    identityType: args['identity-type'],
    phoneEncrypted: args.phone ? cipher.encrypt(args.phone) : null,
    phoneHash: args.phone ? cipher.lookupHash(args.phone) : null,
    emailEncrypted: args.email ? cipher.encrypt(args.email) : null,
    emailHash: args.email ? cipher.lookupHash(args.email) : null,
    managedAreas: args.role === 'admin' ? list(args.areas) : null,
    managedAreasWrite: args.role === 'admin' ? list(args['areas-write']) : null,
    now: new Date(),
  });
  return { id, role: args.role, name: args.name };
}

async function main(): Promise<void> {
  const args = parseCreateUserArgs(process.argv.slice(2));
  const stackUrl = process.env.DATABASE_URL ? null : await stackDatabaseUrl();
  const config = loadConfig(stackUrl ? { ...process.env, DATABASE_URL: stackUrl } : process.env);
  const cipher = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY);
  const db = await openDatabase(config, { schema: 'migrate' });
  try {
    console.log(JSON.stringify(await createUser(db.db, cipher, args)));
  } finally {
    await db.close();
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(messageOf(err));
    process.exit(1);
  });

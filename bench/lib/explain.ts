/** EXPLAIN of the statements the API prepares (captured in its server, lib/timing.ts), as the history and roster phases judge them. */
import type { PoolClient } from 'pg';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export function walk(node: PlanNode, visit: (n: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

export interface ExplainedPlan {
  /** Which plan of the prepared statement. */
  plan: 'custom' | 'generic';
  top: PlanNode;
  executionMs: number;
  planningMs: number;
  /** The same EXPLAIN in text form (run once more). */
  text: string;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the exact statement text the API prepared, run as
 * a prepared statement `name` with both the custom plan (what the first executions
 * of a named statement get) and the generic plan (what PostgreSQL may switch to
 * from the sixth).
 */
export async function explainPrepared(
  db: PoolClient,
  name: string,
  statementText: string,
  values: Array<string | number>,
): Promise<ExplainedPlan[]> {
  const args = values.map((v) => (typeof v === 'number' ? String(v) : db.escapeLiteral(v))).join(', ');
  const out: ExplainedPlan[] = [];
  await db.query(`prepare ${name} as ${statementText}`);
  try {
    for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
      await db.query(`set plan_cache_mode = ${mode}`);
      await db.query(`execute ${name}(${args})`); // warm the pages the plan touches
      const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, buffers, format json) execute ${name}(${args})`);
      const raw = rows[0]['QUERY PLAN'];
      const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{
        Plan: PlanNode;
        'Execution Time': number;
        'Planning Time': number;
      }>;
      const textPlan = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) execute ${name}(${args})`);
      out.push({
        plan: mode === 'force_custom_plan' ? 'custom' : 'generic',
        top: doc[0].Plan,
        executionMs: doc[0]['Execution Time'],
        planningMs: doc[0]['Planning Time'],
        text: textPlan.rows.map((r) => r['QUERY PLAN']).join('\n'),
      });
    }
  } finally {
    await db.query('reset plan_cache_mode');
    await db.query(`deallocate ${name}`);
  }
  return out;
}

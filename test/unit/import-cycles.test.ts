// Issue 21: "no import circles (checked by lint)"; issue 35: "no import cycle between folders (the
// import-cycle lint checks folders too)". `npm run lint` runs scripts/import-cycles.sh (dpdm over src/,
// workflows/, activities/, worker/ and bench/, type-only imports included, then scripts/folder-cycles.mjs);
// this proves the check fails on a file circle and on a folder cycle no file closes, and that the tree has neither.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DPDM = path.join(ROOT, 'node_modules', 'dpdm', 'lib', 'bin', 'dpdm.js');

function importCycles(...globs: string[]): { status: number | null; output: string } {
  const run = spawnSync('bash', [path.join(ROOT, 'scripts', 'import-cycles.sh'), ...globs], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('scripts/import-cycles.sh (the lint step)', () => {
  it('fails on a circle between two folders whose way back is a type-only import', () => {
    const { status, output } = importCycles('test/fixtures/import-cycle/**/*.ts');
    expect(status).toBe(1);
    // dpdm starts the circle at whichever of its files it reached first (the glob's order differs between clones).
    const left = 'test/fixtures/import-cycle/left/order.ts';
    const right = 'test/fixtures/import-cycle/right/receipt.ts';
    expect([`${left} -> ${right}`, `${right} -> ${left}`].some((circle) => output.includes(circle))).toBe(true);
    // A module that only imports one of the circle is not part of it.
    expect(output).not.toContain('plain.ts');
  });

  it('fails on a cycle between folders that no file closes (orders -> billing -> reports -> orders)', () => {
    const { status, output } = importCycles('test/fixtures/folder-cycle/**/*.ts');
    expect(status).toBe(1);
    // No file circle: dpdm passes; the folder check names the folders and one import per step.
    expect(output).toContain('no circular dependency was found');
    expect(output).toContain(
      'Folder cycle among 3 folders: test/fixtures/folder-cycle/billing, test/fixtures/folder-cycle/orders, test/fixtures/folder-cycle/reports',
    );
    expect(output).toContain('(test/fixtures/folder-cycle/reports/round.ts -> test/fixtures/folder-cycle/orders/line.ts)');
  });

  it('finds no circle in src/, workflows/, activities/, worker/ and bench/, between files or between folders', () => {
    const { status, output } = importCycles();
    expect(output).not.toContain('->');
    expect(output).toContain('No folder cycle.');
    expect(status).toBe(0);
  });
});

describe('the workflows and the API', () => {
  it('keeps workflows/ and activities/ off the API’s client side of them (src/<area>/runs-temporal.ts, src/temporal/)', () => {
    // The folder circle the issue named: activities → the client side → workflows → activities. Ports in the
    // areas (src/<area>/runs.ts) and the quote tip in src/quotes/ keep the client side (each area's
    // runs-temporal.ts and the shared src/temporal/) a leaf the workflows never reach: it imports workflows/
    // and the areas, and only the composition roots and relays import it.
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'import-tree-')), 'tree.json');
    const run = spawnSync(
      process.execPath,
      [DPDM, '--no-tree', '--no-circular', '--no-warning', '--no-progress', '-o', out, 'workflows/**/*.ts', 'activities/**/*.ts'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(run.status).toBe(0);
    const { tree } = JSON.parse(fs.readFileSync(out, 'utf8')) as { tree: Record<string, Array<{ id: string | null }> | null> };
    // dpdm follows every import from the entries, so the tree holds all they reach.
    const reached = Object.keys(tree);
    expect(reached).toEqual(expect.arrayContaining(['activities/quotes.ts', 'src/quotes/repository.ts']));
    expect(reached.filter((file) => file.startsWith('src/temporal/') || file.endsWith('/runs-temporal.ts'))).toEqual([]);
  });
});

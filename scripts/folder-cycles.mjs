// No import cycle between folders (issue 35): scripts/import-cycles.sh runs it after dpdm's file check.
// A folder is an area of src/ (src/<area>/…), or activities/, workflows/, worker/, bench/ (a folder inside
// one of those is a folder of its own: workflows/contracts/ is what the API and the activities share with
// the workflows); a file directly in src/ is a node of its own (config.ts is imported by all, app.ts and
// main.ts import all). Any other file's folder is its directory (the test fixtures). Type-only imports count, as in the file check.
// Prints each set of folders that reach each other, with one import per step of the way, and exits 1.
//
//   node scripts/folder-cycles.mjs [globs…]     default: the globs of scripts/import-cycles.sh
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DPDM = path.join(ROOT, 'node_modules', 'dpdm', 'lib', 'bin', 'dpdm.js');
const DEFAULT_GLOBS = ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts', 'worker/**/*.ts', 'bench/**/*.ts'];

/** The folder a file belongs to, as the rule above says. */
export function folderOf(file) {
  const parts = file.split('/');
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : file;
  if (['activities', 'workflows', 'worker', 'bench'].includes(parts[0])) return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
  return path.posix.dirname(file);
}

/** Every file the globs reach and what it imports, as dpdm resolves them. */
function importTree(globs) {
  const dir = mkdtempSync(path.join(tmpdir(), 'folder-cycles-'));
  try {
    const out = path.join(dir, 'tree.json');
    const args = [DPDM, '--no-tree', '--no-circular', '--no-warning', '--no-progress', '-o', out, ...globs];
    const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`dpdm failed: ${run.stderr || run.stdout}`);
    return JSON.parse(readFileSync(out, 'utf8')).tree;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** folder -> folder -> one import that makes the edge (`from -> to`). */
export function folderGraph(tree) {
  const graph = new Map();
  for (const [file, deps] of Object.entries(tree)) {
    if (file.includes('node_modules')) continue;
    const from = folderOf(file);
    for (const dep of deps ?? []) {
      // Our own modules only: not packages, not Node's built-ins (`node:fs`, `fs`).
      if (!dep.id || dep.id.includes('node_modules') || !/\.(ts|js|mjs)$/.test(dep.id)) continue;
      const to = folderOf(dep.id);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from).has(to)) graph.get(from).set(to, `${file} -> ${dep.id}`);
    }
  }
  return graph;
}

/** The strongly connected sets of more than one folder (Tarjan). */
export function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const set = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1) found.push(set.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One way around a set: the shortest path from its first folder back to itself, each step with its import. */
function wayAround(graph, set) {
  const start = set[0];
  const inSet = new Set(set);
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!inSet.has(w) || previous.has(w)) continue;
      previous.set(w, v);
      if (w === start) queue.length = 0;
      else queue.push(w);
    }
  }
  const steps = [];
  for (let w = start, v = previous.get(w); ; w = v, v = previous.get(v)) {
    steps.unshift(`  ${v} -> ${w}   (${graph.get(v).get(w)})`);
    if (v === start) break;
  }
  return steps;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const globs = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_GLOBS;
  const graph = folderGraph(importTree(globs));
  const found = cycles(graph);
  for (const set of found) {
    console.log(`Folder cycle among ${set.length} folders: ${set.join(', ')}`);
    console.log(wayAround(graph, set).join('\n'));
  }
  if (found.length > 0) process.exit(1);
  console.log('No folder cycle.');
}

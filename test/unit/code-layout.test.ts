// Issue 21: "Every route lives in the folder named by its path; every workflow port in its area as
// `*Runs`" and "A newcomer finds any route, its logic, its SQL and its tests from the path alone".
// docs/architecture.md's "Where a path lives" table is that map; this checks it against the code:
// every path the code defines lives in the one folder its row names, and every test file named exists.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

interface Row {
  patterns: string[];
  folder: string;
  tests: string[];
}

/** The rows of the table under "## Where a path lives". */
function table(): Row[] {
  const doc = read('docs/architecture.md');
  const section = doc.slice(doc.indexOf('## Where a path lives'));
  const lines = section.slice(0, section.indexOf('\n## ', 1)).split('\n');
  const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return lines
    .filter((line) => /^\|\s*`\//.test(line))
    .map((line) => {
      const [paths, folder, tests] = line.split('|').slice(1, 4);
      return { patterns: codeSpans(paths), folder: folder.trim(), tests: codeSpans(tests) };
    });
}

/** `/auth/*` is under /auth/, `/b2b/company*` starts with it, anything else is the path itself. */
function matches(pattern: string, routePath: string): boolean {
  if (pattern.endsWith('/*')) return routePath.startsWith(pattern.slice(0, -1));
  if (pattern.endsWith('*')) return routePath.startsWith(pattern.slice(0, -1));
  return routePath === pattern;
}

/** Every path a file under src/ serves: `path:` of each api.define, and the paths of plain routers. */
function definedRoutes(): { file: string; path: string }[] {
  const routes: { file: string; path: string }[] = [];
  for (const file of sourceFiles('src')) {
    const code = read(file);
    const constants = new Map([...code.matchAll(/const (\w+) = '([^']*)'/g)].map((m) => [m[1], m[2]]));
    const resolve = (expr: string): string => {
      const literal = /^'([^']*)'$/.exec(expr) ?? /^`([^`]*)`$/.exec(expr);
      if (literal) return literal[1].replace(/\$\{(\w+)\}/g, (_, name: string) => constants.get(name) ?? `<${name}?>`);
      return constants.get(expr) ?? `<${expr}?>`;
    };
    if (code.includes('api.define(')) {
      for (const m of code.matchAll(/^\s+path: ([^,\n]+),$/gm)) routes.push({ file, path: resolve(m[1]) });
    }
    for (const m of code.matchAll(/router\.(?:get|post|put|patch|delete|use)\(\s*('[^']*')/g)) {
      routes.push({ file, path: resolve(m[1]) });
    }
  }
  return routes;
}

describe('docs/architecture.md "Where a path lives"', () => {
  const rows = table();

  it('maps each path to exactly one folder of src/, and that folder exists', () => {
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      expect({ patterns: row.patterns, folder: row.folder }).toEqual({
        patterns: row.patterns,
        folder: expect.stringMatching(/^`src\/[a-z-]+\/`$/) as unknown,
      });
      expect(fs.statSync(path.join(ROOT, row.folder.slice(1, -1))).isDirectory()).toBe(true);
    }
  });

  it('finds every route the code defines in the folder its path names, no path elsewhere', () => {
    const routes = definedRoutes();
    // The scan sees the routes it is for.
    expect(routes.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/operators', '/webhooks/card-processor', '/temporal-codec/decode', '/mock-wallet/redirect/:paymentId']),
    );
    const misplaced = routes
      .map((route) => {
        // The longest pattern that matches decides (/b2b/roster/links/* over /b2b/roster*).
        const candidates = rows
          .flatMap((row) => row.patterns.map((pattern) => ({ pattern, folder: row.folder.slice(1, -1) })))
          .filter(({ pattern }) => matches(pattern, route.path))
          .sort((a, b) => b.pattern.length - a.pattern.length);
        const folder = candidates[0]?.folder;
        return { ...route, folder: folder ?? '(no row)' };
      })
      .filter((route) => !route.file.startsWith(route.folder))
      .map((route) => `${route.path} is in ${route.file}, the table says ${route.folder}`);
    expect(misplaced).toEqual([]);
  });

  it('keeps the staff paths of an area that also serves the portal in its admin-routes.ts', () => {
    const routes = definedRoutes();
    const folders = new Set(routes.filter((r) => r.path.startsWith('/b2b/')).map((r) => path.posix.dirname(r.file)));
    const misplaced = routes
      .filter((r) => r.path.startsWith('/admin/') && folders.has(path.posix.dirname(r.file)))
      .filter((r) => path.posix.basename(r.file) !== 'admin-routes.ts')
      .map((r) => `${r.path} in ${r.file}`);
    expect(misplaced).toEqual([]);
  });

  it('names only test files that exist', () => {
    const testFiles = fs.readdirSync(path.join(ROOT, 'test', 'api')).map((name) => name.replace(/\.test\.ts$/, ''));
    const missing = rows
      .flatMap((row) => row.tests)
      .filter((name) => {
        const pattern = new RegExp(`^${name.replace(/[-.]/g, '\\$&').replace(/\*/g, '.*')}$`);
        return !testFiles.some((file) => pattern.test(file));
      });
    expect(missing).toEqual([]);
  });
});

describe('workflow ports', () => {
  it('declares each port the API uses in its area as `<Area>Runs`, none in src/temporal/', () => {
    // The client side implements the ports; the areas own them (src/companies/runs.ts, src/quotes/runs.ts …).
    const inTemporal = sourceFiles('src/temporal').flatMap((file) =>
      [...read(file).matchAll(/export (?:interface|type) (\w+(?:Workflows|Runs))\b/g)].map((m) => `${file}: ${m[1]}`),
    );
    expect(inTemporal).toEqual([]);
    const ports = sourceFiles('src')
      .filter((file) => file.endsWith('/runs.ts'))
      .map((file) => ({ file, names: [...read(file).matchAll(/export interface (\w+Runs)\b/g)].map((m) => m[1]) }));
    expect(ports.map((p) => p.file).sort()).toEqual([
      'src/activations/runs.ts',
      'src/companies/runs.ts',
      'src/payments/runs.ts',
      'src/quotes/runs.ts',
      'src/store/runs.ts',
    ]);
    // Named for its area (the store has two processes: its catalog syncs and its orders).
    expect(ports.map((p) => p.names.length)).toEqual(ports.map((p) => (p.file === 'src/store/runs.ts' ? 2 : 1)));
    expect(ports.every((p) => p.names.every((name) => /^[A-Z]\w+Runs$/.test(name)))).toBe(true);
  });
});

describe('one public face per area', () => {
  // Issue 35: "An area is used by others only through its service (or a small interface it exports) …
  // never through its repository or reads module." An area is a folder of src/; its repository
  // (repository.ts, <name>-repository.ts) and read models (reads.ts, <name>-reads.ts) are its own.
  // Others use its face: `src/<area>/index.ts` or a service module of it (src/reconciliation/records.ts,
  // src/workflow-starts/launch.ts, src/webhooks/inbox.ts). activities/<process>.ts is the adapter of
  // the area it is named after (activities/store-orders.ts: the store's) and may use that area's
  // repository, no other; workflows/ and worker/ use none. Exempt: src/cli/ (operator scripts that set
  // up a database, e.g. create-user's verified user), the composition roots at the top of src/ (app.ts
  // builds an area's reads and hands them to that area's routes) and the tests.
  const SCANNED = ['src', 'activities', 'workflows', 'worker'];
  const areas = new Set(
    fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name),
  );

  /** The area a file may reach the repository of: its own folder of src/, or the area an activity serves. */
  function ownArea(file: string): string | null {
    const [top, second] = file.split('/');
    if (top === 'src') return second;
    if (top !== 'activities') return null;
    const name = path.posix.basename(file, '.ts');
    if (areas.has(name)) return name;
    const first = name.split('-')[0];
    return areas.has(first) ? first : null;
  }

  /** Why `file` may not import `specifier`, or null: another area's repository or reads module. */
  function offence(file: string, specifier: string): string | null {
    if (!specifier.startsWith('.')) return null;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const m = /^src\/([a-z-]+)\/(?:.*\/)?([a-z-]+)$/.exec(target);
    if (!m || !/^([a-z-]+-)?(repository|reads)$/.test(m[2])) return null;
    if (m[1] === ownArea(file)) return null;
    return `${file} imports ${specifier}: the ${m[1]} area's ${m[2]}, use its face`;
  }

  it('recognizes another area’s repository and reads, and lets an area and its activities use their own', () => {
    expect(offence('src/payments/settle.ts', '../store/order-repository')).toMatch(/the store area's order-repository/);
    expect(offence('src/billing/service.ts', '../contracts/repository')).not.toBeNull();
    expect(offence('src/billing/service.ts', '../contracts/payments-repository')).not.toBeNull();
    expect(offence('src/store/providers/mock.ts', '../../audit/reads')).not.toBeNull();
    expect(offence('src/payments/service.ts', '../store/order-reads')).not.toBeNull();
    expect(offence('activities/quotes.ts', '../src/contracts/repository')).not.toBeNull();
    expect(offence('worker/health.ts', '../src/health/repository')).not.toBeNull();
    expect(offence('src/store/orders.ts', './order-repository')).toBeNull();
    expect(offence('src/store/providers/mock.ts', '../repository')).toBeNull();
    expect(offence('activities/store-orders.ts', '../src/store/order-repository')).toBeNull();
    expect(offence('activities/quotes.ts', '../src/quotes/repository')).toBeNull();
    expect(offence('src/billing/service.ts', '../contracts')).toBeNull();
    expect(offence('src/payments/verify.ts', '../reconciliation/records')).toBeNull();
  });

  it('finds no file that imports another area’s repository or reads module (src/cli/ exempt)', () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(dir)).filter(
      (file) => !file.startsWith('src/cli/') && !(file.startsWith('src/') && file.split('/').length === 2),
    );
    expect(files).toEqual(expect.arrayContaining(['src/payments/settle.ts', 'activities/quotes.ts', 'worker/health.ts']));
    const offenders = files.flatMap((file) =>
      // `import … from`, `export … from`, `import(…)` and `require(…)`, over lines when an import spans several.
      [...read(file).matchAll(/(?:\bfrom|\bimport\(|\brequire\()\s*'([^']+)'/g)]
        .map((m) => offence(file, m[1]))
        .filter((why): why is string => why !== null),
    );
    expect(offenders).toEqual([]);
  });

  // "… and on a pair of areas that import each other." A folder is an area of src/ (src/<area>/…) or
  // activities/, workflows/, worker/ (workflows/contracts/ a folder of its own: what the API and the
  // activities share with the workflows). Files directly in src/ (config.ts, the composition roots) and
  // src/cli/ are left aside; type-only imports count. Longer cycles are the folder-cycle lint's
  // (scripts/folder-cycles.mjs, test/unit/import-cycles.test.ts).
  function folderOf(target: string): string | null {
    const parts = target.split('/');
    if (parts[0] === 'src') {
      const isDir = fs.existsSync(path.join(ROOT, target)) && fs.statSync(path.join(ROOT, target)).isDirectory();
      if (parts.length === 2 && !isDir) return null;
      return parts[1] === 'cli' ? null : `src/${parts[1]}`;
    }
    if (!['activities', 'workflows', 'worker'].includes(parts[0])) return null;
    return parts[0] === 'workflows' && parts[1] === 'contracts' ? 'workflows/contracts' : parts[0];
  }

  /** "a <-> b (one import each way)" for each pair of folders that import each other. */
  function mutualPairs(imports: Array<[file: string, target: string]>): string[] {
    const edges = new Map<string, string>();
    for (const [file, target] of imports) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from && to && from !== to && !edges.has(`${from} ${to}`)) edges.set(`${from} ${to}`, `${file} -> ${target}`);
    }
    return [...edges.keys()]
      .map((key) => key.split(' '))
      .filter(([from, to]) => from < to && edges.has(`${to} ${from}`))
      .map(([from, to]) => `${from} <-> ${to} (${edges.get(`${from} ${to}`)}; ${edges.get(`${to} ${from}`)})`);
  }

  const relativeImports = (file: string): Array<[string, string]> =>
    [...read(file).matchAll(/(?:\bfrom|\bimport\(|\brequire\()\s*'([^']+)'/g)]
      .filter((m) => m[1].startsWith('.'))
      .map((m) => [file, path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]))]);

  it('recognizes two areas that import each other, also through a face or a type', () => {
    expect(
      mutualPairs([
        ['src/payments/settle.ts', 'src/store'],
        ['src/store/orders.ts', 'src/payments/money'],
        ['src/billing/service.ts', 'src/contracts'],
        ['src/config.ts', 'src/billing/service'],
        ['src/billing/x.ts', 'src/config'],
        ['activities/quotes.ts', 'workflows/contracts/quote'],
        ['workflows/contracts/quote.ts', 'activities/quotes'],
      ]),
    ).toEqual([
      'src/payments <-> src/store (src/payments/settle.ts -> src/store; src/store/orders.ts -> src/payments/money)',
      'activities <-> workflows/contracts (activities/quotes.ts -> workflows/contracts/quote; workflows/contracts/quote.ts -> activities/quotes)',
    ]);
  });

  it('finds no pair of areas that import each other', () => {
    const imports = SCANNED.flatMap((dir) => sourceFiles(dir)).flatMap(relativeImports);
    expect(imports.length).toBeGreaterThan(500);
    expect(mutualPairs(imports)).toEqual([]);
  });
});

describe('one process, one place', () => {
  // Issue 35 item 2: "For each workflow, its contract, its client side (the port and its Temporal
  // implementation together, no per-process file in src/temporal/), its activities and its compensations
  // can be found from one index in docs/architecture.md … Each workflow proxies only the activities it
  // calls; each activity factory takes only what it uses."
  const importsOf = (file: string) =>
    [...read(file).matchAll(/(?:\bfrom|\bimport\(|\brequire\()\s*'([^']+)'/g)]
      .map((m) => m[1])
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));

  /**
   * Why a file of src/temporal/ is not shared Temporal infrastructure, or null. A per-process client
   * starts, signals or schedules its workflow, so it imports that workflow or its contract (workflows/…)
   * or implements an area's port (`create<Port>Runs`): such a file lives in the process's area
   * (src/<area>/runs-temporal.ts, src/<area>/schedules.ts), never here.
   */
  function perProcess(file: string, code = read(file), imports = importsOf(file)): string | null {
    const workflow = imports.find((target) => target.startsWith('workflows/') || target === 'workflows');
    if (workflow) return `${file} imports ${workflow}: a process's client side lives in its area`;
    const port = /export (?:async )?function (create\w+Runs)\b/.exec(code);
    if (port) return `${file} exports ${port[1]}: a port's Temporal implementation lives beside the port`;
    return null;
  }

  it('recognizes a per-process client by its workflow import or its port', () => {
    expect(perProcess('src/temporal/orders.ts', '', ['workflows/order-contract'])).toMatch(/imports workflows\/order-contract/);
    expect(perProcess('src/temporal/orders.ts', 'export function createOrderRuns(client: Client)', [])).toMatch(/createOrderRuns/);
    expect(perProcess('src/temporal/update.ts', 'export async function executeUpdate()', ['src/http/errors'])).toBeNull();
  });

  it('keeps src/temporal/ to shared Temporal infrastructure: no file there imports workflows/ or implements a port', () => {
    const files = sourceFiles('src/temporal');
    expect(files).toEqual(expect.arrayContaining(['src/temporal/update.ts', 'src/temporal/connection.ts']));
    expect(files.map((file) => perProcess(file)).filter(Boolean)).toEqual([]);
  });

  it('implements each port beside it: src/<area>/runs-temporal.ts next to src/<area>/runs.ts, and nowhere else', () => {
    const ports = sourceFiles('src').filter((file) => file.endsWith('/runs.ts'));
    const implementations = sourceFiles('src').filter((file) => /export (?:async )?function create\w+Runs\b/.test(read(file)));
    expect(implementations.sort()).toEqual(ports.map((file) => file.replace(/runs\.ts$/, 'runs-temporal.ts')).sort());
    for (const file of implementations) {
      // Each create<Port>Runs returns a port declared in the runs.ts beside it.
      const declared = new Set(
        [...read(file.replace('runs-temporal.ts', 'runs.ts')).matchAll(/export interface (\w+Runs)\b/g)].map((m) => m[1]),
      );
      const returned = [...read(file).matchAll(/export function create\w+Runs\([\s\S]*?\):\s*(\w+)\s*\{/g)].map((m) => m[1]);
      expect({ file, returned: returned.filter((name) => !declared.has(name)) }).toEqual({ file, returned: [] });
      expect(returned.length).toBeGreaterThan(0);
    }
  });

  it('builds a Temporal implementation only in a composition root or a relay: services take the port', () => {
    const importers = ['src', 'activities', 'workflows', 'worker']
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => importsOf(file).some((target) => /^src\/[a-z-]+\/runs-temporal$/.test(target)));
    expect(importers).toEqual(expect.arrayContaining(['src/main.ts']));
    expect(
      importers.filter((file) => !(file === 'src/main.ts' || file.startsWith('worker/') || /^src\/[a-z-]+\/relay\.ts$/.test(file))),
    ).toEqual([]);
  });

  it('proxies no workflow’s activities through the merged Activities type of activities/index.ts', () => {
    const offenders = sourceFiles('workflows').flatMap((file) => [
      ...importsOf(file)
        .filter((target) => target === 'activities' || target === 'activities/index')
        .map((target) => `${file} imports ${target}: proxy the activities it calls, from their module`),
      ...[...read(file).matchAll(/proxy(?:Local)?Activities<\s*Activities\s*>/g)].map((m) => `${file}: ${m[0]}`),
    ]);
    expect(offenders).toEqual([]);
  });

  it('takes in each activity factory only what it uses: every field of its deps is read', () => {
    const files = sourceFiles('activities').filter((file) => file !== 'activities/index.ts');
    expect(files.length).toBeGreaterThan(5);
    const unused = files.flatMap((file) => {
      const code = read(file);
      const deps = /export interface (\w+ActivityDeps) \{([\s\S]*?)\n\}/.exec(code);
      if (!deps) return [`${file}: no exported *ActivityDeps interface`];
      const fields = [...deps[2].matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
      const destructured = [...code.matchAll(/const \{([^}]*)\} = deps\b/g)].flatMap((m) => m[1].split(',').map((name) => name.trim()));
      return fields
        .filter((field) => !new RegExp(`\\bdeps\\.${field}\\b`).test(code) && !destructured.includes(field))
        .map((field) => `${file}: ${deps[1]}.${field} is never read`);
    });
    expect(unused).toEqual([]);
    // No factory but the worker's assembly takes the whole ActivityDeps.
    const whole = files.filter((file) => /\(deps: ActivityDeps\)/.test(read(file)));
    expect(whole).toEqual([]);
  });

  /** The rows of the index under "## Processes": the code spans of each cell. */
  function processIndex(): string[][][] {
    const doc = read('docs/architecture.md');
    const section = doc.slice(doc.indexOf('## Processes'));
    const lines = section.slice(0, section.indexOf('\n## ', 1)).split('\n');
    return lines
      .filter((line) => /^\|\s*`\w+Workflow`/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1])),
      );
  }

  it('indexes every workflow in docs/architecture.md "Processes", with files that exist', () => {
    const rows = processIndex();
    const exported = [...read('workflows/index.ts').matchAll(/export \{([^}]*)\}/g)].flatMap((m) => m[1].split(',').map((n) => n.trim()));
    expect(exported.length).toBeGreaterThan(8);
    const indexed = rows.flatMap((cells) => cells[0].filter((name) => /Workflow$/.test(name)));
    expect(indexed.sort()).toEqual([...exported].sort());
    const files = rows.flatMap((cells) => cells.flat()).filter((span) => /^(src|workflows|activities|worker)\/[\w/.-]+\.ts$/.test(span));
    expect(files.filter((file) => !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
    // Each row names its contract and workflow files, and the index names every client side and activity module.
    for (const cells of rows) {
      expect({ row: cells[0], contract: cells[1].some((f) => f.endsWith('-contract.ts')) }).toEqual({ row: cells[0], contract: true });
      expect({ row: cells[0], workflow: cells[2].length }).toEqual({ row: cells[0], workflow: 1 });
    }
    const expected = [
      ...sourceFiles('src').filter((file) => /\/(runs|runs-temporal|schedules)\.ts$/.test(file) && !file.startsWith('src/temporal/')),
      ...sourceFiles('activities').filter((file) => file !== 'activities/index.ts'),
    ];
    expect(expected.filter((file) => !files.includes(file))).toEqual([]);
  });

  it('proxies in each workflow only the activities it calls', () => {
    // The type checker reads each proxyActivities<T> / proxyLocalActivities<T> of workflows/ and lists what T
    // offers; each name must be called in that file (`proxy.name(`, `proxy(…).name(`, or destructured).
    const files = sourceFiles('workflows').map((file) => path.join(ROOT, file));
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: () => undefined,
      },
    );
    const program = ts.createProgram(files, { ...config!.options, noEmit: true, incremental: false });
    const checker = program.getTypeChecker();
    const offered = new Map<string, Set<string>>();
    for (const file of files) {
      const source = program.getSourceFile(file)!;
      const names = new Set<string>();
      const visit = (node: ts.Node): void => {
        if (
          ts.isCallExpression(node) &&
          ts.isIdentifier(node.expression) &&
          /^proxy(?:Local)?Activities$/.test(node.expression.text) &&
          node.typeArguments?.length
        ) {
          for (const property of checker.getPropertiesOfType(checker.getTypeFromTypeNode(node.typeArguments[0]))) names.add(property.name);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      if (names.size) offered.set(path.relative(ROOT, file), names);
    }
    // The check sees the workflows it is for.
    expect([...offered.keys()]).toEqual(
      expect.arrayContaining(['workflows/activation.ts', 'workflows/settlement.ts', 'workflows/store-order.ts']),
    );
    const uncalled = [...offered].flatMap(([file, names]) => {
      const code = read(file);
      return [...names]
        .filter((name) => !new RegExp(`\\.${name}\\b|[{,]\\s*${name}\\s*[,}]`).test(code))
        .map((name) => `${file} proxies ${name} but never calls it`);
    });
    expect(uncalled).toEqual([]);
  }, 120_000);
});

/**
 * Writes the workflow bundle (workflows/ with our failure converter and the tracing interceptors, as the worker
 * would bundle it at start)
 * to the file named by the first argument. The image runs it at build time and sets WORKFLOW_BUNDLE_PATH, so
 * a worker starts without bundling (webpack, seconds of CPU at every start and every replica).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleProductionWorkflows } from '../temporal/replay';

async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: node dist/src/cli/bundle-workflows.js <output file>');
  // The options live with the replay code (src/temporal/replay.ts): what is replayed is what the image runs.
  const { code } = await bundleProductionWorkflows();
  await writeFile(path.resolve(target), code);
  console.log(`workflow bundle written to ${target} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

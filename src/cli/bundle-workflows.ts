/**
 * Writes the workflow bundle (workflows/ with our failure converter and the tracing interceptors, as the worker
 * would bundle it at start)
 * to the file named by the first argument. The image runs it at build time and sets WORKFLOW_BUNDLE_PATH, so
 * a worker starts without bundling (webpack, seconds of CPU at every start and every replica).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { BUNDLED_WORKFLOW_INTERCEPTOR_MODULES } from '../telemetry/temporal';
import { FAILURE_CONVERTER_PATH } from '../temporal/codec';

async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: node dist/src/cli/bundle-workflows.js <output file>');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    // Runs carry the request id to their activities, and make spans: the worker sends them out or drops them.
    workflowInterceptorModules: BUNDLED_WORKFLOW_INTERCEPTOR_MODULES,
    // Webpack's report only when something is wrong.
    logger: new DefaultLogger('WARN'),
  });
  await writeFile(path.resolve(target), code);
  console.log(`workflow bundle written to ${target} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

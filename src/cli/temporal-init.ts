/**
 * `temporal-init`: registers every custom search attribute the code uses (src/temporal/search-attributes.ts)
 * on TEMPORAL_NAMESPACE, then exits. Without them every workflow start that sets one fails. Run once per
 * namespace: compose's one-shot `temporal-init` service and scripts/stack.sh run it; rerunning changes
 * nothing. It waits for Temporal to answer (TEMPORAL_CONNECT_TIMEOUT_MS), since the server may still be
 * starting. Temporal Cloud does not take this call from an API key or namespace certificate: there, create
 * them once with `tcld namespace search-attributes add` or in the Cloud UI (docs/configuration.md).
 */
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../http/logger';
import { connectTemporal } from '../temporal/connection';
import { registerSearchAttributes } from '../temporal/search-attributes';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL).child({ name: 'temporal-init' });
  const temporal = connectTemporal(config);
  const deadline = Date.now() + config.TEMPORAL_CONNECT_TIMEOUT_MS;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const added = await registerSearchAttributes(temporal.connection.operatorService, config.TEMPORAL_NAMESPACE);
        logger.info({ namespace: config.TEMPORAL_NAMESPACE, added }, 'search attributes registered');
        return;
      } catch (err) {
        if (err instanceof Error && err.message.startsWith('search attribute ')) throw err;
        if (Date.now() > deadline) throw new Error(`Temporal at ${config.TEMPORAL_ADDRESS} did not answer in time`, { cause: err });
        if (attempt % 10 === 1) logger.warn({ err, address: config.TEMPORAL_ADDRESS }, 'Temporal not reachable yet, retrying');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  } finally {
    await temporal.connection.close().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    else createLogger('info').fatal({ err }, 'temporal-init failed');
    process.exit(1);
  },
);

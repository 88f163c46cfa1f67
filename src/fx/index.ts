import type { Logger } from 'pino';
import type { Config } from '../config';
import { createHttpFxSource } from './http';
import { createMockFxSource } from './mock';
import type { FxSource } from './source';

// The FX area's face (issue 35, "one public face per area"): the source factory below, and for the
// store the rate snapshots it shows and its development stand-ins seed (src/store/stand-ins.ts). Its
// repository stays its own (and its fetch activity's, activities/fx.ts).
export type { FxRate } from './repository';
export { appendSnapshots, latestRates } from './repository';

export type FxSourceConfig = Pick<Config, 'FX_SOURCE' | 'FX_HTTP_URL' | 'FX_HTTP_TOKEN' | 'FX_HTTP_TIMEOUT_MS' | 'FX_HTTP_RETRIES'>;

/** The FX source by FX_SOURCE: the mock's fixed rates (default) or the JSON feed at FX_HTTP_URL. Missing settings go to `issues`. */
export function createFxSource(config: FxSourceConfig, logger: Logger, issues: Array<[string, string]>): FxSource {
  if (config.FX_SOURCE === 'http') {
    if (!config.FX_HTTP_URL) issues.push(['FX_HTTP_URL', 'must be set when FX_SOURCE=http']);
    else {
      return createHttpFxSource({
        url: config.FX_HTTP_URL,
        token: config.FX_HTTP_TOKEN,
        timeoutMs: config.FX_HTTP_TIMEOUT_MS,
        retries: config.FX_HTTP_RETRIES,
        logger: logger.child({ component: 'fx-source' }),
      });
    }
  }
  return createMockFxSource();
}

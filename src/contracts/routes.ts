import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import { keptAnswer, type KeptDeps } from '../http/kept';
import * as s from './schemas';
import type { ContractReads } from './service';

export interface ContractRouteDeps extends KeptDeps {
  reads: ContractReads;
}

/** The portal's contract: GET /b2b/contract. */
export function contractPortalRoutes(api: Api, deps: ContractRouteDeps): void {
  const tag = 'Portal: contract and readiness';
  const { reads } = deps;

  api.define(
    {
      method: 'get',
      path: '/b2b/contract',
      tag,
      guard: guard.company('read'),
      summary: 'The company’s active contract',
      description:
        'Null when the company has no active contract. Seats count as consumed by a link that is `used`, or still active ' +
        'and not past its expiry.',
      response: json(s.MaybeContractResponse),
      errors: [],
    },
    ({ company }) =>
      keptAnswer(
        deps.cache,
        `contract:${company.companyId}`,
        async () => ({ data: await reads.activeContract(company.companyId) }),
        () => [`company:${company.companyId}`, 'users'],
      ),
  );
}

import { guard } from '../http/guards';
import { json, type Api } from '../http/route';
import * as s from './schemas';
import type { OperatorList } from './service';

export interface OperatorRouteDeps {
  operators: OperatorList;
}

/** The public operator list: GET /operators. */
export function operatorRoutes(api: Api, deps: OperatorRouteDeps): void {
  api.define(
    {
      method: 'get',
      path: '/operators',
      tag: 'Operators',
      guard: guard.public,
      summary: 'Telecom operators',
      description: 'Telecom operators only (eSIM store providers are not listed), ordered by nameEn.',
      response: json(s.OperatorListResponse),
      errors: [],
    },
    () => deps.operators.list(),
  );
}

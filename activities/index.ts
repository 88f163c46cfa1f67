// Activities are built from their dependencies so tests can hand in fakes and the worker
// hands in the real ones (ORM, providers). One file per area; this factory assembles them.

/**
 * Everything activities need from the outside world. Placeholder: each area adds its own
 * fields (e.g. the MikroORM instance, provider clients, a clock) as it lands.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- fields are added per area
export interface ActivityDeps {}

export function createActivities(_deps: ActivityDeps) {
  return {};
}

/** The activity functions registered with the worker; workflows import this type only. */
export type Activities = ReturnType<typeof createActivities>;

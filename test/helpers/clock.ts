/** A clock tests move by hand, so expiry is tested without sleeping. */
export interface TestClock {
  (): Date;
  advance(ms: number): void;
  set(date: Date): void;
}

export function createTestClock(start = new Date()): TestClock {
  let now = start.getTime();
  const clock = (() => new Date(now)) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (date) => {
    now = date.getTime();
  };
  return clock;
}

/** Runs `body` with the clock set to `when`, then puts it back. */
export async function atTime<T>(clock: TestClock, when: Date, body: () => Promise<T>): Promise<T> {
  const before = clock();
  clock.set(when);
  try {
    return await body();
  } finally {
    clock.set(before);
  }
}

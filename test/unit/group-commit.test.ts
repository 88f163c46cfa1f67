import { groupCommit } from '../../src/webhooks/group-commit';

/** A runner whose batches finish when the test says so, recording each batch it was given. */
function controlledRunner() {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<number[]>((resolve) => finish.push(() => resolve(items.map((i) => i * 10))));
  };
  return { batches, finish, run };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('groupCommit', () => {
  it('runs a lone call at once, alone', async () => {
    const r = controlledRunner();
    const call = groupCommit(r.run, { maxBatch: 10, maxInFlight: 1 });
    const answer = call(1);
    expect(r.batches).toEqual([[1]]);
    r.finish[0]();
    await expect(answer).resolves.toBe(10);
  });

  it('sends the calls that arrived while a batch was in flight as the next batch, each answered with its own result', async () => {
    const r = controlledRunner();
    const call = groupCommit(r.run, { maxBatch: 10, maxInFlight: 1 });
    const answers = [1, 2, 3, 4].map((i) => call(i));
    expect(r.batches).toEqual([[1]]);
    r.finish[0]();
    await flush();
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
    r.finish[1]();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30, 40]);
  });

  it('caps a batch at maxBatch and keeps up to maxInFlight batches running', async () => {
    const r = controlledRunner();
    const call = groupCommit(r.run, { maxBatch: 2, maxInFlight: 2 });
    const answers = [1, 2, 3, 4, 5, 6, 7].map((i) => call(i));
    expect(r.batches).toEqual([[1], [2]]);
    r.finish[0]();
    await flush();
    expect(r.batches).toEqual([[1], [2], [3, 4]]);
    r.finish[1]();
    r.finish[2]();
    await flush();
    expect(r.batches).toEqual([[1], [2], [3, 4], [5, 6], [7]]);
    r.finish[3]();
    r.finish[4]();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it('fails every call of a failed batch, and the next batch still runs', async () => {
    let calls = 0;
    const call = groupCommit((items: number[]) => (++calls === 1 ? Promise.reject(new Error('connection lost')) : Promise.resolve(items)), {
      maxBatch: 10,
      maxInFlight: 1,
    });
    const first = call(1);
    const second = call(2);
    await expect(first).rejects.toThrow('connection lost');
    await expect(second).resolves.toBe(2);
  });

  it('fails the batch when the runner answers a different number of results', async () => {
    const call = groupCommit((items: number[]) => Promise.resolve(items.slice(1)), { maxBatch: 10, maxInFlight: 1 });
    await expect(call(1)).rejects.toThrow(/1 items, 0 results/);
  });
});

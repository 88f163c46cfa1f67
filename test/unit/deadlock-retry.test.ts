import { retryDeadlocks } from '../../src/db/deadlock';

// A deadlock's victim runs again, after a pause: CI once saw the batch of the card processor's route run again
// at once, take its lock back before the survivor did and deadlock twice more, answering 500 (issue 35's stop).
const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('retryDeadlocks', () => {
  it('runs work PostgreSQL aborted as a deadlock again, waiting longer each time, and tells each run again', async () => {
    const starts: number[] = [];
    const told: number[] = [];
    const result = await retryDeadlocks(
      () => {
        starts.push(performance.now());
        return starts.length < 4 ? Promise.reject(deadlock()) : Promise.resolve('kept');
      },
      { onDeadlock: (attempt) => told.push(attempt) },
    );
    expect(result).toBe('kept');
    expect(told).toEqual([1, 2, 3]);
    const pauses = starts.slice(1).map((t, i) => t - starts[i]);
    // 20, 40, 80 ms (timers may fire a millisecond early).
    expect(pauses.map((p) => p >= 19)).toEqual([true, true, true]);
    expect(pauses[2]).toBeGreaterThanOrEqual(79);
  });

  it('throws any other error at once, and the last deadlock after five runs', async () => {
    let runs = 0;
    const other = Object.assign(new Error('unique violation'), { code: '23505' });
    await expect(retryDeadlocks(async () => (runs++, Promise.reject(other)), { onDeadlock: () => {} })).rejects.toBe(other);
    expect(runs).toBe(1);

    runs = 0;
    const told: number[] = [];
    await expect(
      retryDeadlocks(async () => (runs++, Promise.reject(deadlock())), { onDeadlock: (a) => told.push(a) }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect([runs, told]).toEqual([5, [1, 2, 3, 4]]);
  });
});

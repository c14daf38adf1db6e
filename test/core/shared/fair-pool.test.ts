import { RateLimited } from '../../../core/shared/errors';
import { createFairPool } from '../../../core/shared/fair-pool';

/** Tasks the test finishes by hand, recording the order in which the pool started them. */
function tasks() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const task = (name: string) => () => {
    started.push(name);
    return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)));
  };
  const finish = async (name: string) => {
    finishers.get(name)!();
    // Let the pool see the end and start the next task (every pending promise reaction runs first).
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, task, finish };
}

describe('the fair hashing pool', () => {
  it('runs at most `concurrency` tasks at once and at most `perKey` of one key', async () => {
    const pool = createFairPool({ concurrency: 3, perKey: 2 });
    const { started, task, finish } = tasks();
    const all = ['a1', 'a2', 'a3', 'a4'].map((n) => pool.run('A', task(n)));
    expect(started).toEqual(['a1', 'a2']);
    expect(pool.load()).toEqual({ running: 2, waiting: 2 });
    const b = pool.run('B', task('b1'));
    expect(started).toEqual(['a1', 'a2', 'b1']);
    await finish('a1');
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    for (const n of ['a2', 'a3', 'b1', 'a4']) await finish(n);
    await expect(Promise.all([...all, b])).resolves.toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(pool.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('gives a newcomer the next free place, ahead of a flooding key (round-robin, one task of delay)', async () => {
    const pool = createFairPool({ concurrency: 1, perKey: 1 });
    const { started, task, finish } = tasks();
    for (let i = 1; i <= 10; i++) void pool.run('flood', task(`f${i}`));
    await finish('f1');
    void pool.run('user', task('u1'));
    expect(started).toEqual(['f1', 'f2']);
    await finish('f2');
    expect(started).toEqual(['f1', 'f2', 'u1']);
    await finish('u1');
    expect(started.at(-1)).toBe('f3');
  });

  it('with room left by the per-key bound, starts another key at once while one key floods', () => {
    const pool = createFairPool({ concurrency: 2, perKey: 1 });
    const { started, task } = tasks();
    for (let i = 1; i <= 60; i++) void pool.run('flood', task(`f${i}`));
    void pool.run('user', task('u1'));
    expect(started).toEqual(['f1', 'u1']);
  });

  it('serves several waiting keys in turn', async () => {
    const pool = createFairPool({ concurrency: 1, perKey: 1 });
    const { started, task, finish } = tasks();
    void pool.run('A', task('a1'));
    for (const n of ['a2', 'a3']) void pool.run('A', task(n));
    for (const n of ['b1', 'b2']) void pool.run('B', task(n));
    void pool.run('C', task('c1'));
    for (const n of ['a1', 'b1', 'c1', 'a2', 'b2']) await finish(n);
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('refuses a key with too many waiting tasks with 429, and keeps serving it and the others', async () => {
    const pool = createFairPool({ concurrency: 1, perKey: 1, maxWaitingPerKey: 2 });
    const { task, finish } = tasks();
    const kept = ['a1', 'a2', 'a3'].map((n) => pool.run('A', task(n)));
    await expect(pool.run('A', task('a4'))).rejects.toBeInstanceOf(RateLimited);
    const other = pool.run('B', task('b1'));
    for (const n of ['a1', 'b1', 'a2', 'a3']) await finish(n);
    await expect(Promise.all([...kept, other])).resolves.toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('serves every waiting task of a more urgent priority first, whatever the key and the order of arrival', async () => {
    const pool = createFairPool({ concurrency: 1, perKey: 1 });
    const { started, task, finish } = tasks();
    void pool.run('A', task('a1'), 2);
    for (let i = 2; i <= 4; i++) void pool.run('A', task(`a${i}`), 2);
    for (let i = 1; i <= 3; i++) void pool.run('B', task(`b${i}`), 1);
    void pool.run('C', task('c1'), 1);
    void pool.run('D', task('d1'));
    // One key's own tasks are ordered by priority too: D's urgent one comes before its later ones.
    void pool.run('D', task('d2'), 2);
    void pool.run('D', task('d0'));
    for (const n of ['a1', 'd1', 'd0', 'b1', 'c1', 'b2', 'b3', 'a2', 'd2']) await finish(n);
    expect(started).toEqual(['a1', 'd1', 'd0', 'b1', 'c1', 'b2', 'b3', 'a2', 'd2', 'a3']);
  });

  it('with `crowded`, serves a key with several tasks in the pool at that priority at best, so a lone task goes first', async () => {
    const pool = createFairPool({ concurrency: 1, perKey: 1, crowded: 2 });
    const { started, task, finish } = tasks();
    for (const k of ['A', 'B', 'C']) for (let i = 1; i <= 2; i++) void pool.run(k, task(`${k}${i}`));
    void pool.run('D', task('D1'));
    void pool.run('E', task('E1'), 1);
    // A1 runs; B and C are crowded (2), D alone (0), E alone (1); A, down to one task, is not crowded any more (0, served once).
    // B, once B1 is done, is not either: B2 goes before C's crowded pair.
    for (const n of ['A1', 'D1', 'A2', 'E1', 'B1', 'B2', 'C1']) await finish(n);
    expect(started).toEqual(['A1', 'D1', 'A2', 'E1', 'B1', 'B2', 'C1', 'C2']);
  });

  it('passes a task failure to its caller only, thrown or rejected, and goes on', async () => {
    const pool = createFairPool({ concurrency: 1, perKey: 1 });
    await expect(
      pool.run('A', () => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    await expect(pool.run('A', () => Promise.reject(new Error('later')))).rejects.toThrow('later');
    await expect(pool.run('A', async () => 'fine')).resolves.toBe('fine');
    expect(pool.load()).toEqual({ running: 0, waiting: 0 });
  });
});

import { EventEmitter } from 'node:events';
import { poolBroker, workerPools, type PoolMessage } from '../../bin/shared-pools';
import { RateLimited } from '../../core/shared/errors';

/** A worker and the primary joined by an in-memory channel that delivers asynchronously, as IPC does. */
function joined(broker: ReturnType<typeof poolBroker>) {
  const toPrimary = new EventEmitter();
  const toWorker = new EventEmitter();
  let dead = false;
  const worker = Object.assign(toPrimary, {
    send: (m: PoolMessage) => setImmediate(() => toWorker.emit('message', JSON.parse(JSON.stringify(m)))),
    isDead: () => dead,
  });
  broker.serve(worker);
  const pools = workerPools({ send: (m) => setImmediate(() => toPrimary.emit('message', m)), on: (e, l) => toWorker.on(e, l) });
  return { pools, die: () => ((dead = true), toPrimary.emit('exit')) };
}

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};
/** Every turn given back (a release travels over the channel after the task ends). */
const settled = async (broker: ReturnType<typeof poolBroker>) => {
  while (broker.load('hash').running || broker.load('hash').waiting) await new Promise((r) => setTimeout(r, 1));
};
const OPTS = { concurrency: 1, perKey: 1, maxWaitingPerKey: 3 };

describe('fair pools shared by the workers of a machine', () => {
  it("runs one task at a time across workers, and serves another address right after the flood's running turn", async () => {
    const broker = poolBroker();
    const a = joined(broker).pools('hash', { ...OPTS, maxWaitingPerKey: 10 });
    const b = joined(broker).pools('hash', { ...OPTS, maxWaitingPerKey: 10 });
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string) => async () => {
      started.push(name);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
    };
    // A flood from one address spread over both workers; a login from another address once it runs.
    const flood = Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).run('1.1.1.1', task(`f${i}`)));
    while (!started.length) await new Promise((r) => setImmediate(r));
    const login = b.run('2.2.2.2', task('login'));
    await Promise.all([...flood, login]);
    expect(most).toBe(1);
    expect(started.indexOf('login')).toBe(1);
    await settled(broker);
  });

  it("carries each task's priority to the machine's pool: an urgent task from one worker goes before the waiting ones of another", async () => {
    const broker = poolBroker();
    const a = joined(broker).pools('hash', { ...OPTS, maxWaitingPerKey: 10 });
    const b = joined(broker).pools('hash', { ...OPTS, maxWaitingPerKey: 10 });
    const g = gate();
    const started: string[] = [];
    const first = a.run(
      '1.1.1.1',
      async () => {
        started.push('first');
        await g.opened;
      },
      2,
    );
    const suspects = ['2.2.2.2', '3.3.3.3'].map((key) => a.run(key, async () => void started.push(key), 2));
    while (broker.load('hash').waiting < 2) await new Promise((r) => setImmediate(r));
    const clean = b.run('4.4.4.4', async () => void started.push('clean'));
    while (broker.load('hash').waiting < 3) await new Promise((r) => setImmediate(r));
    g.open();
    await Promise.all([first, ...suspects, clean]);
    expect(started).toEqual(['first', 'clean', '2.2.2.2', '3.3.3.3']);
    await settled(broker);
  });

  it('refuses with 429 past the waiting bound of one address, machine-wide', async () => {
    const broker = poolBroker();
    const a = joined(broker).pools('hash', OPTS);
    const b = joined(broker).pools('hash', OPTS);
    const g = gate();
    const first = a.run('1.1.1.1', () => g.opened);
    const waiting = [a.run('1.1.1.1', async () => 1), b.run('1.1.1.1', async () => 2), a.run('1.1.1.1', async () => 3)];
    const refused = b.run('1.1.1.1', async () => 4);
    await expect(refused).rejects.toBeInstanceOf(RateLimited);
    g.open();
    await first;
    expect(await Promise.all(waiting)).toEqual([1, 2, 3]);
  });

  it('gives back the turns of a worker that dies, so the others go on', async () => {
    const broker = poolBroker();
    const dying = joined(broker);
    const b = joined(broker).pools('hash', OPTS);
    const g = gate();
    let started = false;
    void dying.pools('hash', OPTS).run('1.1.1.1', async () => {
      started = true;
      await g.opened; // never opened: the worker dies holding its turn
    });
    while (!started) await new Promise((r) => setImmediate(r));
    const after = b.run('2.2.2.2', async () => 'served');
    dying.die();
    await expect(after).resolves.toBe('served');
    await settled(broker);
  });

  it('gives back at once a turn that comes after its worker died', async () => {
    const broker = poolBroker();
    const live = joined(broker).pools('hash', OPTS);
    const dying = joined(broker);
    const g = gate();
    const holding = live.run('1.1.1.1', () => g.opened);
    void dying.pools('hash', OPTS).run('3.3.3.3', async () => undefined);
    // Its turn asked for (it travels over the channel): waiting behind the one running.
    while (!broker.load('hash').waiting) await new Promise((r) => setImmediate(r));
    dying.die();
    g.open();
    await holding;
    await expect(live.run('2.2.2.2', async () => 'next')).resolves.toBe('next');
    await settled(broker);
  });
});

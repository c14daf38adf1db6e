import { readinessOf } from '../../bin/readiness';
import type { Opened } from '../../bin/deps';
import type { ServiceModule } from '../../services/shared/module';

const service = (name: string, ready?: () => boolean): Opened => ({
  module: { name } as ServiceModule,
  instance: { close: () => undefined, ...(ready ? { ready } : {}) },
});
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('/readyz: what a load balancer is told', () => {
  it('ready when the stores answer and every service is loaded', async () => {
    const check = readinessOf(
      { reachable: async () => ({ postgres: true, redis: true }) },
      [service('token'), service('search', () => true)],
      () => false,
    );
    expect(await check()).toEqual({ ready: true, checks: { postgres: 'up', redis: 'up', search: 'ready' } });
  });

  it('not ready while a store is down, a service loads, or the process is stopping', async () => {
    expect(await readinessOf({ reachable: async () => ({ postgres: false }) }, [], () => false)()).toEqual({
      ready: false,
      checks: { postgres: 'down' },
    });
    expect(await readinessOf({ reachable: async () => ({}) }, [service('search', () => false)], () => false)()).toEqual({
      ready: false,
      checks: { search: 'loading' },
    });
    expect(await readinessOf({ reachable: async () => ({}) }, [], () => true)()).toEqual({ ready: false, checks: { process: 'draining' } });
  });

  it('a store that hangs counts as down after a second, and a failing check as down', async () => {
    const hung = readinessOf({ reachable: () => new Promise(() => undefined) }, [], () => false);
    // Without the bound this would never settle (the test would time out).
    expect(await hung()).toEqual({ ready: false, checks: { stores: 'down' } });
    expect((await readinessOf({ reachable: () => Promise.reject(new Error('x')) }, [], () => false)()).ready).toBe(false);
  });

  it('a flood of probes asks the stores once per half second', async () => {
    let asked = 0;
    const check = readinessOf({ reachable: async () => (asked++, { postgres: true }) }, [], () => false);
    await Promise.all(Array.from({ length: 50 }, () => check()));
    expect(asked).toBe(1);
    await wait(600);
    await check();
    expect(asked).toBe(2);
  });
});

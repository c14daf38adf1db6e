import { BadRequest, RateLimited, Unavailable, UpstreamFailed, UpstreamTimeout } from '../../../../core/shared/errors';
import { ask, callerOf, chatModel, routerOver, stall, streamOf, textOf, vendorStatus } from './fakes';

const retry = { attempts: 1, backoffMs: 0 };

describe('the router', () => {
  it('retries a deployment on a status of retry.on, then fails over, naming each deployment’s upstream model', async () => {
    const m = chatModel('x', ['a', 'b'], { retry });
    const { router, calls, health } = routerOver([m], { 'x@a': async () => Promise.reject(vendorStatus(500)) });
    const r = router.open(m, 'chat', callerOf());
    expect(await textOf(await r.upstream(ask()))).toBe('ok');
    expect(calls).toEqual([
      { target: 'x@a', model: 'up-a' },
      { target: 'x@a', model: 'up-a' },
      { target: 'x@b', model: 'up-b' },
    ]);
    expect(r.served()).toMatchObject({ deployment: 'b', attempts: 3 });
    expect(r.served()!.model.id).toBe('x');
    expect(health.failures.map((f) => [f.ref, f.what])).toEqual([
      ['x@a', '500'],
      ['x@a', '500'],
    ]);
  });

  it('hands a caller’s mistake (400, 413, 422) back at once: no retry, no failover, no failure counted', async () => {
    for (const status of [400, 413, 422]) {
      const m = chatModel('x', ['a', 'b'], { retry });
      const { router, calls, health } = routerOver([m], { 'x@a': async () => Promise.reject(vendorStatus(status)) });
      await expect(router.open(m, 'chat', callerOf()).upstream(ask())).rejects.toBeInstanceOf(BadRequest);
      expect(calls).toHaveLength(1);
      expect(health.failures).toEqual([]);
    }
  });

  it('fails over at once on a vendor’s 401, 403 and 404 (misconfigured), counting a failure', async () => {
    for (const status of [401, 403, 404]) {
      const m = chatModel('x', ['a', 'b'], { retry });
      const { router, calls, health } = routerOver([m], { 'x@a': async () => Promise.reject(vendorStatus(status)) });
      await router.open(m, 'chat', callerOf()).upstream(ask());
      expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@b']);
      expect(health.failures).toEqual([{ ref: 'x@a', what: String(status) }]);
    }
  });

  it('waits a short Retry-After and retries the same deployment', async () => {
    const m = chatModel('x', ['a', 'b'], { retry });
    let n = 0;
    const { router, calls } = routerOver([m], {
      'x@a': async () => (n++ === 0 ? Promise.reject(vendorStatus(429, { 'retry-after-ms': '5' })) : streamOf(['again'])),
    });
    expect(await textOf(await router.open(m, 'chat', callerOf()).upstream(ask()))).toBe('again');
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@a']);
  });

  it('cools a deployment down until a long Retry-After ends (at most an hour) and moves on at once', async () => {
    const m = chatModel('x', ['a', 'b'], { retry });
    const { router, calls, health, now } = routerOver([m], {
      'x@a': async () => Promise.reject(vendorStatus(429, { 'retry-after': '7200' })),
    });
    await router.open(m, 'chat', callerOf()).upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@b']);
    expect(health.failures).toEqual([{ ref: 'x@a', what: '429', until: now() + 3_600_000 }]);
    // The next call skips it.
    await router.open(m, 'chat', callerOf()).upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@b', 'x@b']);
  });

  it('keeps the vendor’s 429 and its Retry-After when every deployment failed', async () => {
    const m = chatModel('x', ['a'], { retry: { attempts: 0 } });
    const { router } = routerOver([m], { 'x@a': async () => Promise.reject(vendorStatus(429, { 'retry-after': '30' })) });
    const err = await router
      .open(m, 'chat', callerOf())
      .upstream(ask())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfterSeconds).toBe(30);
    expect((err as { upstreamStatus: number }).upstreamStatus).toBe(429);
  });

  it('skips deployments cooling down; when all are, answers 503 no_healthy_deployment with the earliest end', async () => {
    const m = chatModel('x', ['a', 'b'], { retry });
    const { router, calls, health, now } = routerOver([m], {});
    health.cool('x@a', now() + 10_000);
    await router.open(m, 'chat', callerOf()).upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@b']);
    health.cool('x@b', now() + 4_500);
    const err = await router
      .open(m, 'chat', callerOf())
      .upstream(ask())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unavailable);
    expect(err).toMatchObject({ code: 'no_healthy_deployment', retryAfterSeconds: 5 });
    expect(calls).toHaveLength(1);
  });

  it('puts a deployment in cooldown after `cooldown.failures` failures, shared by the next calls', async () => {
    const m = chatModel('x', ['a', 'b'], { retry: { attempts: 0 }, cooldown: { failures: 2, seconds: 30 } });
    const { router, calls } = routerOver([m], { 'x@a': async () => Promise.reject(vendorStatus(503)) });
    for (let i = 0; i < 4; i++) await router.open(m, 'chat', callerOf()).upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@b', 'x@a', 'x@b', 'x@b', 'x@b']);
  });

  it('bounds the attempts when everything fails: (deployments + fallback deployments) × (1 + attempts)', async () => {
    const m = chatModel('x', ['a', 'b'], { retry: { attempts: 2, backoffMs: 0 }, fallbacks: ['y'], cooldown: { failures: 1000 } });
    const y = chatModel('y', ['c']);
    const fail = async () => Promise.reject(vendorStatus(502));
    const { router, calls } = routerOver([m, y], { 'x@a': fail, 'x@b': fail, 'y@c': fail });
    const err = await router
      .open(m, 'chat', callerOf())
      .upstream(ask())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamFailed);
    expect(err).toMatchObject({ code: 'upstream_error', upstreamStatus: 502 });
    expect(calls).toHaveLength(3 * 3);
    expect(calls.slice(-1)[0]).toEqual({ target: 'y@c', model: 'up-c' });
  });

  it('retries a failed connection and a timeout of the transport', async () => {
    const m = chatModel('x', ['a'], { retry: { attempts: 2, backoffMs: 0 } });
    let n = 0;
    const { router, calls } = routerOver([m], {
      'x@a': async () => {
        n++;
        if (n === 1) throw new UpstreamFailed('The connection failed (ECONNRESET)', { code: 'upstream_unavailable' });
        if (n === 2) throw new UpstreamTimeout('did not answer in time', { code: 'upstream_timeout' });
        return streamOf(['third']);
      },
    });
    expect(await textOf(await router.open(m, 'chat', callerOf()).upstream(ask()))).toBe('third');
    expect(calls).toHaveLength(3);
  });

  it('aborts an attempt with no first byte within timeout.attemptMs and tries the next deployment', async () => {
    const m = chatModel('x', ['a', 'b'], { retry: { attempts: 0 }, timeout: { attemptMs: 100 } });
    const signals: AbortSignal[] = [];
    const { router, calls, health } = routerOver([m], {
      'x@a': async (_r, signal) => {
        signals.push(signal!);
        return stall(signal);
      },
    });
    expect(await textOf(await router.open(m, 'chat', callerOf()).upstream(ask()))).toBe('ok');
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@b']);
    expect(signals[0].aborted).toBe(true);
    expect(health.failures).toEqual([{ ref: 'x@a', what: 'timeout' }]);
  });

  it('stops at timeout.totalMs with the failure seen', async () => {
    const m = chatModel('x', ['a', 'b'], { retry: { attempts: 0 }, timeout: { totalMs: 150 } });
    const { router } = routerOver([m], { 'x@a': async (_r, s) => stall(s), 'x@b': async (_r, s) => stall(s) });
    await expect(router.open(m, 'chat', callerOf()).upstream(ask())).rejects.toBeInstanceOf(UpstreamTimeout);
  });

  it('ends at once with the caller’s reason when the caller goes away', async () => {
    const m = chatModel('x', ['a', 'b'], { retry });
    const { router, calls } = routerOver([m], { 'x@a': async (_r, s) => stall(s) });
    const left = new AbortController();
    const call = router.open(m, 'chat', callerOf()).upstream(ask(), left.signal);
    left.abort(new Error('left'));
    await expect(call).rejects.toThrow('left');
    expect(calls).toHaveLength(1);
  });

  it('fails a stream over when it breaks before its first piece, never after', async () => {
    const m = chatModel('x', ['a', 'b'], { retry: { attempts: 0 } });
    const before = routerOver([m], { 'x@a': async () => streamOf(['never'], 0) });
    expect(await textOf(await before.router.open(m, 'chat', callerOf()).upstream(ask()))).toBe('ok');
    expect(before.calls.map((c) => c.target)).toEqual(['x@a', 'x@b']);

    const after = routerOver([m], {
      'x@a': async () => streamOf(['half', 'rest'], 1, new UpstreamFailed('midway', { code: 'upstream_failed' })),
    });
    const s = await after.router.open(m, 'chat', callerOf()).upstream(ask());
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const p of s.pieces) seen.push(p);
      })(),
    ).rejects.toThrow('midway');
    expect(seen).toEqual(['half']);
    expect((await s.done).finishReason).toBe('error');
    expect(after.calls.map((c) => c.target)).toEqual(['x@a']);
    // Not failed over, but a failure of the deployment all the same: enough of them cool it down.
    await new Promise((r) => setImmediate(r));
    expect(after.health.failures).toEqual([{ ref: 'x@a', what: 'broken-stream' }]);
  });

  it('does not count a stream the caller left against its deployment', async () => {
    const m = chatModel('x', ['a'], { retry: { attempts: 0 } });
    const { router, health } = routerOver([m], { 'x@a': async () => streamOf(['half', 'rest'], 1) });
    const left = new AbortController();
    const s = await router.open(m, 'chat', callerOf()).upstream(ask(), left.signal);
    left.abort(new Error('left'));
    await textOf(s).catch(() => undefined);
    await s.done.catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    expect(health.failures).toEqual([]);
  });

  it('counts a stream in flight until it ends', async () => {
    const m = chatModel('x', ['a'], { strategy: 'least-busy' });
    const { router, health } = routerOver([m], {});
    const s = await router.open(m, 'chat', callerOf()).upstream(ask());
    expect(health.inFlight({ model: 'x', deployment: 'a' })).toBe(1);
    await textOf(s);
    await s.done;
    await new Promise((r) => setImmediate(r));
    expect(health.inFlight({ model: 'x', deployment: 'a' })).toBe(0);
  });

  it('leaves an unrouted model (one upstream, no policy) to the transport’s retries: one attempt, no cooldown', async () => {
    const plain = chatModel('p', ['default']);
    const m = { ...plain, deployments: undefined };
    const { router, calls, health } = routerOver([m], { 'p@default': async () => Promise.reject(vendorStatus(500)) });
    await expect(router.open(m, 'chat', callerOf()).upstream(ask())).rejects.toMatchObject({ upstreamStatus: 500 });
    expect(calls).toHaveLength(1);
    expect(health.failures).toEqual([]);
  });

  it('skips a deployment at its rpm and uses it again when the window has room', async () => {
    const m = chatModel('x', [{ id: 'a', rpm: 1 }, 'b']);
    const taken: string[] = [];
    let full = false;
    const { router, calls } = routerOver(
      [m],
      {},
      {
        counters: {
          takeRequest: async (id) => {
            taken.push(id);
            return full ? { admitted: false, retryAt: 0 } : { admitted: true };
          },
        },
      },
    );
    await router.open(m, 'chat', callerOf()).upstream(ask());
    full = true;
    await router.open(m, 'chat', callerOf()).upstream(ask());
    expect(taken).toEqual(['deployment:x@a', 'deployment:x@a']);
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'x@b']);
  });
});

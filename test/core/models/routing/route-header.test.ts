import { mergeRouting, parseRouteHeader } from '../../../../core/models/routing/route-header';
import { Routing } from '../../../../core/models/catalog/catalog';
import { BadRequest, Forbidden, NotFound } from '../../../../core/shared/errors';
import { ask, callerOf, chatModel, routerOver, vendorStatus } from './fakes';

const refusal = (header: string) => {
  try {
    parseRouteHeader(header);
  } catch (err) {
    return err as BadRequest;
  }
  throw new Error('accepted');
};

describe('the x-platform-route header', () => {
  it('reads a small JSON policy; absent or blank is none', () => {
    expect(parseRouteHeader(undefined)).toBeUndefined();
    expect(parseRouteHeader('  ')).toBeUndefined();
    expect(parseRouteHeader('{"strategy":"weighted","deployments":["a"],"retry":{"attempts":0},"timeout":{"attemptMs":500}}')).toEqual({
      strategy: 'weighted',
      deployments: ['a'],
      retry: { attempts: 0 },
      timeout: { attemptMs: 500 },
    });
  });

  it('refuses with 400 invalid_route_config naming the field', () => {
    expect(refusal('{"strategy":"fastest"}')).toMatchObject({ code: 'invalid_route_config', message: expect.stringContaining('strategy') });
    expect(refusal('{"retry":{"attempts":9}}').message).toContain('retry.attempts');
    expect(refusal('{"timeout":{"totalMs":5}}').message).toContain('timeout.totalMs');
    expect(refusal('{"cooldown":{}}').message).toMatch(/cooldown|Unrecognized/);
    expect(refusal('not json')).toMatchObject({ code: 'invalid_route_config' });
    expect(refusal('[1]')).toBeInstanceOf(BadRequest);
    expect(refusal(`{${' '.repeat(5000)}}`)).toMatchObject({
      message: expect.stringContaining('4096 bytes'),
    });
  });

  it('merges over the model’s policy field by field', () => {
    const policy = Routing.parse({ fallbacks: ['y'], retry: { attempts: 2 } });
    const merged = mergeRouting(policy, { retry: { backoffMs: 5 }, fallbacks: [] });
    expect(merged.retry).toMatchObject({ attempts: 2, backoffMs: 5 });
    expect(merged.fallbacks).toEqual([]);
    expect(merged.cooldown).toEqual(policy.cooldown);
  });
});

describe('fallback models', () => {
  const x = chatModel('x', ['a'], { retry: { attempts: 0 }, fallbacks: ['secret', 'gone', 'emb', 'y'] });
  const y = chatModel('y', ['c', 'd']);
  const secret = chatModel('secret', ['s']);
  const gone = chatModel('gone', ['g'], undefined, { status: 'Retired 2025-06' });
  const emb = { ...chatModel('emb', ['e']), kind: 'embedding' as const };
  const models = [x, y, secret, gone, emb];
  const fail = async () => Promise.reject(vendorStatus(503));

  it('skips the catalog’s fallbacks the key may not use, retired or of another kind', async () => {
    const { router, calls } = routerOver(models, { 'x@a': fail });
    await router.open(x, 'chat', callerOf(['x', 'y', 'gone', 'emb'])).upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'y@c']);
  });

  it('goes to the one deployment a model@deployment names', async () => {
    const { router, calls } = routerOver(models, { 'x@a': fail });
    const r = router.open(x, 'chat', callerOf(null, { fallbacks: ['y@d'] }));
    await r.upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'y@d']);
    expect(r.served()).toMatchObject({ deployment: 'd', attempts: 2 });
    expect(r.served()!.model.id).toBe('y');
  });

  it('refuses a header naming what the key may not use (403), what does not exist (404) or an unknown deployment (400), before any attempt', () => {
    const { router, calls } = routerOver(models, {});
    const open = (route: object) => () => router.open(x, 'chat', callerOf(['x', 'y'], route));
    expect(open({ fallbacks: ['secret'] })).toThrow(Forbidden);
    expect(open({ fallbacks: ['secret'] })).toThrow(expect.objectContaining({ code: 'model_not_allowed' }));
    expect(open({ fallbacks: ['nope'] })).toThrow(NotFound);
    expect(open({ fallbacks: ['y@zz'] })).toThrow(expect.objectContaining({ code: 'unknown_deployment' }));
    expect(open({ deployments: ['zz'] })).toThrow(expect.objectContaining({ code: 'unknown_deployment' }));
    expect(calls).toEqual([]);
  });
});

describe('content fallbacks', () => {
  const x = chatModel('x', ['a'], { retry: { attempts: 0 }, contentFallback: 'y' });
  const y = chatModel('y', ['c']);

  it('send a vendor’s content refusal to the content fallback', async () => {
    const refused = async () => Promise.reject(vendorStatus(400, {}, '{"error":{"code":"content_filter","message":"filtered"}}'));
    const { router, calls } = routerOver([x, y], { 'x@a': refused });
    const r = router.open(x, 'chat', callerOf());
    await r.upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'y@c']);
    expect(r.served()!.model.id).toBe('y');
  });

  it('send a whole answer that finished content_filter to the content fallback', async () => {
    const filtered = async () => ({
      pieces: (async function* () {})(),
      done: Promise.resolve({ finishReason: 'content_filter' as const, usage: { promptTokens: 1, completionTokens: 0 } }),
    });
    const { router, calls } = routerOver([x, y], { 'x@a': filtered });
    await router.open(x, 'chat', callerOf()).upstream({ ...ask(), stream: false });
    expect(calls.map((c) => c.target)).toEqual(['x@a', 'y@c']);
  });

  it('leave other refusals to the caller', async () => {
    const { router } = routerOver([x, y], { 'x@a': async () => Promise.reject(vendorStatus(400)) });
    await expect(router.open(x, 'chat', callerOf()).upstream(ask())).rejects.toMatchObject({ code: 'upstream_rejected' });
  });
});

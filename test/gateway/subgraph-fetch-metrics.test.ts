import { telemetryGraph, until, type TelemetryGraph } from './telemetry-graph';

/**
 * platform_graphql_subgraph_fetch_duration_seconds{subgraph,outcome}: every fetch of the gateway
 * from a subgraph, in process and remote alike: the query plan's fetches, a subscription's stream
 * on the subgraph that owns its root field (observed once, when it ends) and its per-event entity
 * fetches; `error` when a fetch failed or answered errors.
 */
const FETCHES = 'platform_graphql_subgraph_fetch_duration_seconds_count';
const TICKS = 'subscription Ticks($n: Int!, $hold: Boolean) { ticks(count: $n, hold: $hold) { id label } }';

describe.each([
  ['in process', false],
  ['remote', true],
])('subgraphs %s', (_where, remote) => {
  let g: TelemetryGraph;
  beforeAll(async () => {
    g = await telemetryGraph({ remote });
  });
  afterAll(async () => {
    await g?.stop();
  });

  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${g.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  const fetches = (subgraph: string, outcome: string) => g.value(FETCHES, { subgraph, outcome });

  it('times each fetch of a query plan by subgraph', async () => {
    const [alpha, beta] = [await fetches('alpha', 'ok'), await fetches('beta', 'ok')];
    const r = await post({ query: '{ hello item(id: "4") { label } }' });
    expect(await r.json()).toEqual({ data: { hello: 'hello world', item: { label: 'item 4' } } });
    expect(await fetches('alpha', 'ok')).toBe(alpha + 1);
    expect(await fetches('beta', 'ok')).toBe(beta + 1);
    expect(await g.value('platform_graphql_subgraph_fetch_duration_seconds_sum', { subgraph: 'alpha' })).toBeGreaterThan(0);
  });

  it('a fetch whose answer carries errors is outcome error', async () => {
    const before = await fetches('alpha', 'error');
    const r = await post({ query: '{ fails }' });
    expect(((await r.json()) as any).errors).toHaveLength(1);
    expect(await fetches('alpha', 'error')).toBe(before + 1);
  });

  it('a subscription: its stream on alpha observed when it ends, and beta fetched once per event', async () => {
    const [alpha, beta] = [await fetches('alpha', 'ok'), await fetches('beta', 'ok')];
    const text = await (await post({ query: TICKS, variables: { n: 3 } }, { accept: 'text/event-stream' })).text();
    expect(text.match(/event: next/g)).toHaveLength(3);
    await until(() => fetches('alpha', 'ok'), alpha + 1);
    expect(await fetches('beta', 'ok')).toBe(beta + 3);
  });

  it('a subscription the client leaves: its stream is observed (ok) once the client has gone', async () => {
    const alpha = await fetches('alpha', 'ok');
    const leave = new AbortController();
    const res = await post({ query: TICKS, variables: { n: 1, hold: true } }, { accept: 'text/event-stream' }, leave.signal);
    const reader = res.body!.getReader();
    let got = '';
    while (!got.includes('event: next')) got += new TextDecoder().decode((await reader.read()).value);
    expect(await fetches('alpha', 'ok')).toBe(alpha);
    leave.abort();
    await until(() => fetches('alpha', 'ok'), alpha + 1);
    await until(async () => g.seen.ticksOpen, 0);
  });
});

import { transportFor } from '../../gateway/streaming';

/** How the gateway's /graphql picks a transport from Accept, quality values included (no server needed: a pure function). */
describe('transportFor', () => {
  it.each([
    ['text/event-stream', 'subscription', 'sse'],
    ['text/event-stream, multipart/mixed', 'subscription', 'sse'], // urql: multipart without subscriptionSpec is not Apollo's protocol
    ['multipart/mixed;boundary="graphql";subscriptionSpec=1.0,application/json', 'subscription', 'multipart'], // Apollo Client
    ['text/event-stream;q=0.9, multipart/mixed;subscriptionSpec="1.0"', 'subscription', 'multipart'],
    ['text/event-stream;q=0', 'subscription', 'json'],
    ['application/json, */*', 'subscription', 'json'],
    [undefined, 'subscription', 'json'],
    ['TEXT/Event-Stream ; Q=0.5', 'subscription', 'sse'],
    ['application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed', 'other', 'json'], // urql's query
    ['text/event-stream', 'other', 'sse'],
    ['text/event-stream;q=0.9, application/json', 'other', 'json'],
    ['application/json;q=0.5, text/event-stream', 'other', 'sse'],
    ['*/*', 'other', 'json'],
    ['text/event-stream;q=abc, application/json;q=0.1', 'other', 'json'], // a malformed quality counts as 0
  ] as const)('%s for a %s: %s', (accept, kind, transport) => {
    expect(transportFor(accept, kind)).toBe(transport);
  });
});

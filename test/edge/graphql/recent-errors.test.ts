import pino from 'pino';
import request from 'supertest';
import { BadRequest, UpstreamFailed } from '../../../core/shared/errors';
import { recentErrors } from '../../../core/shared/telemetry/recent-errors';
import { buildSubgraph } from '../../../edge/graphql/subgraph';
import { createGateway } from '../../../gateway/server';
import { composeSupergraph } from '../../../gateway/supergraph';
import { createRestApp } from '../../../rest/shared/app';
import { subgraphRouter } from '../../../subgraphs/shared/server';
import { testClock } from '../../shared/helpers';

/**
 * edge/graphql/recent-errors.ts: the server-side errors of GraphQL operations (INTERNAL_SERVER_ERROR,
 * UPSTREAM_ERROR, SERVICE_UNAVAILABLE) are among the process's recent errors, with what was
 * masked from the client, the operation and field, the subgraph and the request id; the caller's
 * own mistakes are not. The same for a subgraph served alone and for the gateway in front of it.
 */
const log = pino({ level: 'silent' });
const SDL = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: [])
type Query { boom: String upstream: String refused: String fine: String }`;
const demo = () =>
  buildSubgraph(
    'demo',
    SDL,
    {
      Query: {
        boom: () => {
          throw new TypeError("Cannot read properties of undefined (reading 'x')");
        },
        upstream: () => {
          throw new UpstreamFailed('the vendor answered 503');
        },
        refused: () => {
          throw new BadRequest('that will not do');
        },
        fine: () => 'ok',
      },
    },
    log,
  );

const ask = (app: Parameters<typeof request>[0], query: string, id: string) =>
  request(app).post('/graphql').set('content-type', 'application/json').set('x-request-id', id).send({ query });

describe('the recent errors of GraphQL operations', () => {
  it('a subgraph served alone records its internal and upstream errors under its name, with the cause of what it masked', async () => {
    const errors = recentErrors({ clock: testClock() });
    const served = await subgraphRouter(demo(), log, undefined, { recentErrors: errors });
    const app = createRestApp([], { log, extra: [{ path: '/', router: served.router }] });
    try {
      const res = await ask(app, 'query Demo { boom upstream refused fine }', 'gql-1');
      expect(res.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code).sort()).toEqual([
        'BAD_USER_INPUT',
        'INTERNAL_SERVER_ERROR',
        'UPSTREAM_ERROR',
      ]);
      expect(res.body.errors.find((e: { path: string[] }) => e.path[0] === 'boom').message).toBe('Internal server error');
      const list = errors.list();
      expect(list.map((e) => [e.service, e.where, e.code, e.message, e.requestId]).sort()).toEqual([
        ['demo', 'query Demo (boom)', 'INTERNAL_SERVER_ERROR', "TypeError: Cannot read properties of undefined (reading 'x')", 'gql-1'],
        ['demo', 'query Demo (upstream)', 'UPSTREAM_ERROR', 'the vendor answered 503', 'gql-1'],
      ]);
      await ask(app, '{ fine refused nope }', 'gql-2').expect(400);
      await ask(app, '{ fine refused }', 'gql-3');
      expect(errors.list()).toHaveLength(2);
    } finally {
      await served.stop();
    }
  });

  it('the gateway records what its subgraphs in process failed, named by subgraph, with the cause', async () => {
    const errors = recentErrors({ clock: testClock() });
    const gateway = await createGateway({
      supergraphSdl: composeSupergraph([{ name: 'demo', sdl: SDL }]),
      targets: { demo: { schema: demo().schema } },
      log,
      recentErrors: errors,
    });
    const app = createRestApp([], { log, extra: [{ path: '/', router: gateway.router }] });
    try {
      await ask(app, 'query ViaGateway { fine upstream refused }', 'gw-1').expect(200);
      expect(errors.list()).toEqual([
        {
          at: expect.any(Number),
          service: 'demo',
          where: 'query ViaGateway (upstream)',
          code: 'UPSTREAM_ERROR',
          message: 'the vendor answered 503',
          requestId: 'gw-1',
        },
      ]);
      await ask(app, 'mutation { fine }', 'gw-2');
      expect(errors.list()).toHaveLength(1);
      await ask(app, '{ boom }', 'gw-3');
      // In process, the cause travels with the subgraph's answer: what the client never sees, the overview shows.
      expect(errors.list()[0]).toMatchObject({
        service: 'demo',
        where: 'query anonymous (boom)',
        code: 'INTERNAL_SERVER_ERROR',
        message: "TypeError: Cannot read properties of undefined (reading 'x')",
        requestId: 'gw-3',
      });
    } finally {
      await gateway.stop();
    }
  });

  it("the gateway records those of a deferred part too (it runs @defer itself), the caller's mistakes left out", async () => {
    const errors = recentErrors({ clock: testClock() });
    const gateway = await createGateway({
      supergraphSdl: composeSupergraph([{ name: 'demo', sdl: SDL }]),
      targets: { demo: { schema: demo().schema } },
      log,
      recentErrors: errors,
    });
    const app = createRestApp([], { log, extra: [{ path: '/', router: gateway.router }] });
    try {
      const res = await ask(app, 'query Later { fine ... @defer { upstream refused } }', 'gw-d')
        .set('accept', 'multipart/mixed')
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^multipart\/mixed/);
      expect(errors.list()).toEqual([
        expect.objectContaining({ service: 'demo', where: 'query Later (upstream)', code: 'UPSTREAM_ERROR', requestId: 'gw-d' }),
      ]);
    } finally {
      await gateway.stop();
    }
  });
});

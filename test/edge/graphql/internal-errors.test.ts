import { Writable } from 'node:stream';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLError, parse } from 'graphql';
import pino from 'pino';
import request from 'supertest';
import { createRestApp } from '../../../rest/shared/app';
import { buildSubgraph } from '../../../edge/graphql/subgraph';
import { formatGraphQLError } from '../../../edge/graphql/errors';
import { subgraphRouter } from '../../../subgraphs/shared/server';

/** Every INTERNAL_SERVER_ERROR a client sees was logged once, with the error behind it (it was not). */
const capture = () => {
  const lines: { level: number; msg: string; err?: { type?: string; message?: string } }[] = [];
  const log = pino(
    { level: 'error' },
    new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk))), done()) }),
  );
  return { log, lines };
};

const SDL = 'type Query { boom: String fine: String }';

async function serve(schemaOf: (log: pino.Logger) => Parameters<typeof subgraphRouter>[0]) {
  const { log, lines } = capture();
  const served = await subgraphRouter(schemaOf(log), log);
  const app = createRestApp([], { log: pino({ level: 'silent' }), extra: [{ path: '/', router: served.router }] });
  return { app, lines, stop: served.stop };
}

describe('internal errors in GraphQL operations are logged', () => {
  it('an error thrown outside the platform error wrapper is masked for the client and logged with its cause', async () => {
    // A schema whose resolver throws raw: what graphql-js or a library throws during execution looks the same.
    const raw = {
      name: 'raw',
      typeDefs: parse(SDL),
      schema: buildSubgraphSchema({
        typeDefs: parse(SDL),
        resolvers: {
          Query: {
            boom: () => {
              throw new RangeError('Maximum call stack size exceeded');
            },
            fine: () => 'ok',
          },
        },
      }),
    };
    const s = await serve(() => raw);
    try {
      const res = await request(s.app).post('/graphql').send({ query: '{ boom fine }' });
      expect(res.body).toEqual({
        data: { boom: null, fine: 'ok' },
        errors: [
          {
            message: 'Internal server error',
            path: ['boom'],
            locations: [{ line: 1, column: 3 }],
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      });
      expect(s.lines).toHaveLength(1);
      expect(s.lines[0]).toMatchObject({ level: 50, err: { type: 'RangeError', message: 'Maximum call stack size exceeded' } });
    } finally {
      await s.stop();
    }
  });

  it("a resolver's unexpected error is logged once, where it is masked, not again when the answer is formatted", async () => {
    const s = await serve((log) =>
      buildSubgraph(
        'wrapped',
        SDL,
        {
          Query: {
            boom: () => {
              throw new TypeError('undefined is not a function');
            },
          },
        },
        log,
      ),
    );
    try {
      const res = await request(s.app).post('/graphql').send({ query: '{ boom }' });
      expect(res.body.errors).toEqual([
        expect.objectContaining({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }),
      ]);
      expect(s.lines).toHaveLength(1);
      expect(s.lines[0]).toMatchObject({ err: { type: 'TypeError', message: 'undefined is not a function' } });
    } finally {
      await s.stop();
    }
  });

  it('formatGraphQLError logs what it masks and leaves coded errors alone', () => {
    const { log, lines } = capture();
    const thrown = new GraphQLError('secret detail', { originalError: new Error('secret detail') });
    expect(formatGraphQLError({ message: 'secret detail', extensions: { code: 'INTERNAL_SERVER_ERROR' } }, thrown, log)).toEqual({
      message: 'Internal server error',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(
      formatGraphQLError({ message: 'No such realm', extensions: { code: 'NOT_FOUND' } }, new GraphQLError('No such realm'), log).message,
    ).toBe('No such realm');
    expect(lines.map((l) => l.err?.message)).toEqual(['secret detail']);
  });
});

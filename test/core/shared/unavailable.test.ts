import { BadRequest, Unavailable } from '../../../core/shared/errors';
import { asUnavailable } from '../../../core/shared/unavailable';

const coded = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('a store that cannot be reached is a 503, anything else is not', () => {
  it.each([
    ['PostgreSQL shutting down (57P01)', coded('terminating connection due to administrator command', '57P01')],
    ['PostgreSQL starting up (57P03)', coded('the database system is starting up', '57P03')],
    ['a connection exception (08006)', coded('connection failure', '08006')],
    ['too many connections (53300)', coded('sorry, too many clients already', '53300')],
    ['connection refused', coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['pg: connection terminated', coded('Connection terminated unexpectedly')],
    ['pg-pool: no connection in time', coded('timeout exceeded when trying to connect')],
    ['ioredis: connection closed', coded('Connection is closed.')],
    ['ioredis: offline', coded("Stream isn't writeable and enableOfflineQueue options is false")],
  ])('%s', (_what, err) => {
    const u = asUnavailable(err);
    expect(u).toBeInstanceOf(Unavailable);
    expect(u).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 2, code: 'store_unavailable', cause: err });
    // The caller learns the service is down, not the server's address or the driver's words.
    expect(u!.message).not.toMatch(/5432|ECONN|terminat/);
  });

  it.each([
    ['a unique violation', coded('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', coded('syntax error at or near "SELEC"', '42601')],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a platform error', new BadRequest('bad')],
    ['a thrown string', 'boom'],
  ])('%s', (_what, err) => {
    expect(asUnavailable(err)).toBeUndefined();
  });
});

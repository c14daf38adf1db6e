import { freeAttempt, type Attempt } from '../../../core/token/attempt';
import { InvalidRequest, UnsupportedGrantType } from '../../../core/token/errors';
import { GRANT_TYPES, GRANTS, grantFor, LOGIN_GRANTS, type GrantCall, type GrantDeps } from '../../../core/token/grants';
import { withClient } from '../../../core/token/grants/grant';
import type { ClientRecord, RealmRecord } from '../../../core/token/ports';

describe('the grants map', () => {
  it("lists the token endpoint's grant types in discovery's order", () => {
    expect(GRANT_TYPES).toEqual(['client_credentials', 'password', 'refresh_token', 'authorization_code']);
    expect(LOGIN_GRANTS).toEqual(['password', 'refresh_token']);
  });

  it('finds each grant by its grant_type', () => {
    for (const type of GRANT_TYPES) expect(grantFor(type)).toBe(GRANTS[type]);
  });

  it.each(['implicit', 'constructor', '__proto__', 'toString', 'hasOwnProperty', ''])('refuses %j as unsupported_grant_type', (type) => {
    expect(() => grantFor(type)).toThrow(UnsupportedGrantType);
  });

  it('refuses a grant its door does not accept, with the same error', () => {
    const refused = (() => {
      try {
        grantFor('client_credentials', LOGIN_GRANTS);
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(UnsupportedGrantType);
    expect(refused).toMatchObject({ message: "Unsupported grant_type 'client_credentials'", code: 'unsupported_grant_type' });
  });
});

describe("a grant's own parameter rules", () => {
  it('refresh_token needs a non-empty refresh_token', () => {
    expect(() => GRANTS.refresh_token.check({ refresh_token: '' })).toThrow(
      new InvalidRequest('refresh_token is required for grant_type refresh_token'),
    );
    expect(() => GRANTS.refresh_token.check({})).toThrow(InvalidRequest);
    expect(() => GRANTS.refresh_token.check({ refresh_token: 'x' })).not.toThrow();
  });

  it("client_credentials and password have none beyond the schema's", () => {
    expect(() => GRANTS.client_credentials.check({})).not.toThrow();
    expect(() => GRANTS.password.check({})).not.toThrow();
  });
});

describe('the client of a grant', () => {
  const client = { clientId: 'svc-a' } as ClientRecord;
  const steps: string[] = [];
  const deps = {
    auth: {
      throttled: async <T>(_ctx: unknown, step: (attempt: Attempt) => Promise<T>) => {
        steps.push('step');
        return step(freeAttempt);
      },
    },
  } as unknown as GrantDeps;
  const call = (c: GrantCall['client']): GrantCall => ({ req: {}, realm: { id: 'r' } as RealmRecord, client: c, ctx: {} });
  beforeEach(() => steps.splice(0));

  it("one the door authenticated needs no authenticating step of the grant's", async () => {
    await expect(withClient(call({ authenticated: client }), deps, (clientOf) => clientOf('ignored'))).resolves.toBe(client);
    expect(steps).toEqual([]);
  });

  it("one left to the grant is authenticated within one step, with the session's client id when asked", async () => {
    const asked: (string | undefined)[] = [];
    const authenticate = async (attempt: Attempt, sessionClientId?: string) => {
      expect(attempt).toBe(freeAttempt);
      asked.push(sessionClientId);
      return client;
    };
    await expect(withClient(call({ authenticate }), deps, (clientOf) => clientOf('svc-a'))).resolves.toBe(client);
    expect(steps).toEqual(['step']);
    expect(asked).toEqual(['svc-a']);
  });
});

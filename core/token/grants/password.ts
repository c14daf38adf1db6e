import { clientIn, type Grant } from './grant';
import { newSession } from './new-session';

/**
 * RFC 6749 §4.3: a user's name and password, checked under the failure counts (lockout, throttle,
 * the hashing pool: authenticate.ts) in one authenticating step with the client's own check when
 * the door left that to the grant. Missing values are checked as empty ones: the same answer as a
 * wrong password.
 */
export const password: Grant = {
  check: () => undefined,
  async issue({ req, realm, client, ctx }, deps) {
    const { auth } = deps;
    const found = await auth.throttled(ctx, async (attempt) => ({
      client: await clientIn(client, attempt),
      user: await auth.user(attempt, realm, req.username ?? '', req.password ?? ''),
    }));
    return newSession(deps, realm, found.client, found.user, req, ctx);
  },
};

import { withClient, type Grant } from './grant';
import { newSession } from './new-session';

/** RFC 6749 §4.4: a client on its own behalf (a service account); no user, no other parameter. */
export const clientCredentials: Grant = {
  check: () => undefined,
  async issue(call, deps) {
    const client = await withClient(call, deps, (clientOf) => clientOf());
    return newSession(deps, call.realm, client, undefined, call.req, call.ctx);
  },
};

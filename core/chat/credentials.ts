import { authorize, type Caller } from '../shared/auth/caller';
import { bearerCaller, type Credentials } from '../shared/auth/credentials';
import { Forbidden, Unauthenticated } from '../shared/errors';
import { READ_ROLE } from '../search/roles';

/**
 * Who asks the chat proxy: the user (a verified access token for the chat audience) and the LM key
 * the model is called with. The module declares it (services/chat); the edges resolve it.
 */
export interface ChatCaller {
  user: Caller;
  /** The caller's key for the model gateway (REST: `api_key`; GraphQL: the `api-key` header); the gateway refuses a call without one. */
  modelKey?: string;
}

/** What of the spec's body carries the credentials (core/chat/inputs.ts). */
interface CredentialFields {
  request?: { user_cred?: { token?: string | null } | null };
  api_key?: string | null;
}

/**
 * DECISIONS: on REST the body carries the user's token (`request.user_cred.token`, verified as a
 * search bearer token is: RS256, issuer, expiry, key id, audience) and the LM key (`api_key`); on
 * GraphQL they are the request's `Authorization: Bearer` and `api-key`, as for every subgraph.
 */
export const chatCredentials: Credentials<ChatCaller> = {
  kind: 'body-token',
  inBody: true,
  async resolve(presented, tools) {
    const body = presented.body as CredentialFields | undefined;
    if (!body) return { user: await bearerCaller(presented, tools), modelKey: presented.header('api-key') };
    const token = body.request?.user_cred?.token;
    if (!token?.trim())
      throw new Unauthenticated("request.user_cred.token is missing: the user's access token is required", { code: 'missing_token' });
    return { user: await tools.verifier.verify(token, { audience: tools.audience }), modelKey: body.api_key ?? undefined };
  },
};

/**
 * The user may ask: the answer reads the tenant's documents, so the search service's read role is
 * needed, and a question naming a tenant must name the user's own (403), so that nobody asks about
 * another tenant's documents by naming it.
 */
export function askingUser(caller: ChatCaller, tenantId: string | undefined): Caller {
  const user = authorize(caller.user, { roles: [READ_ROLE] });
  if (tenantId !== undefined && user.tenantId !== tenantId) {
    throw new Forbidden("request.user_cred.client.tenant_id is not the token's tenant", { code: 'tenant_mismatch' });
  }
  return user;
}

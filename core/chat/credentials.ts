import type { Caller } from '../shared/auth/caller';
import { authorize } from '../shared/auth/caller';
import type { TokenVerifier } from '../shared/auth/verifier';
import { Forbidden, Unauthenticated } from '../shared/errors';
import type { z } from 'zod';
import type { UserCred } from './inputs';

export const CHAT_AUDIENCE = 'chat';
export const READ_ROLE = 'search:read';

/**
 * DECISIONS: `request.user_cred.token` is verified as a search bearer token is (RS256, issuer,
 * expiry, key id, audience) and its tenant must be `request.user_cred.client.tenant_id` (else 403),
 * so a user cannot ask about another tenant's documents by naming it. The answer reads the user's
 * documents, so the user needs the search service's read role.
 */
export async function userCaller(verifier: TokenVerifier, cred: z.output<typeof UserCred> | null | undefined): Promise<Caller> {
  if (!cred?.token?.trim()) throw new Unauthenticated('request.user_cred.token is missing: the user\'s access token is required', { code: 'missing_token' });
  const caller = authorize(await verifier.verify(cred.token, { audience: CHAT_AUDIENCE }), { roles: [READ_ROLE] });
  if (caller.tenantId !== cred.client.tenant_id) {
    throw new Forbidden("request.user_cred.client.tenant_id is not the token's tenant", { code: 'tenant_mismatch' });
  }
  return caller;
}

import { z } from 'zod';
import type { Caller } from '../../core/shared/auth/caller';
import { bearerCredentials } from '../../core/shared/auth/credentials';
import * as In from '../../core/token/inputs';
import type { TokenService } from '../../core/token/service';
import { PageOf } from '../admin/common';
import { defineFor, type Route } from '../shared/routes';
import { AdminSession, SessionEnded, SessionsEnded } from './admin/schemas';
import { noStore } from './oauth-http';
import { TokenError } from './schemas';

/** A route of a person's own account: its caller is the bearer token's (audience `account`), in a service whose other routes have none. */
const defineAccount = defineFor<Caller>();

export const AccountSession = AdminSession.extend({
  current: z.boolean().describe("Whether the caller's own token came from this session (this browser)"),
});

const tags = ['account'];
const forbidden = { description: "A client's own token (client credentials): it has no person, so no sessions", schema: TokenError };

/**
 * Keycloak's account API for sessions (`/realms/{realm}/account/sessions`), at the token service's
 * prefix: the person behind `Authorization: Bearer` lists and ends their own single sign-on
 * sessions. The answers are the admin API's session views (core/token/account.ts).
 */
export const accountRoutes = (token: TokenService): Route[] => [
  defineAccount({
    method: 'get',
    path: '/account/sessions',
    summary: 'Your open sessions',
    description:
      "The caller's own open single sign-on (browser) sessions, newest first, `current` marking the one the token came from. " +
      'Pages as the admin API lists: `limit`, `cursor` (the previous `next_cursor`).',
    tags,
    auth: {},
    credentials: bearerCredentials,
    input: { query: In.AccountSessionsRequest },
    responses: { 200: { description: 'A page of your sessions', schema: PageOf(AccountSession) }, 403: forbidden },
    handle: async (q, { ctx, res }) => noStore(res, await token.accountSessions(q, ctx)),
  }),
  defineAccount({
    method: 'delete',
    path: '/account/sessions',
    summary: 'Sign out everywhere',
    description: "Ends every session of the caller, this one included: every application's tokens of them stop working at once.",
    tags,
    auth: {},
    credentials: bearerCredentials,
    responses: { 200: { description: 'How many token sessions ended', schema: SessionsEnded }, 403: forbidden },
    handle: (_input, { ctx }) => token.endAccountSessions({}, ctx),
  }),
  defineAccount({
    method: 'delete',
    path: '/account/sessions/:id',
    summary: 'End one of your sessions',
    description:
      "That browser signs in again with a password; every application's tokens of the session stop working. " +
      "Any id that is not one of the caller's open sessions is 404, another person's included.",
    tags,
    auth: {},
    credentials: bearerCredentials,
    input: { path: In.AccountSessionRef },
    responses: {
      200: { description: 'How many token sessions ended with it', schema: SessionEnded },
      403: forbidden,
      404: { description: 'Not one of your open sessions', schema: TokenError },
    },
    handle: (p, { ctx }) => token.endAccountSession(p, ctx),
  }),
];

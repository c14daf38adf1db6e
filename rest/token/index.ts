import type { TokenService } from '../../core/token/service';
import type { ErrorBody } from '../shared/http-errors';
import { define, type RestService } from '../shared/routes';
import { accountRoutes } from './account';
import { browserRoutes } from './browser';
import { discoveryRoutes } from './discovery';
import { tokenDocs, tokenServiceDocs } from './docs';
import { basicCredentials, failures, noStore, revokeRoute } from './oauth-http';
import * as S from './schemas';
import { TOKEN_PREFIX } from './prefix';

export { TOKEN_PREFIX };

/** DECISIONS: `{"detail"}` plus the OAuth `error`/`error_description` fields (RFC 6749 §5.2). */
export const tokenErrorBody: ErrorBody = (err) => {
  if ('issues' in err) return { detail: err.issues };
  return err.code ? { detail: err.message, error: err.code, error_description: err.message } : { detail: err.message };
};

export function tokenRest(token: TokenService, publicUrl: string): RestService {
  return {
    title: 'Token service',
    version: '1.2.3',
    prefix: TOKEN_PREFIX,
    errorBody: tokenErrorBody,
    audience: 'account',
    schemas: { Msg: S.Msg, TokenRequest: S.TokenRequest, UserLoginRequest: S.UserLoginRequest },
    docs: tokenServiceDocs,
    routes: [
      define({
        method: 'get',
        path: '/healthz',
        summary: 'Health',
        tags: ['health'],
        responses: { 200: { description: 'Service is up', schema: S.Msg } },
        handle: (_input, { ctx }) => token.health({}, ctx),
      }),
      define({
        method: 'post',
        path: '/oauth/connect/token',
        summary: 'Token for a client (client credentials; password; refresh)',
        tags: ['token'],
        input: { merged: S.TokenRequest, mergedDefaults: basicCredentials },
        docs: tokenDocs.token,
        responses: { 200: { description: 'Access token generated', schema: S.TokenResponse }, ...failures },
        handle: async (input, { ctx, res }) => noStore(res, await token.issueForClient(input, ctx)),
      }),
      define({
        method: 'post',
        path: '/oauth/connect/user/login',
        summary: 'Token for a user (password; refresh)',
        tags: ['token'],
        input: { merged: S.UserLoginRequest },
        docs: tokenDocs.login,
        responses: { 200: { description: 'Access token generated', schema: S.TokenResponse }, ...failures },
        handle: async (input, { ctx, res }) => noStore(res, await token.loginUser(input, ctx)),
      }),
      define({
        method: 'post',
        path: '/oauth/connect/introspect',
        summary: 'Introspect an access token',
        tags: ['token'],
        description: 'Always 200 for a well-formed request; anything but an active token reads {"active":"false"}.',
        input: { merged: S.IntrospectRequest },
        docs: tokenDocs.realm,
        responses: { 200: { description: 'Introspection result', schema: S.IntrospectionResponse }, 404: failures[404] },
        handle: async (input, { ctx, res }) => noStore(res, await token.introspect(input, ctx)),
      }),
      define({
        method: 'post',
        path: '/realms/:realm/protocol/openid-connect/token/introspect',
        summary: 'Introspect a token (RFC 7662), as a client of the realm',
        tags: ['token'],
        description:
          "The discovery document's introspection_endpoint: the client authenticates (HTTP Basic or client_id and client_secret); " +
          '`active` is a boolean, and anything but an active access token of the realm reads exactly {"active":false}.',
        input: { path: S.RealmRef, merged: S.ClientIntrospectRequest.omit({ realm: true }), mergedDefaults: basicCredentials },
        docs: tokenDocs.realm,
        responses: {
          200: { description: 'Introspection result', schema: S.ClientIntrospectionResponse },
          401: failures[401],
          404: failures[404],
        },
        handle: async (input, { ctx, res }) => noStore(res, await token.introspectForClient(input, ctx)),
      }),
      define({
        method: 'post',
        path: '/oauth/connect/revoke',
        summary: 'Revoke a token (RFC 7009): ends its session',
        tags: ['token'],
        input: { merged: S.RevokeRequest },
        docs: tokenDocs.realm,
        ...revokeRoute(token),
      }),
      define({
        method: 'get',
        path: '/revocations',
        summary: 'The revoked-sessions list, for verifiers apart from the token service',
        tags: ['token'],
        description:
          'Sessions ended before their access tokens expire (logout, revocation, a disabled user or client, a refresh token used twice): ' +
          'a service that verifies access tokens offline and cannot read the token store polls it about every half second, sending back ' +
          '`feed` and `last` (as `after`) to get only what is new. Public: it holds session ids, hashed user and client ids and realm ids, ' +
          'which let nobody act.',
        input: { query: S.RevocationsRequest },
        responses: { 200: { description: 'The list, or what came after `after`', schema: S.RevocationsResponse } },
        handle: async (input, { ctx, res }) => noStore(res, await token.revocations(input, ctx)),
      }),
      ...discoveryRoutes(token),
      ...browserRoutes(token, publicUrl),
      ...accountRoutes(token),
    ],
  };
}

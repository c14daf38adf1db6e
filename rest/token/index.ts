import type { Request, Response } from 'express';
import { discoveryDocument } from '../../core/token/discovery';
import type { TokenService } from '../../core/token/service';
import type { ErrorBody } from '../shared/http-errors';
import { define, type RestService } from '../shared/routes';
import { tokenDocs, tokenServiceDocs } from './docs';
import * as S from './schemas';
import { TOKEN_PREFIX } from './prefix';

export { TOKEN_PREFIX };

/** DECISIONS: `{"detail"}` plus the OAuth `error`/`error_description` fields (RFC 6749 §5.2). */
export const tokenErrorBody: ErrorBody = (err) => {
  if ('issues' in err) return { detail: err.issues };
  return err.code ? { detail: err.message, error: err.code, error_description: err.message } : { detail: err.message };
};

/** RFC 6749 §5.1: token responses must not be cached. */
const noStore = <T>(res: Response, body: T): T => {
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  return body;
};

/** RFC 6749 §2.3.1: client credentials may come as HTTP Basic instead of parameters. */
function basicCredentials(req: Request): Record<string, unknown> {
  const [scheme, value] = (req.get('authorization') ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value) return {};
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return {};
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { client_id: unescape(decoded.slice(0, colon)), client_secret: unescape(decoded.slice(colon + 1)) };
}

const failures = {
  400: { description: 'Bad Request (unsupported grant, disallowed scope, bad refresh token, malformed body)', schema: S.TokenError },
  401: { description: 'Authentication failed', schema: S.TokenError },
  404: { description: 'Realm not found', schema: S.TokenError },
  413: { description: 'Request body too large', schema: S.TokenError },
};

export function tokenRest(token: TokenService, publicUrl: string): RestService {
  const userinfo = (method: 'get' | 'post') => define({
    method, path: '/realms/:realm/protocol/openid-connect/userinfo', summary: 'OpenID Connect userinfo (Bearer access token)', tags: ['discovery'],
    input: { path: S.RealmRef, header: S.UserinfoRequest.pick({ authorization: true }) }, docs: tokenDocs.userinfo,
    responses: { 200: { description: 'Claims about the token subject', schema: S.UserInfoResponse }, 401: failures[401], 404: failures[404] },
    handle: (input, { ctx }) => token.userinfo(input, ctx),
  });
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
        method: 'get', path: '/healthz', summary: 'Health', tags: ['health'],
        responses: { 200: { description: 'Service is up', schema: S.Msg } },
        handle: (_input, { ctx }) => token.health({}, ctx),
      }),
      define({
        method: 'post', path: '/oauth/connect/token', summary: 'Token for a client (client credentials; password; refresh)', tags: ['token'],
        input: { merged: S.TokenRequest, mergedDefaults: basicCredentials }, docs: tokenDocs.token,
        responses: { 200: { description: 'Access token generated', schema: S.TokenResponse }, ...failures },
        handle: async (input, { ctx, res }) => noStore(res, await token.issueForClient(input, ctx)),
      }),
      define({
        method: 'post', path: '/oauth/connect/user/login', summary: 'Token for a user (password; refresh)', tags: ['token'],
        input: { merged: S.UserLoginRequest }, docs: tokenDocs.login,
        responses: { 200: { description: 'Access token generated', schema: S.TokenResponse }, ...failures },
        handle: async (input, { ctx, res }) => noStore(res, await token.loginUser(input, ctx)),
      }),
      define({
        method: 'post', path: '/oauth/connect/introspect', summary: 'Introspect an access token', tags: ['token'],
        description: 'Always 200 for a well-formed request; anything but an active token reads {"active":"false"}.',
        input: { merged: S.IntrospectRequest }, docs: tokenDocs.realm,
        responses: { 200: { description: 'Introspection result', schema: S.IntrospectionResponse }, 404: failures[404] },
        handle: async (input, { ctx, res }) => noStore(res, await token.introspect(input, ctx)),
      }),
      define({
        method: 'post', path: '/oauth/connect/revoke', summary: 'Revoke a token (RFC 7009): ends its session', tags: ['token'],
        input: { merged: S.RevokeRequest }, docs: tokenDocs.realm,
        responses: { 200: { description: 'Revoked, or nothing to revoke', schema: S.Msg }, 404: failures[404] },
        handle: async (input, { ctx }) => {
          await token.revoke(input, ctx);
          return { msg: 'ok' };
        },
      }),
      define({
        method: 'get', path: '/realms/:realm', summary: 'Public facts of a realm (`default`: the default realm)', tags: ['discovery'],
        input: { path: S.RealmRef }, docs: tokenDocs.realm,
        responses: { 200: { description: 'The realm', schema: S.RealmResponse }, 404: failures[404] },
        handle: async (input, { ctx }) => {
          const r = await token.realm(input, ctx);
          return {
            realm: r.id, name: r.name, enabled: r.enabled, issuer: r.issuer, jwks_uri: r.jwksUri,
            access_token_lifespan: r.accessTokenLifespan, refresh_token_lifespan: r.refreshTokenLifespan,
          };
        },
      }),
      define({
        method: 'get', path: '/realms/:realm/protocol/openid-connect/certs', summary: 'JWKS of a realm', tags: ['discovery'],
        input: { path: S.RealmRef }, docs: tokenDocs.realm,
        responses: { 200: { description: 'The realm public keys' }, 404: failures[404] },
        handle: (input, { ctx }) => token.jwks(input, ctx),
      }),
      define({
        method: 'get', path: '/realms/:realm/.well-known/openid-configuration', summary: 'OpenID discovery of a realm', tags: ['discovery'],
        input: { path: S.RealmRef }, docs: tokenDocs.realm,
        responses: { 200: { description: 'Discovery document' }, 404: failures[404] },
        handle: async (input, { ctx }) => discoveryDocument(await token.realm(input, ctx), publicUrl),
      }),
      userinfo('get'),
      userinfo('post'),
    ],
  };
}

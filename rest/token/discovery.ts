import { discoveryDocument, discoveryMoved, WELL_KNOWN, type WellKnown } from '../../core/token/discovery';
import type { TokenService } from '../../core/token/service';
import { define, type Route } from '../shared/routes';
import { tokenDocs } from './docs';
import { failures } from './oauth-http';
import * as S from './schemas';

const TITLES: Record<WellKnown, string> = {
  'openid-configuration': 'OpenID Connect discovery of a realm',
  'oauth-authorization-server': 'OAuth 2.0 authorization server metadata of a realm (RFC 8414)',
};

/** What a realm tells the public under its issuer: its facts, keys, discovery documents and userinfo. */
export function discoveryRoutes(token: TokenService): Route[] {
  const userinfo = (method: 'get' | 'post') =>
    define({
      method,
      path: '/realms/:realm/protocol/openid-connect/userinfo',
      summary: 'OpenID Connect userinfo (Bearer access token)',
      tags: ['discovery'],
      input: { path: S.RealmRef, header: S.UserinfoRequest.pick({ authorization: true }) },
      docs: tokenDocs.userinfo,
      responses: {
        200: { description: 'Claims about the token subject', schema: S.UserInfoResponse },
        401: failures[401],
        404: failures[404],
      },
      handle: (input, { ctx }) => token.userinfo(input, ctx),
    });
  const wellKnown = (doc: WellKnown) =>
    define({
      method: 'get',
      path: `/realms/:realm/.well-known/${doc}`,
      summary: TITLES[doc],
      tags: ['discovery'],
      description:
        'Served under the issuer, which names the realm by id; asked under another name (`default`), it answers 307 to that URL.',
      input: { path: S.RealmRef },
      docs: tokenDocs.realm,
      responses: {
        200: { description: 'Discovery document' },
        307: {
          description: "The realm was named by an alias: the Location (and the body) name the issuer's own document",
          schema: S.DiscoveryMoved,
        },
        404: failures[404],
      },
      handle: async (input, { ctx, res }) => {
        const realm = await token.realm(input, ctx);
        const moved = discoveryMoved(input.realm, realm, doc);
        if (!moved) return discoveryDocument(realm);
        res.status(307).location(moved.location).set('Cache-Control', 'no-store').json(moved.body);
        return undefined;
      },
    });
  return [
    define({
      method: 'get',
      path: '/realms/:realm',
      summary: "Public facts of a realm (by id, name, or `default`), with Keycloak's public_key and token-service",
      tags: ['discovery'],
      input: { path: S.RealmRef },
      docs: tokenDocs.realm,
      responses: { 200: { description: 'The realm', schema: S.RealmResponse }, 404: failures[404] },
      handle: async (input, { ctx }) => {
        const r = await token.realm(input, ctx);
        return {
          realm: r.id,
          name: r.name,
          enabled: r.enabled,
          issuer: r.issuer,
          jwks_uri: r.jwksUri,
          access_token_lifespan: r.accessTokenLifespan,
          refresh_token_lifespan: r.refreshTokenLifespan,
          audiences: r.audiences,
          // Keycloak's fields (python-keycloak's public_key(), adapters' token-service URL).
          public_key: r.publicKey,
          'token-service': `${r.issuer}/protocol/openid-connect`,
          'account-service': `${r.issuer}/account`,
          'tokens-not-before': 0,
        };
      },
    }),
    define({
      method: 'get',
      path: '/realms/:realm/protocol/openid-connect/certs',
      summary: 'JWKS of a realm',
      tags: ['discovery'],
      input: { path: S.RealmRef },
      docs: tokenDocs.realm,
      responses: { 200: { description: 'The realm public keys' }, 404: failures[404] },
      handle: (input, { ctx }) => token.jwks(input, ctx),
    }),
    ...WELL_KNOWN.map(wellKnown),
    userinfo('get'),
    userinfo('post'),
  ];
}

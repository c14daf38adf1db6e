import { verifierMatches } from '../browser/pkce';
import { secretValueHash } from '../browser/secrets';
import { InvalidGrant, InvalidRequest } from '../errors';
import { clientIn, type Grant } from './grant';
import { newSession } from './new-session';

/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636): a code the authorization endpoint gave after a person signed
 * in (browser/authorization.ts). It works once, within its minute, for the client and redirect URI it
 * was given to, with the verifier of its challenge; a second exchange ends the session the first
 * started (RFC 6749 §4.1.2). Every refusal is `invalid_grant` and says no more than which rule.
 */
export const authorizationCode: Grant = {
  check(req) {
    if (!req.code) throw new InvalidRequest('code is required for grant_type authorization_code');
    if (!req.redirect_uri) throw new InvalidRequest('redirect_uri is required for grant_type authorization_code');
  },
  async issue({ req, realm, client, ctx }, deps) {
    const { store, clock } = deps;
    const hash = secretValueHash(req.code ?? '');
    const found = await deps.auth.throttled(ctx, async (attempt) => {
      const c = await clientIn(client, attempt);
      const code = await store.codes.consume(hash, clock.now());
      return { client: c, code };
    });
    const code = found.code;
    if (!code || code.realmId !== realm.id) throw new InvalidGrant('Invalid authorization code');
    if (code.usedAt !== null) {
      if (code.sessionId) await deps.endSession(realm, code.sessionId);
      throw new InvalidGrant('Authorization code was already used; the tokens it gave have been revoked');
    }
    if (code.expiresAt <= clock.now()) throw new InvalidGrant('Authorization code expired');
    if (code.clientId !== found.client.clientId) throw new InvalidGrant('Authorization code was issued to another client');
    if (code.redirectUri !== req.redirect_uri) throw new InvalidGrant('redirect_uri differs from the authorization request');
    // RFC 9700 §2.1.1: a verifier without a challenge is refused too (a PKCE downgrade).
    if (code.codeChallenge ? !verifierMatches(code.codeChallenge, req.code_verifier) : req.code_verifier !== undefined)
      throw new InvalidGrant('PKCE verification failed');
    const [user, browser] = await Promise.all([store.users.getById(code.userId), store.browserSessions.get(code.browserSessionId)]);
    if (!user?.enabled || !browser || browser.revokedAt !== null || browser.expiresAt <= clock.now())
      throw new InvalidGrant('The sign-in behind this code has ended');
    return newSession(deps, realm, found.client, user, { ...req, scopes: code.scope }, ctx, {
      browserSessionId: browser.id,
      oidc: { nonce: code.nonce, authTime: code.authTime },
      started: async (sessionId) => {
        if (await store.codes.started(hash, sessionId)) return;
        await deps.endSession(realm, sessionId);
        throw new InvalidGrant('Authorization code was already used; the tokens it gave have been revoked');
      },
    });
  },
};

import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from '../../core/shared/auth/caller';
import { createTokenVerifier, issuerBaseFor } from '../../core/shared/auth/verifier';
import type { Clock } from '../../core/shared/clock';
import type { TokenCore } from '../../core/token';
import type { TokenResponse, TokenService } from '../../core/token/service';
import { PUBLIC_URL } from './helpers';

/** The console's public client, which every realm has, and where it sends codes (a path on PUBLIC_URL). */
const CLIENT_ID = 'platform-console';
const REDIRECT = `${PUBLIC_URL}/console/`;

/**
 * A person signing in through the login page in a browser of their own, in process: the console's
 * authorization request (PKCE S256), the login form posted back, the code exchanged. Each call is a
 * new browser (no cookies), so a new single sign-on session, which the tokens answered come from.
 */
export async function signInBrowser(
  service: TokenService,
  realm: string,
  credentials: { username: string; password: string },
): Promise<TokenResponse> {
  const verifier = randomBytes(32).toString('base64url');
  const page = await service.authorize({
    realm,
    cookies: {},
    params: {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    },
  });
  if (page.kind !== 'login') throw new Error(`expected the login page, got ${page.kind}`);
  const cookies = Object.fromEntries(page.cookies.map((c) => [c.name, c.value]));
  const done = await service.submitLogin({ realm, cookies, origin: PUBLIC_URL, params: { request: page.request, ...credentials } });
  if (done.kind !== 'redirect') throw new Error(`expected a redirect with a code, got ${done.kind}`);
  const code = new URL(done.location).searchParams.get('code') ?? '';
  return service.tokenAtRealm({
    realm,
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: CLIENT_ID,
    code_verifier: verifier,
  });
}

/** The caller of an access token as an edge establishes it (verified with the core's keys and `clock`). */
export function callerOf(core: Pick<TokenCore, 'keySource'>, clock: Clock) {
  const verifier = createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: core.keySource, clock });
  return (accessToken: string): Promise<Caller> => verifier.authenticate(`Bearer ${accessToken}`);
}

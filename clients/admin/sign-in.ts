import { httpClient } from '../shared/http';

/**
 * How the `platform` command signs in to a remote platform (`--url`), the first found:
 * 1. an administrator's access token: `--token`, else PLATFORM_TOKEN;
 * 2. an admin client's credentials: PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET (client
 *    credentials grant, realm PLATFORM_REALM or the default realm);
 * 3. an administrator's password: ADMIN_USERNAME and ADMIN_PASSWORD (realm PLATFORM_REALM, else
 *    REALM, else the default), which is what `eval "$(platform credentials --shell)"` exports.
 * Secrets travel in a form body, never in a URL, and are never printed.
 */
export type AdminSignIn =
  | { kind: 'token'; token: string }
  | { kind: 'client'; realm?: string; clientId: string; clientSecret: string }
  | { kind: 'password'; realm?: string; username: string; password: string };

type Env = Readonly<Record<string, string | undefined>>;

/** The first credentials found in `--token` and the environment; undefined when there are none. */
export function signInFrom(token: string | undefined, env: Env): AdminSignIn | undefined {
  const given = (name: string) => env[name] || undefined;
  const bearer = token || given('PLATFORM_TOKEN');
  if (bearer) return { kind: 'token', token: bearer };
  const clientId = given('PLATFORM_CLIENT_ID');
  const clientSecret = given('PLATFORM_CLIENT_SECRET');
  if (clientId && clientSecret) return { kind: 'client', realm: given('PLATFORM_REALM'), clientId, clientSecret };
  const username = given('ADMIN_USERNAME');
  const password = given('ADMIN_PASSWORD');
  if (username && password) return { kind: 'password', realm: given('PLATFORM_REALM') ?? given('REALM'), username, password };
  return undefined;
}

const TOKEN_PATH = '/auth/api/v1/oauth/connect';

/** The access token those credentials give at the platform `url` (the token service's errors as the platform's: a 401 for wrong ones). */
export async function bearerFor(url: string, signIn: AdminSignIn): Promise<string> {
  if (signIn.kind === 'token') return signIn.token;
  const { request } = httpClient({ baseUrl: url.replace(/\/+$/, ''), timeoutMs: 30_000, retries: 0 });
  const form =
    signIn.kind === 'client'
      ? { realm: signIn.realm, client_id: signIn.clientId, client_secret: signIn.clientSecret }
      : { realm: signIn.realm, username: signIn.username, password: signIn.password };
  const path = signIn.kind === 'client' ? `${TOKEN_PATH}/token` : `${TOKEN_PATH}/user/login`;
  const answer = await request<{ access_token: string }>('POST', path, { form });
  return answer.access_token;
}

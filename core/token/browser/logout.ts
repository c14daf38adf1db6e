import type { AuditActor } from '../../shared/admin/audit';
import type { Ctx } from '../../shared/context';
import { InvalidGrant, InvalidRequest } from '../errors';
import type { RealmRecord } from '../ports';
import { errorPage, platformPath, redirectTo, type BrowserAnswer, type BrowserRequest, type CookieSet } from './answers';
import { EXPIRED_PAGE, postedHere } from './authorization';
import { registered } from './client-settings';
import type { BrowserDeps } from './deps';
import { readParams } from './params';
import { clearSso, openBrowserSession } from './sso';

const LIMITS = {
  id_token_hint: 8192,
  post_logout_redirect_uri: 2000,
  state: 2000,
  client_id: 256,
  client_secret: 1024,
  refresh_token: 8192,
  confirm: 8192,
};

const refused = (message: string): BrowserAnswer => errorPage(400, 'Sign-out request refused', message);

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), and Keycloak's logout by a client's
 * refresh token (its back channel). Rules:
 * - `post_logout_redirect_uri` must be registered for the client the `id_token_hint` was issued to
 *   (or `client_id` names), else an error page: never an open redirect;
 * - with a valid `id_token_hint` the session it names ends at once, with the browser session it was
 *   started under and every app's tokens of that browser session;
 * - without one, a browser that is signed in is asked to confirm (a form bound to its anti-forgery
 *   cookie), so a link on another site cannot sign anyone out.
 */
export function createLogout(deps: BrowserDeps) {
  const { store } = deps;

  /** Ends a token session, and the browser session it was started under with all of that one's sessions. */
  async function endWithBrowser(realm: RealmRecord, sid: string) {
    const session = await store.sessions.get(sid);
    if (!session || session.realmId !== realm.id) return undefined;
    if (session.browserSessionId) await deps.endBrowserSession(realm, session.browserSessionId);
    else await deps.endSession(realm, sid);
    return session;
  }

  /** Records a logout that ended something: who asked (a person, or a client), from where, which session. */
  const logged = (realm: RealmRecord, ctx: Ctx, actor: AuditActor, session: string, via: string) =>
    deps.events?.logout({ realm: realm.id, actor: { realm: realm.id, ...actor }, address: ctx.clientAddress, session, via });

  /** python-keycloak's `logout(refresh_token)`: the client authenticates as at the token endpoint (a public one needs no secret). */
  async function backChannel(realm: RealmRecord, p: Partial<Record<keyof typeof LIMITS, string>>, ctx: Ctx): Promise<BrowserAnswer> {
    if (!p.client_id) throw new InvalidRequest('client_id is required to log out with a refresh token');
    const client = await deps.auth.throttled(ctx, (attempt) => deps.auth.loginClient(attempt, realm, p.client_id, p.client_secret));
    const claims = await deps.verifyRefresh(realm, p.refresh_token!);
    const session = await store.sessions.get(String(claims.sid));
    if (!session || session.clientId !== client.clientId) throw new InvalidGrant('Refresh token was issued to another client');
    await endWithBrowser(realm, session.id);
    logged(realm, ctx, { kind: 'client', name: client.clientId }, session.id, 'refresh_token');
    return { kind: 'done', cookies: [] };
  }

  return {
    async logout(r: BrowserRequest, ctx: Ctx): Promise<BrowserAnswer> {
      const realm = await deps.resolveRealm(r.realm);
      const read = readParams(r.params, LIMITS);
      if ('error' in read) return refused(`The request is malformed: ${read.error}.`);
      const p = read.values;
      if (p.refresh_token) return backChannel(realm, p, ctx);

      const pageOf = (cookies: CookieSet[]): BrowserAnswer => ({ kind: 'signed-out', realmName: realm.name, cookies });
      const browser = await openBrowserSession(deps, realm, r.cookies);
      const cleared = browser ? [clearSso(realm)] : [];

      if (p.confirm !== undefined) {
        if (!postedHere(r, deps.publicUrl)) return errorPage(403, 'Sign-out refused', 'The sign-out form was posted from another site.');
        const claims = await deps.pages.verify(realm, 'logout', p.confirm, r.cookies);
        if (!claims) return errorPage(400, 'Sign-out page expired', EXPIRED_PAGE);
        if (browser) {
          await deps.endBrowserSession(realm, browser.id);
          logged(realm, ctx, { kind: 'user', id: browser.userId }, browser.id, 'confirmed');
        }
        const uri = typeof claims.u === 'string' ? claims.u : undefined;
        const state = typeof claims.st === 'string' ? claims.st : undefined;
        return uri ? redirectTo(uri, 'query', { state }, cleared) : pageOf(cleared);
      }

      const hint = p.id_token_hint ? await deps.idTokenHint(realm, p.id_token_hint) : undefined;
      if (p.id_token_hint && !hint) return refused('The id_token_hint is not a valid ID token of this realm.');
      const hinted = typeof hint?.aud === 'string' ? hint.aud : undefined;
      if (hinted && p.client_id && p.client_id !== hinted) return refused('client_id differs from the id_token_hint.');
      const clientId = hinted ?? p.client_id;
      if (p.post_logout_redirect_uri) {
        if (!clientId) return refused('post_logout_redirect_uri needs id_token_hint or client_id.');
        const client = await store.clients.get(realm.id, clientId);
        if (!client?.enabled || !registered(client.postLogoutRedirectUris, p.post_logout_redirect_uri, deps.publicUrl))
          return refused('The post_logout_redirect_uri is not registered for this application.');
      }
      const done = (cookies: CookieSet[]) =>
        p.post_logout_redirect_uri ? redirectTo(p.post_logout_redirect_uri, 'query', { state: p.state }, cookies) : pageOf(cookies);

      if (hint) {
        const ended = typeof hint.sid === 'string' ? await endWithBrowser(realm, hint.sid) : undefined;
        // The browser's own session goes too when it is the same person's (it may be a newer one than the hint's).
        const mine = browser && (browser.userId === hint.sub || browser.id === ended?.browserSessionId);
        // (Ended already when it is the hint's own browser session.)
        if (mine && browser.id !== ended?.browserSessionId) await deps.endBrowserSession(realm, browser.id);
        const person = {
          kind: 'user' as const,
          id: typeof hint.sub === 'string' ? hint.sub : undefined,
          name: typeof hint.preferred_username === 'string' ? hint.preferred_username : undefined,
        };
        if (ended) logged(realm, ctx, person, ended.id, 'id_token_hint');
        else if (mine) logged(realm, ctx, person, browser.id, 'id_token_hint');
        return done(mine ? cleared : []);
      }
      if (!browser) return done([]);
      const csrf = deps.pages.csrf(r.cookies);
      const confirm = await deps.pages.sign(realm, 'logout', csrf.value, { u: p.post_logout_redirect_uri, st: p.state });
      return {
        kind: 'logout-confirm',
        realmName: realm.name,
        action: platformPath(deps.publicUrl, `/auth/api/v1/realms/${realm.id}/protocol/openid-connect/logout`),
        confirm,
        cookies: csrf.cookies,
      };
    },
  };
}

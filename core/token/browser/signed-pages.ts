import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Clock } from '../../shared/clock';
import type { RealmRecord } from '../ports';
import { CSRF_COOKIE, type CookieSet } from './answers';

/** How long a login or logout page may be posted back. */
export const PAGE_TTL_SEC = 30 * 60;

const pageKey = (realm: RealmRecord) => createHmac('sha256', Buffer.from(realm.refreshSecret, 'hex')).update('browser-pages').digest();

/**
 * What a page the token service rendered carries to its next step, signed (HS256, a key derived from
 * the realm's secret) so the browser can neither change it nor make one up, and bound to the
 * browser's anti-forgery cookie: a form posted from another site, or with another browser's
 * page, is refused (login CSRF).
 */
export function signedPages(clock: Clock) {
  return {
    /** The browser's anti-forgery value: its cookie's when it has a well-formed one, else a new one to set. */
    csrf(cookies: Record<string, string>): { value: string; cookies: CookieSet[] } {
      const current = cookies[CSRF_COOKIE];
      if (current && /^[A-Za-z0-9_-]{43}$/.test(current)) return { value: current, cookies: [] };
      const value = randomBytes(32).toString('base64url');
      return { value, cookies: [{ name: CSRF_COOKIE, value, maxAgeSec: PAGE_TTL_SEC * 2 }] };
    },

    sign(realm: RealmRecord, purpose: string, csrf: string, claims: Record<string, unknown>): Promise<string> {
      const now = Math.floor(clock.now() / 1000);
      return new SignJWT({ ...claims, pur: purpose, csrf })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(now)
        .setExpirationTime(now + PAGE_TTL_SEC)
        .setAudience(realm.id)
        .sign(pageKey(realm));
    },

    /** The claims of a page posted back, or undefined when forged, expired, of another realm or purpose, or not this browser's. */
    async verify(realm: RealmRecord, purpose: string, token: string | undefined, cookies: Record<string, string>) {
      if (!token) return undefined;
      try {
        const { payload } = await jwtVerify(token, pageKey(realm), {
          algorithms: ['HS256'],
          audience: realm.id,
          currentDate: new Date(clock.now()),
        });
        const csrf = cookies[CSRF_COOKIE] ?? '';
        const bound =
          typeof payload.csrf === 'string' &&
          payload.csrf.length === csrf.length &&
          timingSafeEqual(Buffer.from(payload.csrf), Buffer.from(csrf));
        return payload.pur === purpose && bound ? (payload as JWTPayload & Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export type SignedPages = ReturnType<typeof signedPages>;

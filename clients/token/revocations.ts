import type { RevocationFeed } from '../../core/shared/auth/revocation-feed';
import type { TokenService } from '../../core/token/service';

/**
 * The revoked-sessions feed of a token service running elsewhere (AUTH_ISSUER_URL), for a process
 * that cannot read its store: its public `GET /auth/api/v1/revocations`, polled every `pollMs`
 * (an answer with nothing new is a few dozen bytes).
 */
export function remoteRevocations(token: Pick<TokenService, 'revocations'>, opts: { pollMs?: number } = {}): RevocationFeed {
  return {
    async read(cursor) {
      const page = await token.revocations(cursor ? { feed: cursor.feed, after: cursor.after } : {});
      return {
        cursor: { feed: page.feed, after: page.last },
        full: page.full,
        entries: page.entries.map((e) => ({ realm: e.realm, kind: e.kind, subject: e.subject, upTo: e.up_to, until: e.until })),
      };
    },
    follow(changed) {
      const timer = setInterval(changed, opts.pollMs ?? 500);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

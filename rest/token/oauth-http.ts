import type { Request, Response } from 'express';
import type { Ctx } from '../../core/shared/context';
import type { RevokeRequest, TokenService } from '../../core/token/service';
import * as S from './schemas';

/** RFC 6749 §5.1: token responses must not be cached. */
export const noStore = <T>(res: Response, body: T): T => {
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  return body;
};

/** RFC 6749 §2.3.1: client credentials may come as HTTP Basic instead of parameters. */
export function basicCredentials(req: Request): Record<string, unknown> {
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

export const failures = {
  400: {
    description: 'Bad Request (unsupported grant, disallowed scope or audience, bad refresh token, malformed body)',
    schema: S.TokenError,
  },
  401: { description: 'Authentication failed', schema: S.TokenError },
  404: { description: 'Realm not found', schema: S.TokenError },
  413: { description: 'Request body too large', schema: S.TokenError },
};

/** RFC 7009 §2.2: 200 whether a session ended or there was nothing to end (the answer never says which). */
export const revokeRoute = (token: TokenService) => ({
  responses: {
    200: { description: 'Revoked, or nothing to revoke', schema: S.Msg },
    404: failures[404],
  },
  handle: async (input: RevokeRequest, { ctx }: { ctx: Ctx }) => {
    await token.revoke(input, ctx);
    return { msg: 'ok' };
  },
});

import type { Request, RequestHandler } from 'express';
import type { Caller, TokenVerifier } from '../core/auth/verifier';
import { Unauthenticated } from '../core/errors';

/**
 * `Authorization: Bearer <access token>` for the services that accept the token service's tokens
 * (search, chat). Missing or invalid → 401 with `WWW-Authenticate` (RFC 6750); the verified caller
 * is then available through `callerOf(req)`.
 */
const CALLER = Symbol('caller');

export const bearerAuth = (verifier: TokenVerifier): RequestHandler => async (req, res, next) => {
  const [scheme, token, extra] = (req.get('authorization') ?? '').trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer' || !token || extra !== undefined) {
    res.set('WWW-Authenticate', 'Bearer');
    throw new Unauthenticated('Not authenticated', { code: 'invalid_token' });
  }
  try {
    (req as Request & { [CALLER]?: Caller })[CALLER] = await verifier.verify(token);
  } catch (err) {
    res.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw err;
  }
  next();
};

export function callerOf(req: Request): Caller {
  const caller = (req as Request & { [CALLER]?: Caller })[CALLER];
  if (!caller) throw new Unauthenticated('Not authenticated');
  return caller;
}

import type { Request } from 'express';

/**
 * The caller's address: `req.ip`, which honours X-Forwarded-For only from peers the app's
 * `trust proxy` setting names, with IPv4-mapped IPv6 written as plain IPv4.
 */
export const clientAddressOf = (req: Request): string | undefined =>
  (req.ip ?? req.socket.remoteAddress)?.replace(/^::ffff:/, '') || undefined;

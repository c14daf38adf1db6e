import type { IncomingMessage } from 'node:http';
import type { Express, Request } from 'express';

/**
 * The caller's address: `req.ip`, which honours X-Forwarded-For only from peers the app's
 * `trust proxy` setting names, with IPv4-mapped IPv6 written as plain IPv4.
 */
export const clientAddressOf = (req: Request): string | undefined =>
  (req.ip ?? req.socket.remoteAddress)?.replace(/^::ffff:/, '') || undefined;

/**
 * The address of a request express never routes (a WebSocket upgrade), resolved by `app`'s
 * `trust proxy` setting (TRUST_PROXY) exactly as `req.ip` resolves an HTTP request's: the request
 * is read through a view whose prototype is the app's request, the request itself left untouched.
 */
export const upgradeAddressOf =
  (app: Express) =>
  (req: IncomingMessage): string | undefined =>
    clientAddressOf(
      Object.create(app.request, {
        headers: { value: req.headers },
        socket: { value: req.socket },
        connection: { value: req.socket },
      }) as Request,
    );

import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/**
 * Says whether a middleware answered a request: true when it has (or will have, when its promise
 * settles), false to leave the request to the next one. A route that decides synchronously answers
 * synchronously, so a request it leaves costs no turn through the promise queue.
 */
export type Route = (req: Request, res: Response) => boolean | Promise<boolean>;

/**
 * A route as a middleware: what it leaves goes to the next; what it throws or rejects goes to the
 * error handlers, unless it has begun answering, in which case the failure is logged as `failure`
 * and the response cut (the client sees a broken stream, not a second answer).
 */
export function claimedBy(route: Route, log: Logger, failure: string): RequestHandler {
  return (req, res, next) => {
    const fail = (err: unknown) => {
      if (!res.headersSent) return next(err);
      log.error({ err }, failure);
      res.destroy();
    };
    let outcome: boolean | Promise<boolean>;
    try {
      outcome = route(req, res);
    } catch (err) {
      return fail(err);
    }
    if (outcome === false) return next();
    if (outcome !== true) outcome.then((answered) => answered || next(), fail);
  };
}

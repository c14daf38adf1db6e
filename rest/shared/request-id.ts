import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries `x-request-id`, echoing a well-formed incoming one. */
export const requestId = (): RequestHandler => (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && SAFE.test(incoming) ? incoming : randomUUID();
  (req as typeof req & { id: string }).id = id;
  res.setHeader('x-request-id', id);
  next();
};

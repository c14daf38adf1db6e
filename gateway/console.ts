import express, { Router } from 'express';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MethodNotAllowed } from '../core/shared/errors';

/**
 * The web console (docs/console.md), as `npm run build` bundles it into `dist/console`: its page at
 * `/console/`, never cached, under a strict Content Security Policy (only its own scripts, styles
 * and connections: the graph, over HTTP and WebSocket), and its content-hashed assets, cached for a
 * year. It talks to `/graphql` only, with the person's token from the sign-in flow.
 */
export const CONSOLE_PATH = '/console';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The project's folder (where package.json is), from this file's place in the sources or in dist/. */
function projectRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return from;
    dir = up;
  }
  return dir;
}

/** Where `npm run build` writes the console (its page, assets/, and trusted-documents.json: its operations). */
export const consoleBuildDir = (): string => join(projectRoot(), 'dist', 'console');

export function consoleRouter(opts: { built?: string } = {}): Router {
  const built = opts.built ?? consoleBuildDir();
  // Strict: `/console` (redirected) and `/console/` (the page) are two paths.
  const router = Router({ strict: true });
  const secure: express.RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The page comes back from the login page with a code in its address: never sent on as a referrer.
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  };
  router.get(CONSOLE_PATH, (req, res) => {
    const query = req.originalUrl.slice(req.path.length);
    res.redirect(301, `${CONSOLE_PATH}/${query}`);
  });
  // Read on each request (a few hundred bytes): after a new build the page names the new assets at once.
  router.get(`${CONSOLE_PATH}/`, secure, (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    readFile(join(built, 'index.html'), 'utf8').then(
      (page) => void res.type('html').send(page),
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') return next(err);
        res.status(503).type('text').send('The console is not built: run `npm run build` (npm install does it).');
      },
    );
  });
  router.use(
    `${CONSOLE_PATH}/assets`,
    secure,
    express.static(join(built, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true, redirect: false }),
  );
  router.all([CONSOLE_PATH, `${CONSOLE_PATH}/`], () => {
    throw new MethodNotAllowed(['GET', 'HEAD']);
  });
  return router;
}

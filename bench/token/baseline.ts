/**
 * The baseline for `npm run bench`: a bare express app on PORT answering GET and POST / with
 * {"msg":"ok"}. Run as its own process so it gets the same isolation as the platform.
 */
import express, { type Request, type Response } from 'express';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('baseline: PORT is required\n');
  process.exit(2);
}

const app = express();
const ok = (_req: Request, res: Response) => void res.json({ msg: 'ok' });
app.get('/', ok);
app.post('/', ok);

const server = app.listen(port, '127.0.0.1', (err?: Error) => {
  if (err) {
    process.stderr.write(`baseline: ${err.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`baseline listening on http://127.0.0.1:${port}\n`);
});
server.keepAliveTimeout = 65_000;

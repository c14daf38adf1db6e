import { join } from 'node:path';
import { NGINX, startNginx as startDocumented } from '../../bench/shared/nginx';

export { NGINX };

const ROOT = join(__dirname, '..', '..');

/** Debian's nginx (`apt-get install nginx`; .ci/run installs it); the tests through it are skipped without one. */
export const describeNginx: jest.Describe = NGINX ? describe : describe.skip;

/** nginx in the foreground with the documented configuration (docs/deploy/nginx-platform.conf), in front of `replicas`. */
export const startNginx = (port: number, replicas: readonly number[]) => startDocumented(ROOT, port, replicas);

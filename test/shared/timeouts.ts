import { sep } from 'node:path';

/**
 * Per-test timeouts that hold on a loaded machine (jest.config.js runs this before each test file).
 * On a machine with a load average of 4 and more everything takes several times as long as on a
 * quiet one; a timeout bounds a hang, it is no assertion on speed. jest.config.js gives 30 s; the
 * folders whose tests start whole platforms get more:
 * - test/e2e, 90 s: it starts processes, browsers and platforms and drives them over real sockets;
 * - test/gateway, test/rest, test/clients, test/services, 60 s: their hooks start platforms in this
 *   process (a first start also loads and compiles the services' modules), which took 10 to 15 s at
 *   a load average of 10.
 * A test or hook that needs longer says so itself.
 */
const path = expect.getState().testPath ?? '';
const under = (...dirs: string[]) => dirs.some((d) => path.includes(`${sep}test${sep}${d}${sep}`));
if (under('e2e')) jest.setTimeout(90_000);
else if (under('gateway', 'rest', 'clients', 'services')) jest.setTimeout(60_000);

import { sep } from 'node:path';

/**
 * Per-test timeouts that hold on a loaded machine (jest.config.js runs this before each test file).
 * A test or hook under test/e2e starts processes, browsers or whole platforms and drives them over
 * real sockets: on a machine with a load average of 4 and more that takes several times as long as
 * on a quiet one, so they get 90 s (jest.config.js's 30 s stays for the rest). A timeout bounds a
 * hang; it is no assertion on speed. A test that needs longer says so itself.
 */
const E2E = `${sep}test${sep}e2e${sep}`;
if (expect.getState().testPath?.includes(E2E)) jest.setTimeout(90_000);

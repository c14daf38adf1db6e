import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, named by CHROMIUM_PATH: the browser tests run when it is set (skipped otherwise, as the Redis tests are without REDIS_URL). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH;

/** Headless, offline of Google's services, as root in a container. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** Chromium with the arguments every browser test uses, and `extra` ones (a host resolver rule). */
export const launchChromium = (extra: readonly string[] = []): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extra] });

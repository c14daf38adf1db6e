/**
 * The two builds `npm run bench:builds` compares: where each checkout is, that it is built, which
 * commit it is, and each started as `platform start` over a fresh data dir of its own, with the same
 * environment (the same catalog file, a chat model answered by the bench's one fake upstream, the
 * chat proxy's default model), and a few documents for the chat proxy to ground its answers in.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { useChatModel } from '../chat/setup';
import { createObject, tokens, type Bootstrap, type Tokens } from '../shared/http-client';
import { ROOT, startPlatform, type Platform } from '../shared/platform';
import type { Side } from './figures';

const PLATFORM_JS = join('dist', 'bin', 'platform.js');

export interface Checkout {
  side: Side;
  root: string;
  /** `a280fa5` or `a280fa5 + uncommitted changes`, for the header. */
  commit: string;
}

/** Why BEFORE or AFTER cannot be measured, or undefined when both can. */
export function unusable(before: string | undefined, after: string): string | undefined {
  const how =
    'make it with `git worktree add /tmp/before <commit> && cd /tmp/before && npm install && npm run build` (docs/performance.md, "Two builds side by side")';
  if (!before) return `BEFORE is not set: name the checkout to compare this one with, already built; ${how}`;
  for (const [name, root] of [
    ['BEFORE', before],
    ['AFTER', after],
  ] as const) {
    if (!existsSync(root)) return `${name}=${root} does not exist; ${how}`;
    if (!existsSync(join(root, PLATFORM_JS))) return `${name}=${root} is not built (no ${PLATFORM_JS}): run 'npm run build' there first`;
  }
  return undefined;
}

export function checkout(side: Side, root: string): Checkout {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit = 'not a git checkout';
  try {
    commit = git('rev-parse', '--short', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no')) commit += ' + uncommitted changes';
  } catch {
    // not a git checkout: said as is
  }
  return { side, root: resolve(root), commit };
}

export const checkouts = (before: string, after = ROOT): Checkout[] => [checkout('before', before), checkout('after', after)];

/**
 * What both platforms get: `npm run bench:chat`'s catalog (the default one and its chat model on the
 * fake upstream), that model as the chat proxy's default, WORKERS (1 unless set), and no shared stores or
 * telemetry settings from this shell (each build its own SQLite data dir, traces at their default, off).
 */
export function commonEnvironment(dir: string, upstream: string): void {
  useChatModel(dir, upstream);
  process.env.WORKERS ||= '1';
  for (const name of Object.keys(process.env))
    if (/^OTEL_/.test(name) || name === 'DATABASE_URL' || name === 'REDIS_URL') delete process.env[name];
}

/** A few documents for the chat proxy's retrieval. */
const DOCS = [
  { title: 'Aspirin', content: 'Aspirin reduces fever and relieves mild pain. Its common side effects are stomach upset and heartburn.' },
  { title: 'Glaciers', content: 'Glaciers retreat as the climate warms. Their meltwater raises the sea level.' },
  { title: 'Volcanoes', content: 'A volcano erupts when pressure from magma builds beneath the crust.' },
];

export interface Build extends Checkout {
  p: Platform;
  tok: Tokens;
  tenant: string;
  /** The bootstrap LM key with the cache and guards off: `<key>/{"is_cache": 0, "use_guard": 0}`. */
  apiKey: string;
}

/** `platform start` of `c` on `port` over `<dir>/<side>/data`, its bootstrap read, the documents ingested. */
export async function startBuild(c: Checkout, dir: string, port: number): Promise<Build> {
  const own = join(dir, c.side);
  mkdirSync(own);
  const p = await startPlatform(own, port, c.root);
  const boot = JSON.parse(readFileSync(join(p.dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap & { tenant_id?: string };
  if (!boot.api_key || !boot.tenant_id) throw new Error(`${c.side}: bootstrap.json holds no api_key or tenant_id`);
  const tok = tokens(p.url, boot);
  for (const [i, d] of DOCS.entries()) await createObject(p.url, tok, { ...d, ext_user_id_ref: `d${i + 1}` });
  return { ...c, p, tok, tenant: boot.tenant_id, apiKey: `${boot.api_key}/{"is_cache": 0, "use_guard": 0}` };
}

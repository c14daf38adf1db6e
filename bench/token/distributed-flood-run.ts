/** The measured parts of `npm run bench:auth-flood-distributed`: one wave of the flood, with honest logins beside it. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOGIN = '/auth/api/v1/oauth/connect/user/login';
export const SOURCES = 15;
export const PER_SOURCE = 4;

/** POSTs a login as `from` (X-Forwarded-For; the server trusts loopback); resolves to status and time. */
export async function login(url: string, from: string, form: Record<string, string>) {
  const t0 = performance.now();
  const res = await fetch(url + LOGIN, {
    method: 'POST',
    headers: { 'x-forwarded-for': from, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
}

/** Hands out honest users (each logs in once, so its password is hashed, never remembered) and fresh addresses. */
export function honestCallers(users: string[]) {
  let next = 0;
  return () => {
    const i = next++;
    const username = users[i];
    if (!username) throw new Error(`the bench made ${users.length} honest users; raise HONEST_USERS`);
    return { username, from: `203.0.${113 + Math.floor(i / 250)}.${1 + (i % 250)}` };
  };
}

export interface WaveResult {
  answers: Map<number, number>;
  honestMs: number[];
  ms: number;
}

/**
 * 15 sources x 4 wrong passwords at once (source `sourceOf(s)`, account `target(s, i)`); an honest
 * login from a fresh address 50 ms in, then every 1.5 s while the wave lasts (at most `maxHonest`).
 */
export async function wave(
  url: string,
  realm: string,
  sourceOf: (s: number) => string,
  target: (s: number, i: number) => string,
  tag: string,
  password: string,
  honest: () => { username: string; from: string },
  maxHonest: number,
): Promise<WaveResult> {
  const t0 = performance.now();
  let over = false;
  const guesses = Array.from({ length: SOURCES * PER_SOURCE }, (_, i) =>
    login(url, sourceOf(i % SOURCES), { realm, username: target(i % SOURCES, i), password: `wrong ${tag} ${i}` }),
  );
  const all = Promise.all(guesses).finally(() => (over = true));
  const honestMs: Promise<number>[] = [];
  for (let k = 0; k < maxHonest && (k === 0 || !over); k++) {
    await Promise.race([sleep(k === 0 ? 50 : 1500), all]);
    if (k > 0 && over) break;
    const h = honest();
    honestMs.push(
      login(url, h.from, { realm, username: h.username, password }).then((r) => {
        if (r.status !== 200) throw new Error(`an honest login answered ${r.status}`);
        return r.ms;
      }),
    );
  }
  const answers = new Map<number, number>();
  for (const a of await all) answers.set(a.status, (answers.get(a.status) ?? 0) + 1);
  return { answers, honestMs: await Promise.all(honestMs), ms: performance.now() - t0 };
}

/** scrypt calls the platform's processes made so far (count-scrypt.ts). */
export const scryptCalls = (dir: string) => readdirSync(dir).reduce((n, f) => n + Number(readFileSync(join(dir, f), 'utf8') || 0), 0);

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

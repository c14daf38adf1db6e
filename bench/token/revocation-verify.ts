import { randomUUID } from 'node:crypto';
import { createRevocationList, hashedSubject } from '../../core/shared/auth/revocations';
import { createTokenVerifier, issuerBaseFor, type TokenVerifier } from '../../core/shared/auth/verifier';
import { openTokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';

const PUBLIC_URL = 'http://127.0.0.1:1';

/**
 * The verifier alone, in this process: microseconds per `verify` of one access token without the
 * revoked-sessions list (the code before), with an empty list, and with a loaded one (1,000 revoked
 * sessions and a revoked client of the token's realm: the path that hashes the subject and client).
 * Rounds alternate between the three, each starting with the next; the median round of each is reported.
 */
export async function verifyCost(rounds = 9, perRound = 5000): Promise<string[]> {
  const core = await openTokenCore({ stores: sqliteTokenStores(':memory:'), publicUrl: PUBLIC_URL });
  try {
    const realm = (await core.admin.createRealm({ name: 'bench' })).id;
    const c = await core.admin.createClient({ realm, clientId: 'svc', roles: ['search:read'] });
    const { access_token: token } = await core.service.issueForClient({ realm, client_id: 'svc', client_secret: c.client_secret });
    const base = { issuerBase: issuerBaseFor(PUBLIC_URL), keys: core.keySource };
    const empty = createRevocationList({ clock: { now: Date.now }, toleranceMs: 30_000 });
    const loaded = createRevocationList({ clock: { now: Date.now }, toleranceMs: 30_000 });
    const until = Date.now() + 300_000;
    loaded.apply([
      ...Array.from({ length: 1000 }, () => ({ realm, kind: 'session' as const, subject: randomUUID(), upTo: 0, until })),
      { realm, kind: 'client', subject: hashedSubject('another-client'), upTo: Date.now(), until },
    ]);
    const variants: [string, TokenVerifier][] = [
      ['no list (before)', createTokenVerifier(base)],
      ['empty list', createTokenVerifier({ ...base, revocations: empty })],
      ['1,000 sessions + a client of the realm listed', createTokenVerifier({ ...base, revocations: loaded })],
    ];
    const times = new Map<string, number[]>(variants.map(([n]) => [n, []]));
    for (const [, v] of variants) for (let i = 0; i < 500; i++) await v.verify(token);
    for (let r = 0; r < rounds; r++) {
      // Each round starts with the next variant: none always pays for coming first.
      for (const [name, v] of [...variants.slice(r % variants.length), ...variants.slice(0, r % variants.length)]) {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < perRound; i++) await v.verify(token);
        times.get(name)!.push(Number(process.hrtime.bigint() - t0) / 1000 / perRound);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const before = median(times.get(variants[0][0])!);
    return variants.map(([name]) => {
      const m = median(times.get(name)!);
      return `| ${name} | ${m.toFixed(1)} µs | ${(m / before).toFixed(3)}x |`;
    });
  } finally {
    await core.close();
  }
}

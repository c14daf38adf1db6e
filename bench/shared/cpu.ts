/**
 * CPU used by a server under load, independent of how busy the rest of this shared machine is:
 * user + system time of its process and every descendant (cluster workers, thread pools), read
 * from /proc (Linux); undefined elsewhere.
 */
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface Proc {
  pid: number;
  ppid: number;
  ticks: number;
}

function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // Fields after the command name (which may hold spaces): state ppid ... utime(14) stime(15).
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(pid), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) }];
      } catch {
        return [];
      }
    });
}

/** CPU seconds used so far by `root` and its descendants. */
export function treeCpuSeconds(root: number | undefined): number | undefined {
  if (root === undefined) return undefined;
  try {
    const all = processes();
    const tree = new Set([root]);
    for (let grew = true; grew;) {
      grew = false;
      for (const p of all) {
        if (tree.has(p.ppid) && !tree.has(p.pid)) {
          tree.add(p.pid);
          grew = true;
        }
      }
    }
    return all.filter((p) => tree.has(p.pid)).reduce((sum, p) => sum + p.ticks, 0) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU milliseconds of one RS256 signature (RSA-2048, SHA-256) on this machine: the floor of any RS256 issuer. */
export function rs256SignatureMs(samples = 300): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const data = Buffer.alloc(900, 120);
  for (let i = 0; i < 20; i++) sign('sha256', data, key);
  const start = process.cpuUsage();
  for (let i = 0; i < samples; i++) sign('sha256', data, key);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / samples;
}

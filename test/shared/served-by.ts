import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';

/**
 * Which process of a `platform start` cluster holds the server side of a TCP connection (Linux:
 * /proc): the connection's socket inode from /proc/net/tcp, then the child of the primary whose
 * file descriptors hold that inode. Lets a test send each request through a connection it knows
 * lands on a given worker.
 */
const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

function inodeOf(serverPort: number, clientPort: number): string | undefined {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hexPort(serverPort)}`) && f[2]?.endsWith(`:${hexPort(clientPort)}`)) return f[9];
    }
  }
  return undefined;
}

/** The pids whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

function holderOf(pids: number[], inode: string): number | undefined {
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

/** A keep-alive connection of its own (one socket), and the worker at its other end. */
export interface Lane {
  agent: Agent;
  worker: number;
}

export interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  /** The whole body (for a stream: read it from `res` instead). */
  text(): Promise<string>;
  res: IncomingMessage;
  /** The client's port of the connection that carried it. */
  localPort?: number;
}

/** A request through `agent` (its one socket). */
export function send(url: string, agent: Agent, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) =>
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        res,
        localPort: res.socket?.localPort,
        text: () =>
          new Promise((done, failed) => {
            let out = '';
            res
              .setEncoding('utf8')
              .on('data', (d: string) => (out += d))
              .on('end', () => done(out))
              .on('error', failed);
          }),
      }),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * One lane to each of `count` workers of the cluster whose primary is `primaryPid`: fresh
 * connections are opened (each asking `probeUrl`) until every worker holds one.
 */
export async function lanesToWorkers(probeUrl: string, primaryPid: number, count: number, maxTries = 60): Promise<Lane[]> {
  const workers = childrenOf(primaryPid);
  const lanes = new Map<number, Lane>();
  const serverPort = Number(new URL(probeUrl).port);
  for (let i = 0; i < maxTries && lanes.size < count; i++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const answer = await send(probeUrl, agent, 'GET', {});
    await answer.text();
    const inode = answer.localPort !== undefined ? inodeOf(serverPort, answer.localPort) : undefined;
    const worker = inode && holderOf(workers, inode);
    if (worker && !lanes.has(worker)) lanes.set(worker, { agent, worker });
    else agent.destroy();
  }
  if (lanes.size < count) throw new Error(`reached ${lanes.size} of ${count} workers (workers: ${workers.join(', ')})`);
  return [...lanes.values()];
}

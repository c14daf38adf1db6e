import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodies, loadVaried, searchWords, THREE_VARIED, TOPIC, variedSearches } from '../../../bench/graphql/varied';
import { STOPWORDS } from '../../../core/shared/text/words';

describe("the search words of bench:graphql's varied rows", () => {
  it('are far more than the 50 connections, each once, content words only, the same every time', () => {
    const words = searchWords();
    expect(words.length).toBeGreaterThan(1000);
    expect(new Set(words).size).toBe(words.length);
    expect(words.filter((w) => STOPWORDS.has(w) || !/^\p{L}{4,}$/u.test(w))).toEqual([]);
    expect(searchWords()).toEqual(words);
  });

  it("each search the identical rows' topic and one of them, so every answer holds its hit", () => {
    const words = searchWords();
    expect(words).not.toContain(TOPIC);
    expect(variedSearches()).toEqual(words.map((w) => `aspirin ${w}`));
  });

  it('go in the query as a variable, so the operation stays one document', () => {
    const [a, b] = bodies(THREE_VARIED, ['aspirin', 'glacier']).map((s) => JSON.parse(s) as { query: string; variables: { q: string } });
    expect(a).toEqual({ query: THREE_VARIED, variables: { q: 'aspirin' } });
    expect(b.query).toBe(a.query);
    expect(b.variables.q).toBe('glacier');
  });
});

describe('loadVaried', () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];
  const inFlight = new Map<string, number>();
  let mostAtOnce = 0;
  let mostOfOneBody = 0;

  beforeAll(async () => {
    // Holds every answer until all 20 connections have a request in (or 1.5 s have passed), then
    // answers after a few ms, so the connections' requests overlap as they do at a real gateway
    // however slowly a busy machine opens them (a CI runner once had only 9 in at once unheld).
    const held: Array<() => void> = [];
    let open = false;
    const release = (): void => {
      open = true;
      held.splice(0).forEach((answer) => answer());
    };
    const fallback = setTimeout(release, 1500).unref();
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        seen.push(body);
        inFlight.set(body, (inFlight.get(body) ?? 0) + 1);
        mostOfOneBody = Math.max(mostOfOneBody, inFlight.get(body)!);
        const now = [...inFlight.values()].reduce((a, b) => a + b, 0);
        mostAtOnce = Math.max(mostAtOnce, now);
        const answer = (): void => {
          setTimeout(() => {
            inFlight.set(body, inFlight.get(body)! - 1);
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}');
          }, 5);
        };
        if (open) answer();
        else {
          held.push(answer);
          if (now >= 20) {
            clearTimeout(fallback);
            release();
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the bodies in turn across all connections, never two alike at once, and checks every answer', async () => {
    const all = bodies(THREE_VARIED, searchWords().slice(0, 200));
    const m = await loadVaried(
      {
        name: 'varied',
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        body: all[0],
        bodies: all,
        check: () => true,
        marker: '"ok"',
      },
      2,
      20,
    );
    // However slow the machine (a busy CI runner sent 31 in the second), every connection sent one.
    expect(m.requests).toBeGreaterThanOrEqual(20);
    expect({ badBodies: m.badBodies, non2xx: m.non2xx, errors: m.errors }).toEqual({ badBodies: 0, non2xx: 0, errors: 0 });
    expect(mostAtOnce).toBe(20);
    expect(mostOfOneBody).toBe(1);
    // The first 200 requests (all of them, when fewer were sent) are distinct bodies of the 200,
    // whatever connection sent each; 200 of them are the 200 bodies.
    const first = seen.slice(0, all.length);
    expect(new Set(first).size).toBe(first.length);
    expect(first.filter((b) => !all.includes(b))).toEqual([]);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseUrlOf, serviceProbes } from '../../bin/overview';
import type { ServiceModule } from '../../services/shared/module';

/** bin/overview.ts: how the process serving the graph checks each service, in process or where it runs. */
const svc = (name: string, over: Partial<ServiceModule> = {}) =>
  ({ name, title: `${name} service`, prefix: `/${name}`, open: () => ({ close() {} }), ...over }) as ServiceModule;
const signal = new AbortController().signal;

describe("the overview's service checks", () => {
  it("show a remote service at its process's base URL, without credentials or the graph's path", () => {
    expect(baseUrlOf('http://user:secret@10.0.0.5:8082/graphql?x=1#y')).toBe('http://10.0.0.5:8082');
    expect(baseUrlOf('https://search.internal/platform/graphql/')).toBe('https://search.internal/platform');
  });

  it("in process: the service's own health check, and this process's readiness without the other services' checks", async () => {
    let asked = 0;
    const [token, search] = serviceProbes({
      modules: [svc('token', { health: async () => void asked++ }), svc('search')],
      opened: [],
      targets: { token: { schema: {} as never }, search: { schema: {} as never } },
      readiness: async () => ({ ready: false, checks: { postgres: 'up', search: 'loading', revocations: 'loading' } }),
    });
    expect(token.url).toBeUndefined();
    await token.health(signal);
    expect(asked).toBe(0); // no instance opened here to ask: being open is being healthy
    expect(await token.readiness(signal)).toEqual({ ready: false, reason: 'revocations: loading' });
    expect(await search.readiness(signal)).toEqual({ ready: false, reason: 'search: loading; revocations: loading' });
  });

  describe('remote', () => {
    let server: Server;
    let base: string;
    const answers: Record<string, [number, unknown]> = {};
    beforeAll(async () => {
      server = createServer((req, res) => {
        const [status, body] = answers[req.url ?? ''] ?? [404, { detail: 'Not Found' }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it("asks the other process's /healthz and /readyz, and says which checks are not fine", async () => {
      const [chat] = serviceProbes({
        modules: [svc('chat')],
        opened: [],
        targets: { chat: { url: `${base}/graphql` } },
        readiness: async () => ({ ready: true, checks: {} }),
      });
      expect(chat.url).toBe(base);
      answers['/healthz'] = [200, { msg: 'ok' }];
      answers['/readyz'] = [503, { status: 'not ready', checks: { postgres: 'down', redis: 'up', process: 'draining' } }];
      await expect(chat.health(signal)).resolves.toBeUndefined();
      expect(await chat.readiness(signal)).toEqual({ ready: false, reason: 'postgres: down; process: draining' });
      answers['/readyz'] = [200, { status: 'ready', checks: {} }];
      expect(await chat.readiness(signal)).toEqual({ ready: true });
      answers['/healthz'] = [500, {}];
      await expect(chat.health(signal)).rejects.toThrow('/healthz answered HTTP 500');
    });

    it("uses the service's REST client for its health when its module offers one", async () => {
      const seen: unknown[] = [];
      const [token] = serviceProbes({
        modules: [svc('token', { client: ({ baseUrl }) => ({ baseUrl }), health: async (at) => void seen.push(at) })],
        opened: [],
        targets: { token: { url: `${base}/graphql` } },
        readiness: async () => ({ ready: true, checks: {} }),
      });
      await token.health(signal);
      expect(seen).toEqual([{ client: { baseUrl: base } }]);
    });

    it('says a process that refuses connections is unreachable', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const [search] = serviceProbes({
        modules: [svc('search')],
        opened: [],
        targets: { search: { url: `http://127.0.0.1:${port}/graphql` } },
        readiness: async () => ({ ready: true, checks: {} }),
      });
      await expect(search.readiness(signal)).rejects.toThrow('unreachable: ECONNREFUSED');
    });
  });
});

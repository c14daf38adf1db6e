import { prometheusMetrics, type PrometheusMetrics } from '../../core/shared/telemetry/prometheus';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import pino from 'pino';
import { parseArgs } from '../../bin/args';
import { runBootstrap } from '../../bin/bootstrap';
import { closeAll, configParts, sharedDeps, type Opened } from '../../bin/deps';
import { loadConfig, type Config } from '../../core/shared/config';
import type { TokenCore } from '../../core/token';
import { createRestApp } from '../../rest/shared/app';
import { restFace } from '../../services/shared/faces';
import type { ServiceInstance } from '../../services/shared/module';
import { PUBLIC_URL, testModules } from './helpers';

/**
 * Services' REST faces in this process, opened as the platform opens them (their modules, settings,
 * credentials and bootstrap, each service after those it uses) and mounted on one express app, with
 * no gateway and no started server: what `supertest` drives. For what only a real server shows (SDKs
 * over real sockets, clients leaving midway, several processes) see test/e2e.
 */
export interface InProcess {
  app: Express;
  config: Config;
  instances: Readonly<Record<string, ServiceInstance>>;
  /** What the services and the REST faces recorded (the registry METRICS_PORT would serve). */
  metrics: PrometheusMetrics;
  /** What the first start created (realm, tenant, demo client, LM key). */
  bootstrap: Readonly<Record<string, string>>;
  /** `Bearer <access token>` of a new client of `tenantId` holding `roles`, issued by the token service in process. */
  bearer(clientId: string, tenantId: string, roles: string[]): Promise<string>;
  /**
   * `platform <name> <argv>` for a service's own command (`cli('key', 'create', '--name', 'x')`), its
   * flags parsed as the CLI parses them, run against the instance serving here: what the CLI prints.
   */
  cli(name: string, ...argv: string[]): Promise<any>;
  /** The app on an ephemeral port of 127.0.0.1 (HTTP/1.1; h2c is test/e2e's), for clients that need a URL; the same server on every call. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * `platform <name> <argv>` for a service's own command, run against `opened` (instances serving in
 * this process, the platform's too: `Started.instances`), its flags parsed as the CLI parses them:
 * what the CLI prints. For tests that need a key or a client made, not the CLI tested.
 */
export async function serviceCommand(opened: readonly Opened[], name: string, argv: readonly string[]): Promise<any> {
  const owner = opened.find((o) => o.module.commands?.some((c) => c.name === name));
  if (!owner) throw new Error(`no command '${name}' among the services opened here`);
  const command = owner.module.commands!.find((c) => c.name === name)!;
  // --data-dir and --help, which every command also takes, mean nothing here.
  const { flags, args } = parseArgs(argv, command.flags ?? {});
  const io = { readSecret: () => Promise.reject(new Error('no standard input in process: give the secret as a flag')) };
  return command.run(owner.instance, args, flags, io);
}

/** `names` and the services they use (the token service always: it issues the callers' tokens). */
export async function inProcess(names: readonly string[], env: Record<string, string> = {}): Promise<InProcess> {
  const modules = testModules();
  const wanted = new Set(['token', ...names]);
  for (const m of modules) if (wanted.has(m.name)) for (const used of m.uses ?? []) wanted.add(used);
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-rest-'));
  const config = loadConfig(
    { PLATFORM_DATA_DIR: dataDir, PUBLIC_URL, LOG_LEVEL: 'silent', MODELS_TEXT_THREADS: '0', ...env },
    configParts(modules),
  );
  const log = pino({ level: 'silent' });
  const metrics = prometheusMetrics({ maxTenants: config.METRICS_MAX_TENANTS });
  const platform = sharedDeps(config, modules, log, undefined, metrics);
  const opened = await platform.open(modules.filter((m) => wanted.has(m.name))).catch((err: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  let server: Promise<{ server: Server; url: string }> | undefined;
  try {
    const { values } = await runBootstrap(dataDir, opened);
    const faces = opened.flatMap(({ module, instance }) => restFace(module, instance, platform.deps) ?? []);
    const app = createRestApp(faces, {
      log,
      verifier: platform.deps.verifier,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      publicUrl: PUBLIC_URL,
      metrics,
    });
    const instances = Object.fromEntries(opened.map((o) => [o.module.name, o.instance]));
    const token = instances.token as unknown as TokenCore;
    return {
      app,
      config,
      instances,
      bootstrap: values,
      metrics,
      async bearer(clientId, tenantId, roles) {
        const c = await token.admin.createClient({ realm: values.realm, clientId, tenantId, roles });
        const t = await token.service.issueForClient({ realm: values.realm, client_id: clientId, client_secret: c.client_secret });
        return `Bearer ${t.access_token}`;
      },
      cli: (name, ...argv) => serviceCommand(opened, name, argv),
      async listen() {
        server ??= new Promise((resolve, reject) => {
          const s = createServer(app)
            .once('error', reject)
            .listen(0, '127.0.0.1', () => resolve({ server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` }));
        });
        return (await server).url;
      },
      async close() {
        const listening = await server?.catch(() => undefined);
        if (listening) {
          await new Promise((resolve) => {
            listening.server.close(resolve);
            listening.server.closeAllConnections();
          });
        }
        await closeAll(opened);
        await platform.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await closeAll(opened);
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

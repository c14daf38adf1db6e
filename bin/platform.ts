#!/usr/bin/env node
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from '../core/shared/config';
import { PlatformError } from '../core/shared/errors';
import { SERVICES } from '../services/registry';
import type { CommandFlags, ServiceModule } from '../services/shared/module';
import { UsageError } from '../services/shared/cli';
import { parseArgs } from './args';
import { backupDataDir } from './backup';
import { bootstrapPath, runBootstrap } from './bootstrap';
import { secureDataDir } from './data-dir';
import { configParts, sharedDeps, closeAll } from './deps';
import { progressBar } from '../services/shared/progress';
import { serve } from './serve';
import { AUDIT_FLAGS, AUDIT_USAGE, localAudit, remoteAudit } from './audit-command';
import { CREDENTIALS_HELP, REMOTE_FLAGS, remoteAdmin, remoteUrl } from './remote-admin';
import { GRAPHQL_USAGE } from './graphql-usage';

// Loaded on use, so admin commands start fast without the GraphQL stack.
const lazySupergraph = () => require('../gateway/supergraph') as typeof import('../gateway/supergraph');
const lazyMigrate = () => require('./migrate') as typeof import('./migrate');
const lazyTrusted = () => require('./trusted-documents') as typeof import('./trusted-documents');

export function helpText(modules: readonly ServiceModule[] = SERVICES): string {
  const names = [...modules.map((m) => m.name), 'gateway'].join('|');
  return [
    'platform: the token, search, model gateway and chat services and their federated graph',
    '',
    '  platform start                               everything on PORT (default 8080), WORKERS processes',
    `  platform serve <${names}> [--port N]    one part alone (gateway: SUBGRAPH_<NAME>_URL)`,
    ...modules.flatMap((m) => (m.commands ?? []).flatMap((c) => c.usage.map((u) => `  ${u}`))),
    "  platform init                                create the first start's realm, demo client, user and LM key without serving",
    "  platform credentials [--shell]               the first start's credentials (--shell: export lines)",
    '  platform backup <dir>                        copy every store and bootstrap.json into <dir>, also while the server runs',
    '  platform compose [--check]                   write (or check) schema/supergraph.graphql',
    "  platform migrate                             bring DATABASE_URL's tables to this version (replicas also do it as they start)",
    ...AUDIT_USAGE.map((u) => `  ${u}`),
    ...GRAPHQL_USAGE.map((u) => `  ${u}`),
    '',
    'Every command takes --data-dir D (default PLATFORM_DATA_DIR or ./data) and prints JSON.',
    'Commands that take a password or secret read it from standard input when it is not given.',
    'Lists print every item; --sort field|-field orders them, --limit N keeps the first N.',
    ...CREDENTIALS_HELP,
  ].join('\n');
}

const print = (v: unknown): void => {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
};

async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('--password is required (or pipe it on standard input)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export function configFrom(flags: Record<string, string | undefined>, modules: readonly ServiceModule[] = SERVICES): Config {
  const env = { ...process.env };
  if (flags['data-dir']) env.PLATFORM_DATA_DIR = flags['data-dir'];
  if (flags.port) env.PORT = flags.port;
  return loadConfig(env, configParts(modules));
}

/**
 * `platform <service command> ...`: opens the service that owns the command (durable writes) and
 * those it uses, runs it, closes.
 */
async function serviceCommand(module: ServiceModule, command: string, words: string[], flags: Record<string, string | undefined>) {
  const cmd = module.commands!.find((c) => c.name === command)!;
  const url = cmd.remote && remoteUrl(flags);
  if (url) return print(await cmd.remote!(await remoteAdmin(url, flags.token), words, flags, { readSecret: readStdinLine }));
  const platform = sharedDeps(configFrom(flags), SERVICES, pino({ level: 'silent' }));
  const opened = await platform.open(
    SERVICES.filter((m) => m === module || module.uses?.includes(m.name)),
    { admin: true },
  );
  try {
    print(await cmd.run(opened.find((o) => o.module === module)!.instance, words, flags, { readSecret: readStdinLine }));
  } finally {
    await closeAll(opened);
    await platform.close();
  }
}

/** The flags of the platform's own commands; every command, a service's too, also takes --data-dir and --help. */
const OWN_FLAGS = new Map<string, CommandFlags>([
  ['start', { values: ['port'] }],
  ['serve', { values: ['port'] }],
  ['init', {}],
  ['credentials', { switches: ['shell'] }],
  ['backup', {}],
  ['compose', { switches: ['check'] }],
  ['migrate', {}],
  ['audit', { values: [...AUDIT_FLAGS.values!, ...REMOTE_FLAGS] }],
  ['graphql', { values: ['name', ...REMOTE_FLAGS] }],
]);

/** What `command` accepts, or undefined when no command has that name. */
export function commandFlags(command: string, modules: readonly ServiceModule[] = SERVICES): CommandFlags | undefined {
  const service = modules.flatMap((m) => m.commands ?? []).find((c) => c.name === command);
  // A command that also runs remotely takes --url and --token.
  const remote = service?.remote ? REMOTE_FLAGS : [];
  const own = service ? { ...service.flags, values: [...(service.flags?.values ?? []), ...remote] } : OWN_FLAGS.get(command);
  return own && { values: ['data-dir', ...(own.values ?? [])], switches: ['help', ...(own.switches ?? [])] };
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || ['help', '--help', '-h'].includes(command)) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  const accepts = commandFlags(command);
  if (!accepts) throw new UsageError(`unknown command '${command}'`);
  const { flags, args } = parseArgs(rest, accepts);
  // `platform <command> --help` asks for the help, not for the command.
  if (flags.help) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  const owner = SERVICES.find((m) => m.commands?.some((c) => c.name === command));
  if (owner) return serviceCommand(owner, command, args, flags);
  switch (command) {
    case 'start':
      return serve(configFrom(flags), 'all');
    case 'serve': {
      const role = args[0];
      const known = [...SERVICES.map((m) => m.name), 'gateway'];
      if (!role || !known.includes(role)) throw new UsageError(`serve takes one of ${known.join(', ')}, not '${role ?? ''}'`);
      return serve(configFrom(flags), role);
    }
    case 'init': {
      // For parts served apart (`platform serve <name>`), which create nothing: what the first `platform start` creates.
      const config = configFrom(flags);
      secureDataDir(config.PLATFORM_DATA_DIR);
      const platform = sharedDeps(config, SERVICES, pino({ level: 'silent' }));
      const opened = await platform.open(SERVICES, { admin: true });
      try {
        const { file, created, joined } = await runBootstrap(config.PLATFORM_DATA_DIR, opened, platform.bootstrapScope());
        return print({ credentials: file, created, ...(joined ? { joined } : {}) });
      } finally {
        await closeAll(opened);
        await platform.close();
      }
    }
    case 'credentials': {
      const file = bootstrapPath(configFrom(flags).PLATFORM_DATA_DIR);
      if (!existsSync(file)) throw new UsageError(`${file} does not exist yet: run 'platform start' once`);
      const creds = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      if (!flags.shell) return print(creds);
      // One `export NAME='value'` per field, for eval in a shell.
      const quote = (v: string) => `'${String(v).replace(/'/g, `'\\''`)}'`;
      process.stdout.write(
        Object.entries(creds)
          .map(([k, v]) => `export ${k.toUpperCase()}=${quote(v)}\n`)
          .join(''),
      );
      return;
    }
    case 'backup': {
      if (!args[0]) throw new UsageError('backup needs a directory to write to');
      const bar = progressBar('backup');
      try {
        return print(await backupDataDir(configFrom(flags).PLATFORM_DATA_DIR, args[0], { onProgress: bar.update }));
      } finally {
        bar.stop();
      }
    }
    case 'compose': {
      const { composeSupergraph, graphSources, readSupergraph, supergraphPath } = lazySupergraph();
      const sdl = composeSupergraph(
        graphSources(SERVICES.filter((m) => m.subgraph).map((m) => ({ name: m.name, sdl: m.subgraph!.sdl() }))),
      );
      if (flags.check) {
        if (readSupergraph() !== sdl) throw new UsageError(`${supergraphPath()} is stale: run 'npm run compose'`);
        return print({ supergraph: supergraphPath(), fresh: true });
      }
      writeFileSync(supergraphPath(), sdl);
      return print({ supergraph: supergraphPath(), written: true });
    }
    case 'migrate':
      return print(await lazyMigrate().migrateDatabase(configFrom(flags), SERVICES));
    case 'audit': {
      const url = remoteUrl(flags);
      if (url) return print(await remoteAudit(await remoteAdmin(url, flags.token), flags));
      const platform = sharedDeps(configFrom(flags), SERVICES, pino({ level: 'silent' }));
      // Connecting opens the trail's store (the data directory's audit.db, or PostgreSQL's, migrated) and no service.
      await platform.connect(SERVICES, { admin: true });
      try {
        return print(await localAudit(platform.deps.audit, flags));
      } finally {
        await platform.close();
      }
    }
    case 'graphql': {
      const url = remoteUrl(flags);
      if (url) return print(await lazyTrusted().remoteGraphqlCommand(await remoteAdmin(url, flags.token), args, flags));
      return print(await lazyTrusted().graphqlCommand(configFrom(flags), args, flags));
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`platform: ${err.message}\n\n${err instanceof UsageError ? helpText() : ''}\n`);
      process.exit(2);
    }
    if (err instanceof PlatformError && err.expose) {
      process.stderr.write(`${JSON.stringify({ error: err.message, kind: err.kind })}\n`);
      process.exit(1);
    }
    if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
      process.stderr.write(`platform: port already in use (${(err as Error).message}); set PORT\n`);
      process.exit(1);
    }
    // Anything else is the command's fault, not the caller's: its JSON error all the same, no stack trace.
    process.stderr.write(`${JSON.stringify({ error: (err as Error)?.message ?? String(err), kind: 'internal' })}\n`);
    process.exit(1);
  });
}

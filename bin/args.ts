import { UsageError } from '../services/shared/cli';

/** `--name value` and `--name=value` flags plus positional words; a flag given twice keeps the last. */
export type Flags = Record<string, string | undefined>;

/** Flags that take no value. */
const SWITCHES = new Set(['check', 'help', 'shell']);

export function parseArgs(argv: string[]): { flags: Flags; args: string[] } {
  const flags: Flags = {};
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      args.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (eq > 0) flags[name] = arg.slice(eq + 1);
    else if (SWITCHES.has(name)) flags[name] = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${arg} needs a value`);
      flags[name] = next;
      i++;
    }
  }
  return { flags, args };
}

import { parseArgs as tokenize } from 'node:util';
import { UsageError } from '../services/shared/cli';
import type { CommandFlags } from '../services/shared/module';

/** `--name value` and `--name=value` flags (a switch holds 'true'); a flag given twice keeps the last. */
export type Flags = Record<string, string | undefined>;

/**
 * A command's words and the flags it declared in `accepts`; any other flag is a UsageError naming
 * it. node:util does the splitting (`--name=value`, `--` ends the flags); it runs non-strict so the
 * messages stay ours and a value may start with a single dash (`--name -x`), as before.
 */
export function parseArgs(argv: readonly string[], accepts: CommandFlags): { flags: Flags; args: string[] } {
  const values = new Set(accepts.values);
  const switches = new Set(accepts.switches);
  const options = Object.fromEntries<{ type: 'string' | 'boolean' }>([
    ...[...values].map((name) => [name, { type: 'string' }] as const),
    ...[...switches].map((name) => [name, { type: 'boolean' }] as const),
  ]);
  const { tokens } = tokenize({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const flags: Flags = {};
  const args: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') args.push(t.value);
    if (t.kind !== 'option') continue;
    if (values.has(t.name) && t.rawName.startsWith('--')) {
      // Non-strict, node takes the next word whatever it is: a following flag means this one has no value.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) throw new UsageError(`${t.rawName} needs a value`);
      flags[t.name] = t.value;
    } else if (switches.has(t.name) && t.rawName.startsWith('--')) {
      if (t.value !== undefined) throw new UsageError(`${t.rawName} takes no value`);
      flags[t.name] = 'true';
    } else {
      throw new UsageError(`unknown flag ${t.rawName}${known(values, switches)}`);
    }
  }
  return { flags, args };
}

const known = (values: Set<string>, switches: Set<string>): string => {
  const all = [...values, ...switches].sort().map((n) => `--${n}`);
  return all.length ? ` (this command takes ${all.join(', ')})` : ' (this command takes no flags)';
};

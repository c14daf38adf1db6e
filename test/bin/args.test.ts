import { parseArgs } from '../../bin/args';
import { commandFlags, helpText, main } from '../../bin/platform';
import { UsageError } from '../../services/shared/cli';

const ACCEPTS = { values: ['name', 'tenant'], switches: ['check'] };
const parse = (...argv: string[]) => parseArgs(argv, ACCEPTS);
const refusal = (argv: string[]) => {
  try {
    parse(...argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

describe('parseArgs', () => {
  it('reads --name value and --name=value, keeping the words in order', () => {
    expect(parse('create', '--name', 'acme', 'extra', '--tenant=t1')).toEqual({
      flags: { name: 'acme', tenant: 't1' },
      args: ['create', 'extra'],
    });
  });

  it('keeps the last of a flag given twice', () => {
    expect(parse('--name', 'a', '--name=b').flags).toEqual({ name: 'b' });
  });

  it('sets a switch to "true" without taking the next word', () => {
    expect(parse('--check', 'word')).toEqual({ flags: { check: 'true' }, args: ['word'] });
  });

  it('keeps an empty value given with =, and a value that starts with a single dash', () => {
    expect(parse('--name=', '--tenant', '-x').flags).toEqual({ name: '', tenant: '-x' });
  });

  it('takes every word after -- as a word, flags too', () => {
    expect(parse('--name', 'a', '--', '--tenant', '-x')).toEqual({ flags: { name: 'a' }, args: ['--tenant', '-x'] });
  });

  it('refuses a flag without its value, at the end or before another flag', () => {
    expect(refusal(['--name'])).toBe('--name needs a value');
    expect(refusal(['--name', '--check'])).toBe('--name needs a value');
  });

  it('refuses a value given to a switch', () => {
    expect(refusal(['--check=yes'])).toBe('--check takes no value');
  });

  it('refuses a flag the command does not take, naming it and those it takes', () => {
    expect(refusal(['--nmae', 'acme'])).toBe('unknown flag --nmae (this command takes --check, --name, --tenant)');
    expect(refusal(['-n', 'acme'])).toMatch(/^unknown flag -n /);
    expect(() => parseArgs(['--port', '1'], {})).toThrow('unknown flag --port (this command takes no flags)');
  });
});

describe("the platform command's flags", () => {
  it('accepts every flag its help shows, on the command the help shows it with', () => {
    const lines = helpText()
      .split('\n')
      .filter((l) => l.trim().startsWith('platform '));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      const command = line.trim().split(/\s+/)[1];
      const accepts = commandFlags(command);
      expect({ command, accepts: Boolean(accepts) }).toEqual({ command, accepts: true });
      const taken = [...(accepts!.values ?? []), ...(accepts!.switches ?? [])];
      for (const flag of line.match(/--[a-z-]+/g) ?? [])
        expect({ line, flag, taken: taken.includes(flag.slice(2)) }).toEqual({ line, flag, taken: true });
    }
  });

  it("takes --data-dir on every command, a service's too", () => {
    for (const command of [
      'start',
      'serve',
      'init',
      'credentials',
      'backup',
      'compose',
      'realm',
      'client',
      'user',
      'ingest',
      'reindex',
      'key',
    ]) {
      expect(commandFlags(command)?.values).toContain('data-dir');
    }
    expect(commandFlags('frobnicate')).toBeUndefined();
  });

  it('refuses a misspelt flag before running anything', async () => {
    await expect(main(['key', 'create', '--nmae', 'x', '--data-dir', '/nonexistent/never-created'])).rejects.toThrow(
      /^unknown flag --nmae \(this command takes .*--name/,
    );
    await expect(main(['compose', '--chek'])).rejects.toThrow(UsageError);
  });
});

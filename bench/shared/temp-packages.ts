/**
 * Peers a bench compares with that the project does not depend on: npm packages installed into a
 * temporary folder kept between runs (never into the project's node_modules), each checked to be
 * the exact version asked for.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const installed = (modules: string, name: string) => {
  const file = join(modules, name, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
};

/**
 * The `node_modules` folder of `<tmpdir>/<folder>` holding `packages` (name to exact version),
 * installing them first when a package is missing there or `ready` (a file below that folder) is.
 */
export function installTempPackages(folder: string, packages: Record<string, string>, log: (s: string) => void, ready?: string): string {
  const prefix = join(tmpdir(), folder);
  const modules = join(prefix, 'node_modules');
  const specs = Object.entries(packages).map(([name, version]) => `${name}@${version}`);
  if (
    Object.entries(packages).some(([name, version]) => installed(modules, name) !== version) ||
    (ready && !existsSync(join(modules, ready)))
  ) {
    log(`installing ${specs.join(' ')} into ${prefix} ...\n`);
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', ...specs], { stdio: 'inherit' });
  }
  for (const [name, version] of Object.entries(packages)) {
    const found = installed(modules, name);
    if (found !== version) throw new Error(`expected ${name} ${version} in ${modules}, found ${found ?? 'nothing'}`);
  }
  return modules;
}

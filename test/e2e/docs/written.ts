import { execFileSync } from 'node:child_process';
import { ROOT } from '../shared/server';

/** Whether git ignores `name` at the top of the project folder (a directory: anything in it). */
export function ignoredByGit(name: string, directory: boolean): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', directory ? `${name}/anything` : name], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

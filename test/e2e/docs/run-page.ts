import { spawn } from 'node:child_process';
import { processGroup } from './project-copy';
import { parsePage, type Page, type ShellBlock } from './markdown';
import { childEnv } from '../shared/server';

/**
 * Before the page's blocks: stop at the first command that fails (`set -e`, pipes included), and
 * make an HTTP error a failure (curl as written would exit 0 on a 4xx) unless the command asks for
 * `-f` itself. A block that expects a refusal calls `command curl`.
 */
const PRELUDE = `set -euo pipefail
curl() {
  local a
  # A command that fails on HTTP errors itself (-f) is run as written.
  for a in "$@"; do case $a in --fail|-[a-zA-Z]*f*) command curl "$@"; return;; esac; done
  command curl --fail-with-body -sS "$@"; echo
}
__docs_block() { printf '\\n@@docs-test block %s@@\\n' "$1"; }
`;

export interface PageRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The block that failed (the last one begun), when the page did not run to its end. */
  failed?: ShellBlock;
  /** What each block printed, in order. */
  outputs: string[];
  /** Processes the page started and left running (killed after). */
  leftovers: { pid: number; cmd: string }[];
}

/** `text` with each of `from` (a whole number or word) replaced by its stand-in. */
export function substitute(text: string, standIns: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [from, to] of standIns) out = out.replace(new RegExp(`(?<![\\w.])${from}(?![\\w])`, 'g'), to);
  return out;
}

/** The page's shell blocks that run (those not marked `not run`), as one bash script, stand-ins in place. */
export function pageScript(page: Page, standIns: ReadonlyMap<string, string> = new Map()): { script: string; blocks: ShellBlock[] } {
  const blocks = page.blocks.filter((b) => !b.notRun);
  const body = blocks.map((b, i) => `__docs_block ${i}\n${substitute(b.code, standIns)}\n`).join('');
  return { script: `${PRELUDE}${body}__docs_block end\n`, blocks };
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

/**
 * Runs a page's blocks in order in one bash (variables shared within the page), in `cwd` (a copy
 * of the project), with `env` added to the tests' environment; METRICS_PORT is left unset unless
 * `env` sets it, as in a newcomer's shell. Whatever the page started and left running (its
 * process group) is reported and stopped.
 */
export async function runPage(
  page: Page,
  opts: { cwd: string; env?: Record<string, string>; standIns?: ReadonlyMap<string, string>; timeoutMs?: number },
): Promise<PageRun> {
  const { script, blocks } = pageScript(page, opts.standIns);
  const env = childEnv({ npm_config_loglevel: 'error', ...opts.env });
  if (!opts.env?.METRICS_PORT) delete env.METRICS_PORT;
  const child = spawn('bash', ['-c', script], { cwd: opts.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => {
    stderr += `\n(docs test: the page ran past ${opts.timeoutMs} ms; stopped)\n`;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }, opts.timeoutMs ?? 180_000);
  // 'exit', not 'close': a process the page left in the background may hold the pipes open.
  const status = await new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))),
  );
  clearTimeout(timer);
  // What the page started in the background stays in its shell's process group (a non-interactive bash's jobs do).
  const leftovers = processGroup(child.pid!);
  for (const p of leftovers) process.kill(p.pid, 'SIGTERM');
  for (let i = 0; i < 100 && !leftovers.every((p) => gone(p.pid)); i++) await new Promise((r) => setTimeout(r, 100));
  for (const p of leftovers) if (!gone(p.pid)) process.kill(p.pid, 'SIGKILL');
  const parts = stdout.split(/\n@@docs-test block (?:\d+|end)@@\n/);
  const begun = [...stdout.matchAll(/@@docs-test block (\d+|end)@@/g)].map((m) => m[1]);
  const last = begun[begun.length - 1];
  return {
    status,
    stdout,
    stderr,
    leftovers,
    outputs: parts.slice(1),
    failed: last === 'end' && status === 0 ? undefined : blocks[Number(last ?? 0)],
  };
}

/** What to show when a page failed: the block, where it is, and what the shell said. */
export function explain(run: PageRun): string {
  const b = run.failed;
  const where = b ? `${b.page}:${b.line}:\n${b.code}` : '(before the first block)';
  return `block failed (exit ${run.status}) at ${where}\n--- its output ---\n${run.outputs[run.outputs.length - 1] ?? ''}\n--- stderr (end) ---\n${run.stderr.slice(-4000)}`;
}

/** The blocks of these pages that run, as one bash script: the tours against another setup (parts apart, replicas behind nginx). */
export const pagesScript = (...paths: string[]): string => paths.map((p) => pageScript(parsePage(p)).script).join('\n');

/** The four services' tours, in the order a reader takes them. */
export const SERVICE_TOURS = ['docs/tour-token.md', 'docs/tour-search.md', 'docs/tour-models.md', 'docs/tour-chat.md'];

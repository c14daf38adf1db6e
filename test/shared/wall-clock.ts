import ts from 'typescript';

/**
 * What makes a test pass on a quiet machine and fail on a busy one, found in a test file's source:
 *
 * - `bound`: an assertion on elapsed time: `expect(<something timed>)` with a comparison, where
 *   <something timed> reads the clock (`Date.now()`, `performance.now()`, `process.hrtime`) or is a
 *   name bound to such a reading, or is named like a duration (`elapsed`, `tookMs`, `latency`...);
 *   or a wait (`eventually`) given a deadline under 10 s, which asserts "within" all the same.
 * - `sleep`: a fixed wait: `new Promise((r) => setTimeout(r, n))`, or `sleep(n)` from
 *   node:timers/promises, outside a loop (inside one it is a poll's pace: the loop waits for its condition).
 * - `timed`: something done after a fixed delay, `setTimeout(() => act(), n)`: a bet that by then
 *   the system is in the state the test means.
 *
 * Each finding is the file's line and the statement's text; test/shared/no-wall-clock.test.ts holds
 * the few that are part of what a test tests, with the reason each may stay.
 */
export type Kind = 'bound' | 'sleep' | 'timed';

export interface Finding {
  kind: Kind;
  line: number;
  /** The line's text, trimmed: what the allow-list matches. */
  text: string;
}

const CLOCK = /\bDate\.now\(|\bperformance\.now\(|\bhrtime\b/;
const TIMED_NAME = /^(elapsed\w*|took\w*|\w*(Ms|Millis|Seconds|Latency|Duration)|latency|duration|delay)$/;
const COMPARISONS = new Set(['toBeLessThan', 'toBeLessThanOrEqual', 'toBeGreaterThan', 'toBeGreaterThanOrEqual']);

const isLoop = (n: ts.Node) =>
  ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isForInStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);
const isFunction = (n: ts.Node) =>
  ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n);

/** Whether `node` runs inside a loop of its own function, `functions` deep (a promise's executor is one more). */
function inLoop(node: ts.Node, functions: number): boolean {
  let seen = 0;
  for (let n = node.parent; n; n = n.parent) {
    if (isLoop(n)) return true;
    if (isFunction(n) && ++seen > functions) return false;
  }
  return false;
}

/** `setTimeout(r, n)` inside `new Promise((r) => ...)`: the timer resolves the promise, nothing else. */
function resolvesPromise(call: ts.CallExpression): boolean {
  const first = call.arguments[0];
  if (!first || !ts.isIdentifier(first)) return false;
  for (let n: ts.Node | undefined = call.parent; n; n = n.parent) {
    if (
      (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) &&
      ts.isNewExpression(n.parent) &&
      n.parent.expression.getText() === 'Promise'
    ) {
      return n.parameters[0]?.name.getText() === first.text;
    }
  }
  return false;
}

export function scan(fileName: string, source: string): Finding[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const findings: Finding[] = [];
  const clockNames = new Set<string>();
  const sleepNames = new Set<string>();
  const add = (kind: Kind, node: ts.Node) => {
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
    findings.push({ kind, line: line + 1, text: source.split('\n')[line].trim() });
  };

  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && /^(node:)?timers\/promises$/.test((node.moduleSpecifier as ts.StringLiteral).text)) {
      const named = node.importClause?.namedBindings;
      if (named && ts.isNamedImports(named))
        for (const el of named.elements) if ((el.propertyName ?? el.name).text === 'setTimeout') sleepNames.add(el.name.text);
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && CLOCK.test(node.initializer.getText(file)))
      clockNames.add(node.name.text);
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(file);
      if (ts.isPropertyAccessExpression(node.expression) && COMPARISONS.has(node.expression.name.text)) {
        const subject = expectedValue(node.expression.expression);
        if (subject && timed(subject, file, clockNames)) add('bound', node);
      }
      if (callee === 'setTimeout' && node.arguments.length >= 2) {
        if (resolvesPromise(node)) {
          if (!inLoop(node, 2)) add('sleep', node);
        } else if ((ts.isArrowFunction(node.arguments[0]) || ts.isFunctionExpression(node.arguments[0])) && !isDeadline(node, file)) {
          add('timed', node);
        }
      }
      if (sleepNames.has(callee) && !inLoop(node, 1)) add('sleep', node);
      // A short deadline on a wait is a bound in disguise: "seen within 5 s".
      const deadline = callee === 'eventually' ? node.arguments[1] : undefined;
      if (deadline && ts.isNumericLiteral(deadline) && Number(deadline.text.replace(/_/g, '')) < 10_000) add('bound', node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return findings;
}

/**
 * A timer that rejects or stops a process, or that the code clears when what it waits for comes, is
 * a deadline (a start that hangs fails, a run that overstays is stopped): no bet on timing.
 */
function isDeadline(call: ts.CallExpression, file: ts.SourceFile): boolean {
  if (/\breject\(|\.kill\(/.test(call.arguments[0].getText(file))) return true;
  const holder = call.parent;
  if (!ts.isVariableDeclaration(holder) || !ts.isIdentifier(holder.name)) return false;
  return new RegExp(`clearTimeout\\(${holder.name.text}\\)`).test(file.text);
}

/** The `x` of `expect(x).not?.toBe...`. */
function expectedValue(e: ts.Expression): ts.Expression | undefined {
  if (ts.isPropertyAccessExpression(e) && e.name.text === 'not') e = e.expression;
  return ts.isCallExpression(e) && e.expression.getText() === 'expect' ? e.arguments[0] : undefined;
}

function timed(subject: ts.Expression, file: ts.SourceFile, clockNames: Set<string>): boolean {
  if (CLOCK.test(subject.getText(file))) return true;
  let found = false;
  const names = (n: ts.Node) => {
    if (ts.isIdentifier(n) && (clockNames.has(n.text) || TIMED_NAME.test(n.text))) found = true;
    ts.forEachChild(n, names);
  };
  names(subject);
  return found;
}

/**
 * A problem found in a user's files: stable code, severity, location (file, 1-based line and column,
 * YAML path) and a message. Validation and rendering collect all of them instead of stopping at the first.
 */
import { BatonError } from '../errors.js';

export type Severity = 'error' | 'warning';

export interface Problem {
  code: string;
  severity: Severity;
  /** Repository-relative path of the file the problem is in. */
  file: string;
  /** 1-based; 0 when the problem concerns the whole file. */
  line: number;
  /** 1-based; 0 when unknown. */
  column: number;
  /** YAML path inside the file (keys and indexes); [] for the whole file or a template. */
  path: (string | number)[];
  message: string;
}

export type ProblemInput = Omit<Problem, 'severity' | 'line' | 'column' | 'path'> &
  Partial<Pick<Problem, 'severity' | 'line' | 'column' | 'path'>>;

export function problem(input: ProblemInput): Problem {
  return { severity: 'error', line: 0, column: 0, path: [], ...input };
}

/** `file:line:column`, `file:line` or `file`: only the parts that are known (never `:0:0`). */
export function problemLocation(p: Pick<Problem, 'file' | 'line' | 'column'>): string {
  if (p.line <= 0) return p.file;
  return p.column > 0 ? `${p.file}:${p.line}:${p.column}` : `${p.file}:${p.line}`;
}

/**
 * Text safe to print on a terminal or in a log: control characters and undecodable bytes (U+FFFD)
 * are escaped, long lines are cut, so a binary file never reaches the screen raw.
 */
export function printable(text: string, max = 240): string {
  // eslint-disable-next-line no-control-regex
  const escaped = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/g, (c) => (c === '\ufffd' ? '\\ufffd' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return escaped.length > max ? `${escaped.slice(0, max)}... (${escaped.length - max} more characters)` : escaped;
}

/** Whether decoded file content is not text: NUL bytes, or many bytes that were not UTF-8. */
export function looksBinary(text: string): boolean {
  if (text.includes('\u0000')) return true;
  let bad = 0;
  for (let i = text.indexOf('\ufffd'); i >= 0; i = text.indexOf('\ufffd', i + 1)) if (++bad > 8) return true;
  return false;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** Sorts by file, line, column, code: the order people read problems in. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => cmp(a.file, b.file) || a.line - b.line || a.column - b.column || cmp(a.code, b.code) || cmp(a.message, b.message),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Thrown by APIs that cannot return a problem list (e.g. loading one instance for the agent). */
export class RenderProblemsError extends BatonError {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    const first = problems.find((p) => p.severity === 'error') ?? problems[0];
    const where = first ? `${first.file}${first.line ? `:${first.line}` : ''}: ` : '';
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    super(first?.code ?? 'RENDER_FAILED', `${where}${first?.message ?? 'rendering failed'}${more}`, { problems });
    this.problems = problems;
  }
}

/**
 * Human output for problems: `file:line:column: severity CODE message`, the offending line and a caret,
 * then a summary. JSON output is the Problem list itself (stable for CI).
 */
import { printable, sortProblems, type Problem } from './problems.js';

export interface FormatOptions {
  /** File contents by repository path, to show the offending line. */
  sources?: ReadonlyMap<string, string>;
  /** Prefix for file paths (e.g. the repository directory relative to the current directory). */
  pathPrefix?: string;
}

export function formatProblem(p: Problem, options: FormatOptions = {}): string {
  const loc = p.line > 0 ? `:${p.line}${p.column > 0 ? `:${p.column}` : ''}` : '';
  const path = p.path.length > 0 ? ` (at ${p.path.join('.')})` : '';
  let out = `${options.pathPrefix ?? ''}${printable(p.file)}${loc}: ${p.severity} ${p.code}: ${printable(p.message, 2000)}${path}\n`;
  const text = options.sources?.get(p.file);
  if (text !== undefined && p.line > 0) {
    const line = text.split('\n')[p.line - 1];
    if (line !== undefined) {
      const gutter = String(p.line).padStart(5);
      const shown = printable(line);
      out += `${gutter} | ${shown}\n`;
      // The caret only where the line was printed as it is (escapes shift columns).
      if (p.column > 0 && shown === line) out += `${' '.repeat(gutter.length)} | ${' '.repeat(p.column - 1)}^\n`;
    }
  }
  return out;
}

export function formatProblems(problems: readonly Problem[], options: FormatOptions = {}): string {
  const sorted = sortProblems(problems);
  const errors = sorted.filter((p) => p.severity === 'error').length;
  const warnings = sorted.length - errors;
  const body = sorted.map((p) => formatProblem(p, options)).join('');
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${body}${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`;
}

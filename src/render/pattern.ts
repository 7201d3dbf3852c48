/**
 * Regular expressions that come from repositories (params.yaml `pattern`, a CRD's schema `pattern` in
 * the simulated cluster) are compiled with RE2JS, a pure-JavaScript port of RE2: matching takes time
 * linear in the input, so a pattern such as `^(a+)+$` cannot freeze the process that evaluates it
 * (V8's backtracking engine takes hours on 40 a's and a `!`). RE2 syntax is Go's `regexp` syntax, the
 * one Kubernetes uses for CRD patterns; what it lacks compared with ECMAScript (backreferences,
 * lookaround, `\u` escapes...) is refused with RE2's own reason, never run with a backtracking engine.
 */
import { RE2JS } from 're2js';

export type CompiledPattern = { ok: true; test(value: string): boolean } | { ok: false; reason: string };

const cache = new Map<string, CompiledPattern>();
const CACHE_LIMIT = 1000;

/** Hints for the ECMAScript constructs people write most that RE2 does not have. */
const HINTS: [RegExp, string][] = [
  [/\(\?<?[=!]/, 'lookahead and lookbehind are not supported'],
  [/\\[1-9]|\\k</, 'backreferences are not supported'],
  [/\\u/, 'write a Unicode escape as \\x{00e9}, not \\u00e9'],
  [/[*+?}]\+/, 'possessive quantifiers are not supported'],
];

/**
 * Compiles a repository pattern once per text. Unanchored like `RegExp.prototype.test`: anchor it with
 * `^...$` to match the whole value.
 */
export function compileRepoPattern(pattern: string): CompiledPattern {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let result: CompiledPattern;
  try {
    const re = RE2JS.compile(pattern);
    result = { ok: true, test: (value) => re.test(value) };
  } catch (err) {
    const detail = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');
    const hint = HINTS.find(([re]) => re.test(pattern))?.[1];
    result = { ok: false, reason: hint ? `${detail} (${hint}; patterns use RE2 syntax)` : `${detail} (patterns use RE2 syntax)` };
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, result);
  return result;
}

/**
 * svc.yml is a Mustache template over the scheduler's environment. The importer keeps variables as
 * markers in the YAML text (so each value can still be parameterized), evaluates sections at import time
 * with the variable's known value (they decide YAML structure; a section without a value is an error),
 * and maps every offset of the expanded text back to svc.yml for located findings.
 */
import Mustache from 'mustache';
import { locate, type FindingLog, type SourceLocation } from '../report.js';

export const VAR_OPEN = '\uE100';
export const VAR_CLOSE = '\uE101';
const VAR_RE = new RegExp(`${VAR_OPEN}(\\d+)${VAR_CLOSE}`, 'g');

type Token = [string, string, number, number, Token[]?, number?];

export interface VarUse {
  name: string;
  /** Offset of the tag in the source. */
  pos: number;
}

export interface Expanded {
  text: string;
  uses: VarUse[];
  /** Source offset of an offset of `text`. */
  source: (offset: number) => number;
}

export function locateMustacheError(file: string, text: string, err: unknown): SourceLocation {
  const m = /at (\d+)/.exec(err instanceof Error ? err.message : '');
  return m ? locate(file, text, Number(m[1])) : { file, line: 0, column: 0 };
}

export function parseMustache(file: string, text: string, log: FindingLog): Token[] | undefined {
  try {
    return Mustache.parse(text) as Token[];
  } catch (err) {
    log.error('IMPORT_MUSTACHE_SYNTAX', locateMustacheError(file, text, err), `Mustache syntax error: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Every variable name a template uses, sections included. */
export function mustacheNames(tokens: Token[]): Set<string> {
  const out = new Set<string>();
  const walk = (ts: Token[]): void => {
    for (const t of ts) {
      if (t[0] === 'name' || t[0] === '&' || t[0] === '#' || t[0] === '^') out.add(t[1]);
      if (t[4]) walk(t[4]);
    }
  };
  walk(tokens);
  return out;
}

/** Mustache truth of an environment value: empty, "false" and unset are false (all values are strings). */
export function envTruth(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v.toLowerCase() !== 'false';
}

export function expandSpec(file: string, source: string, tokens: Token[], valueOf: (name: string) => string | undefined, log: FindingLog): Expanded {
  let text = '';
  const uses: VarUse[] = [];
  // Pairs [textOffset, sourceOffset] where a run of text copied from the source starts.
  const anchors: [number, number][] = [];
  const walk = (ts: Token[]): void => {
    for (const t of ts) {
      const [type, value, start, end, children] = t;
      if (type === 'text') {
        anchors.push([text.length, start]);
        text += value;
      } else if (type === 'name' || type === '&') {
        anchors.push([text.length, start]);
        text += `${VAR_OPEN}${uses.length}${VAR_CLOSE}`;
        uses.push({ name: value, pos: start });
      } else if (type === '#' || type === '^') {
        const v = valueOf(value);
        const at = locate(file, source, start);
        if (v === undefined) {
          log.error('IMPORT_MUSTACHE_SECTION', at, `section {{${type}${value}}} has no value at import time (${value} is not set by the package's marathon.json.mustache, or no --package was given); sections decide YAML structure and are evaluated when importing`);
          continue;
        }
        const keep = envTruth(v) === (type === '#');
        log.mapped('IMPORT_MUSTACHE_SECTION', at, `section {{${type}${value}}} evaluated at import with ${value}=${JSON.stringify(v)}: its content is ${keep ? 'kept' : 'left out'}; to change it, change the value and import again`);
        if (keep && children) walk(children);
      } else if (type === '>') {
        log.error('IMPORT_MUSTACHE_PARTIAL', locate(file, source, start), `partials ({{> ${value}}}) are not supported in svc.yml`);
      } else if (type === '=') {
        log.error('IMPORT_MUSTACHE_DELIMITERS', locate(file, source, start), 'changed delimiters ({{= =}}) are not supported');
      }
      void end;
    }
  };
  walk(tokens);
  return {
    text,
    uses,
    source: (offset) => {
      let best: [number, number] = [0, 0];
      for (const a of anchors) if (a[0] <= offset) best = a;
      return best[1] + (offset - best[0]);
    },
  };
}

/** Splits a scalar of the expanded text into literal text and variable indexes. */
export function splitVars(s: string): (string | number)[] {
  const out: (string | number)[] = [];
  let last = 0;
  for (const m of s.matchAll(VAR_RE)) {
    if (m.index > last) out.push(s.slice(last, m.index));
    out.push(Number(m[1]));
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}

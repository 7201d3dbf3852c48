/**
 * A value of the DC/OS spec after Mustache: literal text and references to variables, kept apart so
 * each can become a Baton parameter (`params.X`) or a template variable (`instance.name`) in EJS.
 */
import type { ParamDecl } from '../../render/schemas.js';

export type Part = { lit: string } | { param: string } | { instance: true } | { runtime: string };
export type Expr = Part[];

export function lit(s: string): Expr {
  return [{ lit: s }];
}

export function isLiteral(e: Expr): boolean {
  return e.every((p) => 'lit' in p);
}

export function literalText(e: Expr): string {
  return e.map((p) => ('lit' in p ? p.lit : '')).join('');
}

export function concat(...es: Expr[]): Expr {
  return es.flat();
}

/** JavaScript for an expression. `want` decides how a lone parameter is printed. */
export function exprJs(e: Expr, params: ReadonlyMap<string, ParamDecl>, want: 'string' | 'number' | 'value'): string {
  const parts = e.filter((p) => !('lit' in p) || p.lit !== '');
  if (parts.length === 0) return want === 'number' ? '0' : "''";
  const one = (p: Part, alone: boolean): string => {
    if ('lit' in p) return want === 'number' && alone ? String(Number(p.lit)) : JSON.stringify(p.lit);
    if ('instance' in p) return 'instance.name';
    if ('runtime' in p) return JSON.stringify(`$(${p.runtime})`);
    const decl = params.get(p.param);
    const js = `params.${p.param}`;
    const numeric = decl?.type === 'integer' || decl?.type === 'number';
    if (alone && want === 'number') return numeric ? js : `Number(${js})`;
    if (alone && want === 'value') return js;
    return decl?.type === 'string' ? js : `String(${js})`;
  };
  if (parts.length === 1) return one(parts[0]!, true);
  const joined = parts.map((p) => one(p, false)).join(' + ');
  return want === 'number' ? `Number(${joined})` : joined;
}

/** The parameters an expression reads. */
export function paramsOf(e: Expr): string[] {
  return e.flatMap((p) => ('param' in p ? [p.param] : []));
}

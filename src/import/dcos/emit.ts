/**
 * Kubernetes objects whose leaves may be template expressions, written as an EJS template: the object is
 * serialized as YAML with a token for each expression, and each token becomes a `<%= %>` tag, which
 * prints a whole YAML value (a string, a number, or a flow mapping for label maps).
 */
import { stringify } from 'yaml';

export interface JsLeaf {
  readonly js: string;
}
export type Tree = string | number | boolean | null | JsLeaf | Tree[] | { [k: string]: Tree | undefined };

export function js(code: string): JsLeaf {
  return { js: code };
}

function isLeaf(v: unknown): v is JsLeaf {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as JsLeaf).js === 'string';
}

export function toEjsYaml(docs: Tree[], header: string): string {
  const leaves: string[] = [];
  const swap = (v: Tree | undefined): unknown => {
    if (v === undefined) return undefined;
    if (isLeaf(v)) {
      leaves.push(v.js);
      return `__BATON_EXPR_${leaves.length - 1}__`;
    }
    if (Array.isArray(v)) return v.map(swap);
    if (typeof v === 'object' && v !== null) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = swap(x);
      return o;
    }
    return v;
  };
  const body = docs.map((d) => stringify(swap(d), { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
  const escaped = body.replace(/<%/g, '<%%').replace(/%>/g, '%%>');
  return `${header}\n${escaped.replace(/__BATON_EXPR_(\d+)__/g, (_m, i: string) => `<%= ${leaves[Number(i)]!} %>`)}`;
}

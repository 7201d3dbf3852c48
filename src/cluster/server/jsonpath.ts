/**
 * The subset of kubectl JSONPath that CRD additionalPrinterColumns use: `.a.b`, `.a[0]`, `.a[*].b`,
 * and filters `.a[?(@.type=="Ready")].status`. Returns every match; an unsupported path matches nothing.
 */
import { isRecord } from '../../kube/object.js';

type Step = { key: string } | { index: number } | { all: true } | { filter: { path: string[]; value: string } };

export function parseJsonPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  const re = /\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\[\*\]|\[\?\(@\.([A-Za-z0-9_.-]+)\s*==\s*["']([^"']*)["']\)\]|\[['"]([^'"]+)['"]\]/gy;
  const src = path.trim().replace(/^\{(.*)\}$/, '$1').replace(/^\$/, '');
  let pos = 0;
  while (pos < src.length) {
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) return undefined;
    pos = re.lastIndex;
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ filter: { path: m[3].split('.'), value: m[4] ?? '' } });
    else if (m[5] !== undefined) steps.push({ key: m[5] });
    else steps.push({ all: true });
  }
  return steps;
}

export function evalJsonPath(root: unknown, path: string): unknown[] {
  const steps = parseJsonPath(path);
  if (!steps) return [];
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('key' in step) {
        if (isRecord(v) && v[step.key] !== undefined) next.push(v[step.key]);
      } else if ('index' in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]);
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...(v as unknown[]));
        else if (isRecord(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        const { path: fp, value } = step.filter;
        next.push(...(v as unknown[]).filter((item) => String(fp.reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), item)) === value));
      }
    }
    current = next;
  }
  return current;
}

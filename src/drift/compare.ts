/**
 * The cheap local comparison of a rendered object with the live one, used to pick candidates for
 * the exact check (a server-side dry-run apply, confirm.ts). It looks only at what the framework
 * renders, so fields that other managers and the server add (defaults, status, an autoscaler's
 * replicas when the template omits them) never count. It may say "differs" for a value the server
 * only normalised (a quantity, a defaulted list item): the dry-run then decides. It must not say
 * "same" for a real difference in a rendered field. Pure.
 */
import { isRecord, type KubeObject } from '../kube/object.js';

/** Paths of rendered fields whose live value differs (`.spec.replicas`, `.metadata.labels.app`); empty when none. */
export function renderedDifferences(rendered: KubeObject, live: KubeObject): string[] {
  const want = comparable(rendered);
  const have = comparable(live);
  const out: string[] = [];
  walk(want, have, '', out);
  return out;
}

/** What is compared: metadata labels and annotations, and everything outside metadata and status. */
function comparable(obj: KubeObject): Record<string, unknown> {
  const { metadata, status: _status, apiVersion: _a, kind: _k, ...rest } = obj;
  const out: Record<string, unknown> = { ...rest, metadata: { labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} } };
  // A Secret's stringData is folded into base64 data by the server: compare it in that form.
  if (obj.kind === 'Secret' && isRecord(out['stringData'])) {
    const data: Record<string, unknown> = isRecord(out['data']) ? { ...out['data'] } : {};
    for (const [k, v] of Object.entries(out['stringData'])) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    out['data'] = data;
    delete out['stringData'];
  }
  return out;
}

function walk(want: unknown, have: unknown, path: string, out: string[]): void {
  if (out.length >= 20) return;
  if (isRecord(want)) {
    if (!isRecord(have)) {
      if (Object.keys(want).length > 0 || have === undefined) out.push(path || '.');
      return;
    }
    for (const [k, v] of Object.entries(want)) {
      if (v === undefined || v === null) continue;
      walk(v, have[k], `${path}.${k}`, out);
    }
    return;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(have)) {
      out.push(path);
      return;
    }
    walkList(want, have, path, out);
    return;
  }
  if (!sameScalar(want, have)) out.push(path);
}

/**
 * Lists of named items (containers, env, volumes, ports with names) are matched by name, so items
 * others add do not count; other lists must match item by item and in length (args, commands).
 */
function walkList(want: unknown[], have: unknown[], path: string, out: string[]): void {
  const named = want.length > 0 && want.every((i) => isRecord(i) && typeof i['name'] === 'string');
  if (named) {
    for (const item of want as Record<string, unknown>[]) {
      const name = item['name'] as string;
      const match = have.find((h) => isRecord(h) && h['name'] === name);
      walk(item, match, `${path}[name="${name}"]`, out);
    }
    return;
  }
  if (want.length !== have.length) {
    out.push(path);
    return;
  }
  want.forEach((item, i) => walk(item, have[i], `${path}[${i}]`, out));
}

function sameScalar(want: unknown, have: unknown): boolean {
  if (want === have) return true;
  if (have === undefined || have === null) return false;
  // Numbers and their string forms (int-or-string fields) and quantities the server normalised.
  if (typeof want === 'number' || typeof have === 'number') {
    const scalar = (v: unknown): string | undefined => (typeof v === 'number' || typeof v === 'string' ? String(v) : undefined);
    return scalar(want) !== undefined && scalar(want) === scalar(have);
  }
  if (typeof want === 'string' && typeof have === 'string') {
    const a = quantity(want);
    const b = quantity(have);
    return a !== undefined && b !== undefined && Math.abs(a - b) <= Math.abs(a) * 1e-9;
  }
  return false;
}

const SUFFIX: Readonly<Record<string, number>> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A Kubernetes quantity (`500m`, `1Gi`, `0.5`) as a number, or undefined for any other string. */
export function quantity(text: string): number | undefined {
  const m = /^([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(text);
  if (m === null) return undefined;
  return Number(m[1]) * (SUFFIX[m[2] ?? ''] ?? 1);
}

/**
 * Paths where a dry-run apply's answer differs from the live object: what applying the rendered
 * object would change. Server bookkeeping (managedFields, resourceVersion, generation, times) is left
 * out. Empty: the apply would change nothing, the local comparison only saw normalisation.
 */
export function applyWouldChange(dryRun: KubeObject, live: KubeObject): string[] {
  const out: string[] = [];
  diffAll(strip(dryRun), strip(live), '', out);
  return out;
}

function strip(obj: KubeObject): Record<string, unknown> {
  const { managedFields: _m, resourceVersion: _r, generation: _g, creationTimestamp: _c, uid: _u, selfLink: _s, ...metadata } = obj.metadata;
  const { status: _status, ...rest } = obj;
  return { ...rest, metadata };
}

function diffAll(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= 20) return;
  if (isRecord(a) && isRecord(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffAll(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((item, i) => diffAll(item, b[i], `${path}[${i}]`, out));
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path || '.');
}

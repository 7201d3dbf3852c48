/**
 * The per-object ownership annotations a template may set (docs/drift.md). Parsed here so that
 * rendering refuses a bad value before anything is applied; the plan engine (plans/ownership.ts)
 * and drift detection act on the parsed policy.
 */
export const ANNOTATION_APPLY = 'baton.dev/apply';
export const ANNOTATION_CONFLICTS = 'baton.dev/conflicts';
export const ANNOTATION_DRIFT = 'baton.dev/drift';

export type ConflictPolicy = 'force' | 'report' | 'fail';

export interface OwnershipAnnotations {
  /** `IfNotPresent`: created when absent, never updated. */
  ifNotPresent: boolean;
  /** Absent: the task's or the default policy. */
  conflicts?: ConflictPolicy;
  /** `Ignore`: drift detection leaves the object alone. */
  driftIgnored: boolean;
}

export type OwnershipParse = { ok: true; value: OwnershipAnnotations } | { ok: false; annotation: string; value: string; expected: string[] };

const CONFLICTS: Readonly<Record<string, ConflictPolicy>> = { force: 'force', report: 'report', fail: 'fail' };

/** Values are case-insensitive (`IfNotPresent`, `ifnotpresent`). */
export function parseOwnership(annotations: unknown): OwnershipParse {
  const a: Readonly<Record<string, unknown>> = typeof annotations === 'object' && annotations !== null ? (annotations as Record<string, unknown>) : {};
  // A template may print a number or boolean; enhancement turns annotation values into strings later.
  const text = (key: string): string | undefined => {
    const v = a[key];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
  const apply = text(ANNOTATION_APPLY);
  const conflicts = text(ANNOTATION_CONFLICTS);
  const drift = text(ANNOTATION_DRIFT);
  if (apply !== undefined && apply.toLowerCase() !== 'ifnotpresent') return { ok: false, annotation: ANNOTATION_APPLY, value: apply, expected: ['IfNotPresent'] };
  if (drift !== undefined && !['ignore', 'check'].includes(drift.toLowerCase())) return { ok: false, annotation: ANNOTATION_DRIFT, value: drift, expected: ['Ignore', 'Check'] };
  const policy = conflicts === undefined ? undefined : CONFLICTS[conflicts.toLowerCase()];
  if (conflicts !== undefined && policy === undefined) return { ok: false, annotation: ANNOTATION_CONFLICTS, value: conflicts, expected: ['Force', 'Report', 'Fail'] };
  return { ok: true, value: { ifNotPresent: apply !== undefined, ...(policy ? { conflicts: policy } : {}), driftIgnored: drift?.toLowerCase() === 'ignore' } };
}

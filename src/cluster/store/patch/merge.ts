/** JSON merge patch (RFC 7386): maps merge recursively, `null` deletes, everything else replaces. */
import { isRecord } from '../../../kube/object.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

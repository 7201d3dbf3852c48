/**
 * Fights with other controllers: an object Baton repairs that drifts again soon after, again and
 * again, is being changed back by someone else (another operator, an autoscaler the framework does
 * not know about, a person's script). Re-applying forever would make both sides loop, so after
 * `repairs` repairs within `windowMs` the object is held back for a backoff that doubles each time,
 * and reported as a fight naming the other field manager. Pure.
 */
import type { FightRecord } from '../plans/checkpoint.js';
import type { DriftedObject } from './types.js';

export interface FightSettings {
  /** Repairs of one object within the window before repairs back off (default 3). */
  repairs: number;
  /** Repairs further apart than this do not count as a fight (default 1h). */
  windowMs: number;
  /** First backoff (default 10m), doubling per further drift, at most `maxBackoffMs` (default 6h). */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_FIGHT: FightSettings = { repairs: 3, windowMs: 3_600_000, backoffMs: 600_000, maxBackoffMs: 6 * 3_600_000 };

export interface RepairDecision {
  /** Objects to repair now. */
  repair: DriftedObject[];
  /** Objects held back: the fight they are in. */
  heldBack: { object: DriftedObject; fight: FightRecord }[];
  /** The records to keep (to be saved once the repair is recorded). */
  fights: FightRecord[];
}

const fieldsOf = (d: DriftedObject): string[] => (d.reason.kind === 'changed' ? d.reason.fields : [`(${d.reason.kind})`]);
const managersOf = (d: DriftedObject): string[] => (d.reason.kind === 'changed' ? d.reason.managers : []);

export function decideRepairs(drifted: readonly DriftedObject[], previous: readonly FightRecord[], nowMs: number, s: FightSettings = DEFAULT_FIGHT): RepairDecision {
  const now = new Date(nowMs).toISOString();
  const byObject = new Map(previous.map((f) => [f.object, f]));
  const out: RepairDecision = { repair: [], heldBack: [], fights: [] };
  const seen = new Set<string>();
  for (const d of drifted) {
    if (d.action !== 'repair') continue;
    seen.add(d.object);
    const rec = byObject.get(d.object);
    const recent = rec !== undefined && nowMs - Date.parse(rec.lastRepairAt) <= s.windowMs;
    const fields = [...new Set([...(recent ? rec.fields : []), ...fieldsOf(d)])].sort();
    const managers = [...new Set([...(recent ? rec.managers : []), ...managersOf(d)])].sort();
    const first = recent ? rec.firstRepairAt : now;
    if (rec?.backoffUntil !== undefined && Date.parse(rec.backoffUntil) > nowMs) {
      const held = { ...rec, fields, managers };
      out.heldBack.push({ object: d, fight: held });
      out.fights.push(held);
      continue;
    }
    // A backoff just ended: one more repair is tried; drifting again soon after doubles the backoff.
    const afterBackoff = rec?.backoffUntil !== undefined;
    const repairs = afterBackoff ? rec.repairs : recent ? rec.repairs + 1 : 1;
    if (!afterBackoff && repairs > s.repairs) {
      const backoff = Math.min(s.maxBackoffMs, s.backoffMs * 2 ** Math.min(repairs - s.repairs - 1, 20));
      const held: FightRecord = { object: d.object, fields, managers, repairs, firstRepairAt: first, lastRepairAt: now, backoffUntil: new Date(nowMs + backoff).toISOString() };
      out.heldBack.push({ object: d, fight: held });
      out.fights.push(held);
      continue;
    }
    out.repair.push(d);
    out.fights.push({ object: d.object, fields, managers, repairs, firstRepairAt: first, lastRepairAt: now });
  }
  // Objects not drifted now: their record stays while it could still count, then it is forgotten.
  for (const rec of previous) {
    if (seen.has(rec.object)) continue;
    const until = Math.max(Date.parse(rec.lastRepairAt), rec.backoffUntil ? Date.parse(rec.backoffUntil) : 0) + s.windowMs;
    if (until > nowMs) out.fights.push(rec);
  }
  return out;
}

/** Records of objects in a fight right now (repairs held back), for status and metrics. */
export function activeFights(fights: readonly FightRecord[], nowMs: number): FightRecord[] {
  return fights.filter((f) => f.backoffUntil !== undefined && Date.parse(f.backoffUntil) > nowMs);
}

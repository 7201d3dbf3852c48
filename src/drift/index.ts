/**
 * Drift detection and self-heal: the one entry point of src/drift/ (docs/drift.md).
 *
 * - `sweep` compares many instances' objects with their applied desired state and evaluates their
 *   health, with a few list requests per kind plus one dry-run per suspect object.
 * - `repair` re-applies only what drifted, owning step by owning step, behind its readiness gate,
 *   backing off from fights with other field managers.
 * - `DriftKeeper` is what the agent runs: when each instance is due (its interval), the renders
 *   cached by content, the self-heal policy, and the last result per instance for status and metrics.
 */
export { sweep, type DesiredSet, type SweepInstance, type SweepOptions } from './sweep.js';
export { repair, describe as describeDrift, REPAIR_PLAN, type RepairOptions, type RepairResult } from './repair.js';
export { desiredSetOf, LIFECYCLE_PLANS, type DesiredSource } from './desired.js';
export { decideRepairs, activeFights, DEFAULT_FIGHT, type FightSettings } from './fight.js';
export { renderedDifferences, applyWouldChange } from './compare.js';
export { DriftKeeper, type DriftKeeperOptions, type KeeperInstance } from './keeper.js';
export { driftSettingsOf, DEFAULT_DRIFT_INTERVAL_MS, type DriftSettings } from './settings.js';
export * from './types.js';

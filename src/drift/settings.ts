/**
 * Drift settings of one instance: its instance file's `sync:` over baton.yaml's `sync:` over the
 * defaults (every 5 minutes, repair, retries from 1 minute doubling to 1 hour). Bad values never
 * get here: the schemas refuse them with the file and field.
 */
import { parseDuration, type SyncSettingsDecl } from '../render/index.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../plans/retry.js';
import type { SelfHealPolicy } from './types.js';

export const DEFAULT_DRIFT_INTERVAL_MS = 5 * 60_000;

export interface DriftSettings {
  intervalMs: number;
  policy: SelfHealPolicy;
  retry: RetryPolicy;
}

export function driftSettingsOf(repository: SyncSettingsDecl | undefined, instance: SyncSettingsDecl | undefined): DriftSettings {
  const ms = (text: string | undefined): number | undefined => {
    const seconds = text === undefined ? undefined : parseDuration(text);
    return seconds === undefined || !(seconds > 0) ? undefined : seconds * 1000;
  };
  const pick = <T>(get: (s: SyncSettingsDecl) => T | undefined): T | undefined => (instance ? get(instance) : undefined) ?? (repository ? get(repository) : undefined);
  return {
    intervalMs: ms(pick((s) => s.driftInterval)) ?? DEFAULT_DRIFT_INTERVAL_MS,
    policy: pick((s) => s.selfHeal) ?? 'repair',
    retry: {
      initialMs: ms(pick((s) => s.retry?.initial)) ?? DEFAULT_RETRY.initialMs,
      maxMs: ms(pick((s) => s.retry?.max)) ?? DEFAULT_RETRY.maxMs,
    },
  };
}

/**
 * Recovery rules (framework.yaml `recovery:`, docs/recovery.md), pure: which pods of an instance to act
 * on now and how, given how long each has not been ready, what was done to them lately, and the limits.
 *
 * A pod's not-ready *episode* starts when it stops being ready. A restart that does not help (the pod is
 * not ready again within the transient timeout after it) continues the same episode, so a pod that
 * stays broken across restarts reaches the permanent timeout and is replaced (or the plan runs).
 */
import type { PodActionEntry } from '../plans/checkpoint.js';
import { DEFAULT_RECOVERY_PLAN, parseDuration, type RecoveryDecl } from '../render/index.js';
import type { InstancePod, NotReadyReason } from './pods.js';

export const RECOVERY_ACTOR = 'recovery';

export interface RecoveryPolicy {
  /** Not ready longer than this: restart. Undefined: never restarted. */
  transientMs?: number;
  /** Not ready longer than this: the permanent action. Undefined: none. */
  permanentMs?: number;
  permanent: 'replace' | 'plan';
  plan: string;
  podIntervalMs: number;
  maxPerHour: number;
  maxPods: number;
}

export const DEFAULT_TRANSIENT = '5m';
export const DEFAULT_POD_INTERVAL = '10m';
export const DEFAULT_MAX_PER_HOUR = 6;

const ms = (d: string | undefined): number | undefined => (d === undefined ? undefined : (parseDuration(d) ?? 0) * 1000);

export function recoveryPolicyOf(decl: RecoveryDecl): RecoveryPolicy {
  const transient = ms(decl.transientTimeout ?? (decl.permanentTimeout === undefined ? DEFAULT_TRANSIENT : undefined));
  const permanent = ms(decl.permanentTimeout);
  return {
    ...(transient !== undefined ? { transientMs: transient } : {}),
    ...(permanent !== undefined ? { permanentMs: permanent } : {}),
    permanent: decl.permanent,
    plan: decl.plan ?? DEFAULT_RECOVERY_PLAN,
    podIntervalMs: ms(decl.limits?.podInterval ?? DEFAULT_POD_INTERVAL) ?? 0,
    maxPerHour: decl.limits?.maxActionsPerHour ?? DEFAULT_MAX_PER_HOUR,
    maxPods: decl.limits?.maxPods ?? 1,
  };
}

export type RecoveryAction = 'restart' | 'replace' | 'plan';

export interface PodVerdict {
  pod: string;
  /** The start of the pod's not-ready episode. */
  since: string;
  reason: NotReadyReason;
  message: string;
}

/** Why a not-ready pod is left alone this time. */
export interface HeldPod {
  pod: string;
  why: string;
}

export type RecoveryDecision =
  | { kind: 'act'; action: RecoveryAction; pods: PodVerdict[]; reason: string; held: HeldPod[] }
  | { kind: 'none'; held: HeldPod[] };

const RUN_ONCE_CONTROLLERS: ReadonlySet<string> = new Set(['Job', 'CronJob']);

/** Reasons no action helps with: left for a person (an image that cannot be pulled needs a new image). */
const NOT_RECOVERABLE: ReadonlySet<NotReadyReason> = new Set(['image-pull']);

export function decideRecovery(policy: RecoveryPolicy, pods: readonly InstancePod[], recent: readonly PodActionEntry[], now: number): RecoveryDecision {
  const held: HeldPod[] = [];
  const candidates: { verdict: PodVerdict; action: RecoveryAction; forMs: number }[] = [];
  const hourAgo = now - 3600_000;
  const actionsThisHour = recent.filter((e) => e.by === RECOVERY_ACTOR && Date.parse(e.at) > hourAgo).length;
  for (const p of pods) {
    const bad = p.notReady;
    // Run-once pods (a Job's) are their Job's business: its backoff and the plan's gate.
    if (bad === undefined || RUN_ONCE_CONTROLLERS.has(p.controller?.kind ?? '')) continue;
    if (NOT_RECOVERABLE.has(bad.reason)) {
      held.push({ pod: p.name, why: `${bad.message}: a restart or new storage does not help` });
      continue;
    }
    if (p.controller === undefined) {
      held.push({ pod: p.name, why: 'no controller would create it again' });
      continue;
    }
    const last = recent.find((e) => e.pod === p.name);
    const since = episodeStart(bad.since, last, policy);
    // The recovery plan already ran for this episode: what else to do is the plan's or a person's call.
    if (last?.action === 'plan' && last.notReadySince === since) {
      held.push({ pod: p.name, why: `the ${policy.plan} plan ran for it at ${last.at} (run ${last.runId}); it is not run again until the pod was ready again` });
      continue;
    }
    const forMs = now - Date.parse(since);
    const action = actionFor(policy, forMs, last, since);
    if (action === undefined) continue;
    if (last !== undefined && now - Date.parse(last.at) < policy.podIntervalMs) {
      held.push({ pod: p.name, why: `acted on at ${last.at} (${last.action}); limits.podInterval allows the next action at ${new Date(Date.parse(last.at) + policy.podIntervalMs).toISOString()}` });
      continue;
    }
    candidates.push({ verdict: { pod: p.name, since, reason: bad.reason, message: bad.message }, action, forMs });
  }
  if (candidates.length === 0) return { kind: 'none', held };
  if (actionsThisHour >= policy.maxPerHour) {
    return { kind: 'none', held: [...held, ...candidates.map((c) => ({ pod: c.verdict.pod, why: `limits.maxActionsPerHour (${policy.maxPerHour}) reached` }))] };
  }
  // The longest broken first; one action per run, for at most maxPods pods.
  candidates.sort((a, b) => b.forMs - a.forMs || a.verdict.pod.localeCompare(b.verdict.pod));
  const first = candidates[0];
  if (first === undefined) return { kind: 'none', held };
  const chosen = candidates.filter((c) => c.action === first.action).slice(0, Math.min(policy.maxPods, policy.maxPerHour - actionsThisHour));
  for (const c of candidates) if (!chosen.includes(c)) held.push({ pod: c.verdict.pod, why: `waits its turn: limits.maxPods is ${policy.maxPods}` });
  const limit = first.action === 'restart' ? policy.transientMs : policy.permanentMs;
  const reason = `recovery: ${chosen.map((c) => `pod ${c.verdict.pod} not ready for ${formatMs(c.forMs)} (${c.verdict.reason}: ${c.verdict.message})`).join('; ')}; ${first.action} after ${formatMs(limit ?? 0)}`;
  return { kind: 'act', action: first.action, pods: chosen.map((c) => c.verdict), reason, held };
}

/** The action a pod not ready for `forMs` calls for: permanent past its timeout, else one restart per episode (more only without a permanent action). */
function actionFor(policy: RecoveryPolicy, forMs: number, last: PodActionEntry | undefined, since: string): RecoveryAction | undefined {
  if (policy.permanentMs !== undefined && forMs >= policy.permanentMs) return policy.permanent;
  const restartedThisEpisode = last !== undefined && last.action === 'restart' && Date.parse(last.at) >= Date.parse(since);
  if (policy.transientMs !== undefined && forMs >= policy.transientMs && (!restartedThisEpisode || policy.permanentMs === undefined)) return 'restart';
  return undefined;
}

/** A restart that did not help (not ready again within the transient timeout) continues the episode it was for. */
function episodeStart(since: string, last: PodActionEntry | undefined, policy: RecoveryPolicy): string {
  if (last?.notReadySince === undefined || last.by !== RECOVERY_ACTOR) return since;
  const after = Date.parse(since) - Date.parse(last.at);
  const window = policy.transientMs ?? policy.podIntervalMs;
  return after >= -1000 && after <= window ? last.notReadySince : since;
}

export function formatMs(value: number): string {
  const s = Math.round(value / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

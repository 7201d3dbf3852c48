/**
 * Why a workload waits, told through its pods: "2/3 replicas ready; pod zk-1: ImagePullBackOff
 * (image nope:1)". A pod whose image cannot be pulled past the grace period fails its workload's
 * gate too: the controller would only replace it with another pod that cannot pull either.
 */
import { isRecord, type KubeObject } from '../../kube/object.js';
import { at, list, str } from './fields.js';
import { HOPELESS, PULL_FAILURES, podGate } from './pods.js';
import { failed, type GateContext, type GateResult } from './types.js';

export interface PodVerdict {
  name: string;
  result: GateResult;
}

export interface WorkloadExplanation {
  /** The workload's verdict, with the first troubled pod named in its message. */
  result: GateResult;
  /** Pods that are not done, by name. */
  pods: PodVerdict[];
}

/** Label selector semantics: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist). */
export function selectorMatches(selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (!isRecord(selector)) return false;
  const have = labels ?? {};
  const matchLabels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  for (const [k, v] of Object.entries(matchLabels)) if (have[k] !== v) return false;
  for (const e of list(selector, 'matchExpressions')) {
    const key = str(e, 'key') ?? '';
    const values = list(e, 'values').filter((v): v is string => typeof v === 'string');
    const value = have[key];
    switch (str(e, 'operator') ?? '') {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function podsOfWorkload(workload: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  const selector = at(workload, 'spec.selector');
  return pods.filter((p) => p.kind === 'Pod' && p.metadata.namespace === workload.metadata.namespace && selectorMatches(selector, p.metadata.labels));
}

const UNPULLABLE = (reason: string): boolean => PULL_FAILURES.has(reason) || HOPELESS.has(reason);

/** `gate` is the workload's own verdict (from gateFor); pods are any list, filtered by the workload's selector. */
export function explainWorkload(workload: KubeObject, gate: GateResult, pods: readonly KubeObject[], ctx: GateContext): WorkloadExplanation {
  if (gate.state === 'done') return { result: gate, pods: [] };
  const troubled = podsOfWorkload(workload, pods)
    .map((p): PodVerdict => ({ name: p.metadata.name ?? '', result: podGate(p, ctx) }))
    .filter((v) => v.result.state !== 'done')
    .sort((a, b) => a.name.localeCompare(b.name));
  if (gate.state === 'failed') return { result: gate, pods: troubled };
  const hopeless = troubled.find((v) => v.result.state === 'failed' && UNPULLABLE(v.result.reason));
  if (hopeless && hopeless.result.state === 'failed') {
    return { result: failed(hopeless.result.reason, `${gate.message}; pod ${hopeless.name}: ${hopeless.result.message}`), pods: troubled };
  }
  const first = troubled[0];
  if (!first) return { result: gate, pods: troubled };
  const more = troubled.length > 1 ? ` (+${troubled.length - 1} more)` : '';
  return { result: { state: 'waiting', message: `${gate.message}; pod ${first.name}: ${first.result.message}${more}` }, pods: troubled };
}

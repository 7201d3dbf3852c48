/**
 * Framework-declared readiness (`readiness:` in framework.yaml) for kinds Baton has no rule for, or to
 * override a built-in one: failure conditions first, then the ready condition or a field's values.
 */
import type { KubeObject } from '../../kube/object.js';
import type { ReadinessRule } from '../../render/types.js';
import { at, condition, staleGeneration, why } from './fields.js';
import { kstatusGate } from './kstatus.js';
import { done, failed, waiting, type GateResult } from './types.js';

export function findRule(rules: readonly ReadinessRule[], obj: KubeObject): ReadinessRule | undefined {
  return rules.find((r) => r.kind === obj.kind && r.apiVersion === obj.apiVersion);
}

const show = (values: readonly (string | number | boolean)[]): string => values.map((v) => JSON.stringify(v)).join(', ');

export function ruleGate(rule: ReadinessRule, obj: KubeObject): GateResult {
  const stale = staleGeneration(obj);
  if (stale) return waiting(stale);
  for (const type of rule.failedConditions ?? []) {
    const c = condition(obj, type);
    if (c?.status === 'True') return failed(type, `condition ${type} is True${why(c)}`);
  }
  if (rule.field) {
    const { path, ready, failed: bad = [] } = rule.field;
    const value = at(obj, path);
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
    if (scalar !== undefined && bad.includes(scalar)) return failed('FailedValue', `${path} is ${JSON.stringify(scalar)}`);
    if (scalar !== undefined && ready.includes(scalar)) return done(`${path} is ${JSON.stringify(scalar)}`);
    const now = value === undefined ? 'not set' : `${JSON.stringify(value)}`;
    return waiting(`${path} is ${now}, waiting for ${show(ready)}`);
  }
  if (rule.readyCondition) {
    const c = condition(obj, rule.readyCondition);
    if (c?.status === 'True') return done(`${rule.readyCondition}${why(c)}`);
    return waiting(`waiting for condition ${rule.readyCondition}${c ? ` (now ${c.status}${why(c).replace(/^ \(/, ': ').replace(/\)$/, '')})` : ''}`);
  }
  // A rule with only failure conditions: the usual conventions decide readiness.
  return kstatusGate(obj);
}

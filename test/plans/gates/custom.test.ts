import { describe, expect, it } from 'vitest';
import type { ReadinessRule } from '../../../src/render/types.js';
import { gateFor, type GateResult } from '../../../src/plans/gates/index.js';
import { ctx, obj } from './_fixtures.js';

const widget = (status: string, generation = 2): string => `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, namespace: app, generation: ${generation} }
status: ${status}
`;

describe('custom resources by the kstatus conventions', () => {
  it.each<[string, string, GateResult]>([
    ['Ready=True', widget('{ observedGeneration: 2, conditions: [{ type: Ready, status: "True", reason: Reconciled }] }'), { state: 'done', message: 'Ready (Reconciled)' }],
    ['Ready=False with a message', widget('{ conditions: [{ type: Ready, status: "False", reason: Pending, message: waiting for leader }] }'),
      { state: 'waiting', message: 'not Ready (Pending: waiting for leader)' }],
    ['a stale status.observedGeneration', widget('{ observedGeneration: 1, conditions: [{ type: Ready, status: "True" }] }'),
      { state: 'waiting', message: 'waiting for the controller to observe generation 2 (observed 1)' }],
    ['a Ready condition observed for an older generation', widget('{ conditions: [{ type: Ready, status: "True", observedGeneration: 1 }] }'),
      { state: 'waiting', message: 'Ready condition is for generation 1, not 2' }],
    ['Reconciling=True', widget('{ conditions: [{ type: Reconciling, status: "True", reason: Progressing }, { type: Ready, status: "True" }] }'),
      { state: 'waiting', message: 'reconciling (Progressing)' }],
    ['Stalled=True', widget('{ conditions: [{ type: Stalled, status: "True", reason: BadConfig, message: spec.size must be odd }] }'),
      { state: 'failed', reason: 'Stalled', message: 'stalled (BadConfig: spec.size must be odd)' }],
    ['no status at all', widget('{}'), { state: 'done', message: 'no readiness rule applies to Widget; ready once applied' }],
    ['conditions but none of the kstatus ones', widget('{ conditions: [{ type: Synced, status: "True" }] }'),
      { state: 'done', message: 'no Ready, Reconciling or Stalled condition; ready once applied' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });
});

const phaseRule: ReadinessRule = { apiVersion: 'example.com/v1', kind: 'Widget', field: { path: 'status.phase', ready: ['Running'], failed: ['Error'] } };
const conditionRule: ReadinessRule = { apiVersion: 'example.com/v1', kind: 'Widget', readyCondition: 'Available', failedConditions: ['Degraded'] };
const failuresOnly: ReadinessRule = { apiVersion: 'example.com/v1', kind: 'Widget', failedConditions: ['Broken'] };
const overridesDeployment: ReadinessRule = { apiVersion: 'apps/v1', kind: 'Deployment', readyCondition: 'Available' };

describe('framework-declared readiness rules take precedence', () => {
  it.each<[string, ReadinessRule, string, GateResult]>([
    ['a field rule whose value means ready', phaseRule, widget('{ phase: Running }'), { state: 'done', message: 'status.phase is "Running"' }],
    ['a field rule whose value means failed', phaseRule, widget('{ phase: Error }'), { state: 'failed', reason: 'FailedValue', message: 'status.phase is "Error"' }],
    ['a field rule with another value', phaseRule, widget('{ phase: Starting }'), { state: 'waiting', message: 'status.phase is "Starting", waiting for "Running"' }],
    ['a field rule with the field absent', phaseRule, widget('{}'), { state: 'waiting', message: 'status.phase is not set, waiting for "Running"' }],
    ['a field rule on a stale status', phaseRule, widget('{ observedGeneration: 1, phase: Running }'),
      { state: 'waiting', message: 'waiting for the controller to observe generation 2 (observed 1)' }],
    ['a condition rule satisfied', conditionRule, widget('{ conditions: [{ type: Available, status: "True" }] }'), { state: 'done', message: 'Available' }],
    ['a condition rule not yet satisfied', conditionRule, widget('{ conditions: [{ type: Available, status: "False", reason: Scaling }] }'),
      { state: 'waiting', message: 'waiting for condition Available (now False: Scaling)' }],
    ['a condition rule whose condition is absent', conditionRule, widget('{}'), { state: 'waiting', message: 'waiting for condition Available' }],
    ['a failure condition that is True', conditionRule, widget('{ conditions: [{ type: Degraded, status: "True", message: disk full }] }'),
      { state: 'failed', reason: 'Degraded', message: 'condition Degraded is True (disk full)' }],
    ['a rule with only failure conditions falls back to kstatus', failuresOnly, widget('{ conditions: [{ type: Ready, status: "True" }] }'), { state: 'done', message: 'Ready' }],
    ['a rule overriding a built-in kind', overridesDeployment, '{ apiVersion: apps/v1, kind: Deployment, metadata: { name: d }, status: { conditions: [{ type: Available, status: "True" }] } }',
      { state: 'done', message: 'Available' }],
  ])('GIVEN %s THEN the gate says so', (_name, rule, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx({ rules: [rule] }))).toEqual(expected);
  });

  it('GIVEN a rule for another apiVersion THEN the built-in conventions apply', () => {
    const other: ReadinessRule = { ...phaseRule, apiVersion: 'example.com/v2' };
    expect(gateFor(obj(widget('{ phase: Error }')), ctx({ rules: [other] }))).toEqual({ state: 'done', message: 'no readiness rule applies to Widget; ready once applied' });
  });
});

import { describe, expect, it } from 'vitest';
import { desiredStoredValues, selectPlan, type DesiredState, type PreviousState, type Selection } from '../../src/plans/selection.js';

const params = [
  { name: 'REPLICAS' },
  { name: 'MEMORY', trigger: 'resize' },
  { name: 'BACKUP_BUCKET', trigger: 'backup' },
  { name: 'STORAGE_CLASS', immutable: true },
  { name: 'PASSWORD', sensitive: true },
];
const base: DesiredState = {
  frameworkVersion: '1.2.0',
  frameworkHash: 'files-a',
  values: { REPLICAS: 3, MEMORY: '1Gi', BACKUP_BUCKET: 's3://a', STORAGE_CLASS: 'fast', PASSWORD: 'hunter2' },
  params,
  plans: ['deploy', 'update', 'upgrade', 'resize', 'backup', 'cleanup'],
};
const applied: PreviousState = { frameworkVersion: '1.2.0', frameworkHash: 'files-a', values: desiredStoredValues(base), handledRequests: ['r-1'] };

const withValues = (v: Record<string, unknown>, over: Partial<DesiredState> = {}): DesiredState => ({ ...base, ...over, values: { ...base.values, ...v } });
const noUpdate = (d: DesiredState): DesiredState => ({ ...d, plans: d.plans.filter((p) => p !== 'update' && p !== 'upgrade') });

/** `explicitOnly`: the plan runs only because it was asked for, so the desired state is not recorded as applied. */
type Expectation = { kind: 'run'; plan: string; warns?: boolean; args?: Record<string, string>; explicitOnly?: true } | { kind: 'refuse'; code: string; mentions: string[] } | { kind: 'nothing' } | { kind: 'remove'; cleanup: string | undefined };

describe('selectPlan: which plan a change runs', () => {
  it.each<[string, PreviousState | undefined, DesiredState, Expectation]>([
    ['a new instance runs deploy', undefined, base, { kind: 'run', plan: 'deploy' }],
    ['nothing changed runs nothing', applied, base, { kind: 'nothing' }],
    ['a higher framework version runs upgrade', applied, { ...base, frameworkVersion: '1.3.0' }, { kind: 'run', plan: 'upgrade' }],
    ['a higher version without upgrade runs update', applied, { ...base, frameworkVersion: '2.0.0', plans: ['deploy', 'update'] }, { kind: 'run', plan: 'update' }],
    ['a higher version without upgrade or update runs deploy', applied, noUpdate({ ...base, frameworkVersion: '1.2.1' }), { kind: 'run', plan: 'deploy' }],
    ['a prerelease of the applied version is a downgrade', applied, { ...base, frameworkVersion: '1.2.0-rc.1' }, { kind: 'refuse', code: 'VERSION_DOWNGRADE', mentions: ['1.2.0-rc.1', '1.2.0'] }],
    ['a lower framework version is refused', applied, { ...base, frameworkVersion: '1.1.0' }, { kind: 'refuse', code: 'VERSION_DOWNGRADE', mentions: ['1.1.0'] }],
    ['a changed value without trigger runs update', applied, withValues({ REPLICAS: 5 }), { kind: 'run', plan: 'update' }],
    ['a changed value without trigger and no update plan runs deploy', applied, noUpdate(withValues({ REPLICAS: 5 })), { kind: 'run', plan: 'deploy' }],
    ['a changed value runs its trigger plan', applied, withValues({ MEMORY: '2Gi' }), { kind: 'run', plan: 'resize' }],
    ['two changed values with the same plan run it once', applied, withValues({ REPLICAS: 5, PASSWORD: 'new' }), { kind: 'run', plan: 'update' }],
    ['values triggering different plans are refused, naming parameters and plans', applied, withValues({ MEMORY: '2Gi', BACKUP_BUCKET: 's3://b' }), { kind: 'refuse', code: 'PLAN_CONFLICT', mentions: ['MEMORY -> resize', 'BACKUP_BUCKET -> backup'] }],
    ['a changed immutable parameter is refused', applied, withValues({ STORAGE_CLASS: 'slow' }), { kind: 'refuse', code: 'IMMUTABLE_PARAM', mentions: ['STORAGE_CLASS'] }],
    ['an immutable change is refused even with a version upgrade', applied, withValues({ STORAGE_CLASS: 'slow' }, { frameworkVersion: '2.0.0' }), { kind: 'refuse', code: 'IMMUTABLE_PARAM', mentions: ['STORAGE_CLASS'] }],
    ['a changed sensitive value is noticed through its hash', applied, withValues({ PASSWORD: 'hunter3' }), { kind: 'run', plan: 'update' }],
    ['changed files of the same version run update with a warning', applied, { ...base, frameworkHash: 'files-b' }, { kind: 'run', plan: 'update', warns: true }],
    ['changed files of the same version without update run deploy with a warning', applied, noUpdate({ ...base, frameworkHash: 'files-b' }), { kind: 'run', plan: 'deploy', warns: true }],
    ['a removed instance runs cleanup then removal', applied, { ...base, removed: true }, { kind: 'remove', cleanup: 'cleanup' }],
    ['a removed instance without cleanup plan is only removed', applied, { ...base, removed: true, plans: ['deploy'] }, { kind: 'remove', cleanup: undefined }],
    ['a new request runs its plan with its one-shot args', applied, { ...base, request: { id: 'r-2', plan: 'backup', args: { NAME: 'nightly' } } }, { kind: 'run', plan: 'backup', args: { NAME: 'nightly' } }],
    ['a request already handled runs nothing', applied, { ...base, request: { id: 'r-1', plan: 'backup', args: {} } }, { kind: 'nothing' }],
    ['a request for an undefined plan is refused', applied, { ...base, request: { id: 'r-3', plan: 'restore', args: {} } }, { kind: 'refuse', code: 'PLAN_UNKNOWN', mentions: ['restore'] }],
    ['an explicit request (baton apply --plan) runs in place of a value change, which stays pending', applied, withValues({ REPLICAS: 4 }, { request: { id: 'cli-1', plan: 'backup', args: {}, explicit: true } }), { kind: 'run', plan: 'backup', explicitOnly: true }],
    ['an explicit request on a new instance runs that plan and leaves deploy pending', undefined, { ...base, request: { id: 'cli-2', plan: 'backup', args: {}, explicit: true } }, { kind: 'run', plan: 'backup', explicitOnly: true }],
    ['an explicit deploy on a new instance is the deploy the change needs', undefined, { ...base, request: { id: 'cli-5', plan: 'deploy', args: {}, explicit: true } }, { kind: 'run', plan: 'deploy' }],
    ['an explicit request for the plan a value change triggers applies that change', applied, withValues({ MEMORY: '2Gi' }, { request: { id: 'cli-6', plan: 'resize', args: {}, explicit: true } }), { kind: 'run', plan: 'resize' }],
    ['an explicit request during a version upgrade leaves the upgrade pending', applied, { ...base, frameworkVersion: '1.3.0', request: { id: 'cli-7', plan: 'backup', args: {}, explicit: true } }, { kind: 'run', plan: 'backup', explicitOnly: true }],
    ['an explicit request with nothing changed runs that plan', applied, { ...base, request: { id: 'cli-8', plan: 'backup', args: { NAME: 'now' }, explicit: true } }, { kind: 'run', plan: 'backup', args: { NAME: 'now' }, explicitOnly: true }],
    ['an explicit request runs in place of conflicting value changes, which stay pending', applied, withValues({ MEMORY: '2Gi', BACKUP_BUCKET: 's3://b' }, { request: { id: 'cli-9', plan: 'backup', args: {}, explicit: true } }), { kind: 'run', plan: 'backup', explicitOnly: true }],
    ['an explicit request still respects a downgrade refusal', applied, { ...base, frameworkVersion: '1.1.0', request: { id: 'cli-10', plan: 'backup', args: {}, explicit: true } }, { kind: 'refuse', code: 'VERSION_DOWNGRADE', mentions: ['1.1.0'] }],
    ['an explicit request still respects an immutable parameter', applied, withValues({ STORAGE_CLASS: 'slow' }, { request: { id: 'cli-3', plan: 'deploy', args: {}, explicit: true } }), { kind: 'refuse', code: 'IMMUTABLE_PARAM', mentions: ['STORAGE_CLASS'] }],
    ['a value change is handled before a pending request', applied, withValues({ REPLICAS: 4 }, { request: { id: 'r-4', plan: 'backup', args: {} } }), { kind: 'run', plan: 'update' }],
  ])('%s', (_name, previous, desired, expected) => {
    // GIVEN the applied state and the desired state WHEN a plan is selected
    const selection: Selection = selectPlan(previous, desired);
    // THEN
    expect(selection.kind).toBe(expected.kind);
    if (selection.kind === 'run' && expected.kind === 'run') {
      expect(selection.plan).toBe(expected.plan);
      expect(selection.warnings.length > 0).toBe(expected.warns === true);
      expect(selection.args).toEqual(expected.args ?? {});
      expect(selection.explicitOnly === true).toBe(expected.explicitOnly === true);
    }
    if (selection.kind === 'refuse' && expected.kind === 'refuse') {
      expect(selection.code).toBe(expected.code);
      for (const m of expected.mentions) expect(selection.message).toContain(m);
    }
    if (selection.kind === 'remove' && expected.kind === 'remove') expect(selection.cleanupPlan).toBe(expected.cleanup);
  });

  it('keeps sensitive values only as hashes in the stored form', () => {
    const stored = desiredStoredValues(base);
    expect(stored['PASSWORD']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain('hunter2');
    expect(stored['REPLICAS']).toBe('3');
  });

  it('ignores key order inside object values', () => {
    const a = { ...base, values: { ...base.values, REPLICAS: { a: 1, b: 2 } } };
    const b = { ...base, values: { ...base.values, REPLICAS: { b: 2, a: 1 } } };
    expect(selectPlan({ ...applied, values: desiredStoredValues(a) }, b).kind).toBe('nothing');
  });
});

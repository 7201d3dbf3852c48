/** `baton validate` on framework.yaml `recovery:` and `decommission:`: each bad declaration located (file, line, field). */
import { afterAll, describe, expect, it } from 'vitest';
import { validateRepository, type Problem } from '../../src/render/index.js';
import { miniRepo, testRenderer } from '../render/helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

const FW = 'frameworks/web/1.0.0/framework.yaml';
// Lines 1-12 are the framework; the declaration under test starts at line 13.
const fw = (extra: string): string =>
  `apiVersion: baton.dev/v1alpha1\nkind: Framework\nname: web\nversion: 1.0.0\ntasks:\n  - { name: main, kind: Apply, resources: [main.yaml.ejs] }\nplans:\n  deploy:\n    phases:\n      - name: main\n        steps:\n          - { name: main, tasks: [main] }\n${extra}`;

type Case = [string, string, Partial<Problem> & { message?: string }];
const cases: Case[] = [
  ['a permanent timeout not longer than the transient one', 'recovery:\n  transientTimeout: 10m\n  permanentTimeout: 5m\n', { code: 'RECOVERY_TIMEOUT_INVALID', line: 15, path: ['recovery', 'permanentTimeout'] }],
  ['a zero timeout', 'recovery:\n  transientTimeout: 0s\n', { code: 'RECOVERY_TIMEOUT_INVALID', line: 14 }],
  ['permanent: plan naming a plan that does not exist', 'recovery:\n  permanentTimeout: 5m\n  permanent: plan\n  plan: heal\n', { code: 'RECOVERY_PLAN_UNKNOWN', line: 16, path: ['recovery', 'plan'] }],
  ['permanent: plan without a recovery plan', 'recovery:\n  permanentTimeout: 5m\n  permanent: plan\n', { code: 'RECOVERY_PLAN_UNKNOWN', line: 15, path: ['recovery', 'permanent'] }],
  ['permanent: plan without a permanent timeout', 'recovery:\n  permanent: plan\n  plan: deploy\n', { code: 'RECOVERY_TIMEOUT_INVALID', line: 14 }],
  ['a plan with permanent: replace', 'recovery:\n  permanentTimeout: 5m\n  plan: deploy\n', { code: 'RECOVERY_PLAN_UNUSED', line: 15 }],
  ['a timeout that is not a duration', 'recovery:\n  transientTimeout: soon\n', { code: 'SCHEMA_VALUE', line: 14, path: ['recovery', 'transientTimeout'] }],
  ['an unknown permanent action', 'recovery:\n  permanent: reboot\n', { code: 'SCHEMA_VALUE', line: 14 }],
  ['maxPods of 0', 'recovery:\n  limits: { maxPods: 0 }\n', { code: 'SCHEMA_VALUE', line: 14 }],
  ['an unknown field', 'recovery:\n  transientTimout: 2m\n', { code: 'SCHEMA_UNKNOWN_FIELD', line: 14 }],
  ['decommission volumes that are neither keep nor delete', 'decommission:\n  volumes: shred\n', { code: 'SCHEMA_VALUE', line: 14, path: ['decommission', 'volumes'] }],
  ['a decommission plan that does not exist', 'decommission:\n  volumes: delete\n  plan: goodbye\n', { code: 'DECOMMISSION_PLAN_UNKNOWN', line: 15 }],
];

describe('validate recovery and decommission declarations', () => {
  it('GIVEN sound declarations THEN there is no problem', async () => {
    const files = { [FW]: fw('recovery:\n  transientTimeout: 2m\n  permanentTimeout: 10m\n  limits: { podInterval: 5m, maxActionsPerHour: 6, maxPods: 1 }\ndecommission:\n  volumes: delete\n  plan: deploy\n') };
    expect((await validateRepository(miniRepo(files), renderer)).problems).toEqual([]);
  });

  it.each(cases)('GIVEN %s THEN it is an error naming file, line and field', async (_name, extra, expected) => {
    const report = await validateRepository(miniRepo({ [FW]: fw(extra) }), renderer);
    expect(report.problems).toContainEqual(expect.objectContaining({ file: FW, severity: 'error', ...expected }));
  });
});

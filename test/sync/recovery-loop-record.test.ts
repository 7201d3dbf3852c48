/**
 * The pod pass decides outside the instance's worker, across waits (the request file, the framework,
 * the checkpoint, the pods): the record it decided with must still be the agent's when it hands the
 * work to the worker. A shard member that let go of the instance meanwhile and got it back has read
 * the record again from the branch (another member may have carried out the very request since): work
 * decided with the checkpoint of before would be done and recorded a second time. Driven with a fake
 * host and a checkpoint load the test holds (no cluster, no sleeps).
 */
import { describe, expect, it } from 'vitest';
import type { CommitTree } from '../../src/git/tree.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import type { InstanceReport } from '../../src/sync/agent.js';
import { RecoveryLoop, type RecoveryHost } from '../../src/sync/recovery-loop.js';
import type { InstanceRunDeps } from '../../src/sync/instance-run.js';
import { formatRequests } from '../../src/sync/request-file.js';
import type { DesiredInstance } from '../../src/sync/scan.js';
import type { InstanceStatus } from '../../src/sync/status-file.js';

const key = { namespace: 'shop', name: 'pods' };
const fingerprint = { instance: 'blob-instance', request: 'blob-request', framework: 'tree-framework' };

const statusRead = (): InstanceStatus => ({
  instance: key, framework: { name: 'web', version: '1.0.0' }, state: 'COMPLETE', observed: { ...fingerprint },
  sourceCommit: 'c0ffee', schedules: [], inventory: [], updatedAt: '2026-11-24T17:00:00.000Z',
} as unknown as InstanceStatus);

/** A pod pass over one instance with a pod-restart request; `load` stands for the checkpoint read. */
function podPass(status: () => InstanceStatus | undefined, load: () => Promise<void>): { loop: RecoveryLoop; input: Parameters<RecoveryLoop['pass']>[0]; started: string[] } {
  const checkpoint = { handledRequests: [], history: [] } as unknown as Checkpoint;
  const deps = {
    frameworks: { load: () => Promise.resolve({ ok: true, value: { decl: {} } }) },
    checkpoints: { load: async () => { await load(); return { checkpoint }; } },
  } as unknown as InstanceRunDeps;
  const started: string[] = [];
  const fake = (reason: string): Promise<InstanceReport> => { started.push(reason); return Promise.resolve({ instance: 'shop/pods', reason, outcome: { kind: 'nothing', message: 'fake' } }); };
  const host: RecoveryHost = {
    deps: () => deps, status, setStatus: () => undefined, busy: () => false,
    asWorker: (_key, reason) => fake(reason), runPlan: (_d, _r, reason) => fake(reason),
    log: () => undefined, now: () => new Date('2026-11-24T17:00:00Z'),
  };
  const requests = formatRequests([{ id: 'r1', action: 'pod-restart', pod: 'web-0', args: {}, requestedBy: 'Ada' }]);
  const tree = { readText: (path: string) => Promise.resolve(path === 'requests/shop/pods.yaml' ? requests : undefined) } as unknown as CommitTree;
  const desired: DesiredInstance = { key, file: 'instances/shop/pods.yaml', fingerprint, framework: { name: 'web', version: '1.0.0' }, schedules: [], valuesFrom: [], valuesFileIds: [] };
  return { loop: new RecoveryLoop(host), input: { commit: 'c0ffee', tree, desired: new Map([['shop/pods', desired]]) }, started };
}

describe('the pod pass and a record that changed while it decided', () => {
  it('GIVEN a pod request being decided WHEN the record is read again meanwhile (the member let go of the instance and got it back) THEN no pod work starts', async () => {
    let record = statusRead();
    let reached: () => void = () => undefined;
    const loading = new Promise<void>((r) => { reached = r; });
    let goOn: () => void = () => undefined;
    const resume = new Promise<void>((r) => { goOn = r; });
    const { loop, input, started } = podPass(() => record, async () => { reached(); await resume; });

    const pass = loop.pass(input);
    await loading;
    // The member let go of the instance and got it back: its record is the one read from the branch now.
    record = statusRead();
    goOn();
    await pass;
    expect(started).toEqual([]);
  });

  it('GIVEN a pod request being decided WHEN nothing changed meanwhile THEN the pod work starts (once)', async () => {
    const record = statusRead();
    const { loop, input, started } = podPass(() => record, () => Promise.resolve());
    await loop.pass(input);
    expect(started).toEqual(['pod-restart web-0 (request r1)']);
  });
});

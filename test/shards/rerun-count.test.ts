/**
 * The scale bench's count of completed steps applied again after a member is killed (bench/_rerun.ts,
 * issue #20): only real applies recorded after the checkpoints were read count, a drift dry run never
 * does, and the killed member's instances (taken over) are counted apart from the survivors' own.
 */
import { describe, expect, it } from 'vitest';
import { rerunAfterKill, type Snapshot } from '../../bench/_rerun.js';
import type { RecordedRequest } from '../helpers/recording-proxy.js';

const KILL = 10_000;
const READ = 12_000;
const keys = [{ namespace: 'ns-0', name: 'a' }, { namespace: 'ns-1', name: 'b' }, { namespace: 'ns-2', name: 'c' }];
const cm = (ns: string, name: string, query = ''): string => `/api/v1/namespaces/${ns}/configmaps/${name}${query}`;
const deploy = (ns: string, name: string, query = ''): string => `/apis/apps/v1/namespaces/${ns}/deployments/${name}${query}`;
const patch = (path: string, at: number): RecordedRequest => ({ method: 'PATCH', path, at });

// Both steps of every instance COMPLETE when the checkpoints were read.
const snapshot: Snapshot = { steps: new Map(keys.map((k) => [`${k.namespace}/${k.name}`, new Set(['config', 'app'])])), readAt: READ };

describe('the scale bench\'s count of completed steps applied again after a kill', () => {
  it('GIVEN the victim\'s instance a and the survivor\'s b and c WHEN the survivor dry-runs, finishes its own steps before the read and re-applies a taken-over step THEN only that apply counts as a re-run of the victim\'s', () => {
    const victim: RecordedRequest[] = [
      // agent 0 wrote a's checkpoint last before the kill: a is its instance.
      patch(cm('ns-0', 'baton-checkpoint-a', '?fieldManager=baton'), 1000),
    ];
    const survivor: RecordedRequest[] = [
      patch(cm('ns-1', 'baton-checkpoint-b'), 2000),
      { method: 'PUT', path: cm('ns-2', 'baton-checkpoint-c'), at: 3000 },
      // Its own instance b, applied between the kill and the read (its first run, not a re-run).
      patch(cm('ns-1', 'b', '?fieldManager=baton'), KILL + 500),
      patch(deploy('ns-1', 'b', '?fieldManager=baton'), KILL + 900),
      // The drift check's confirmation of c: a server-side dry run, nothing applied.
      patch(deploy('ns-2', 'c', '?fieldManager=baton&dryRun=All'), READ + 3000),
      // A real apply of a's completed app step after the takeover: a re-run.
      patch(deploy('ns-0', 'a', '?fieldManager=baton&force=true'), READ + 16_000),
      // Reads never count.
      { method: 'GET', path: cm('ns-0', 'a'), at: READ + 16_100 },
    ];
    const r = rerunAfterKill([victim, survivor], 0, KILL, keys, snapshot);
    expect(r).toMatchObject({ victimInstances: 1, victimApplies: 1, otherApplies: 0, dryRuns: 1, snapshotReadSeconds: 2 });
    expect(r.samples).toEqual(['/apis/apps/v1/namespaces/ns-0/deployments/a +18.0 s agent-1']);
  });

  it('GIVEN a step not COMPLETE when read WHEN it is applied after the takeover THEN it is no re-run (it was in flight at the kill)', () => {
    const partial: Snapshot = { steps: new Map([['ns-0/a', new Set(['config'])]]), readAt: READ };
    const victim = [patch(cm('ns-0', 'baton-checkpoint-a'), 1000)];
    const survivor = [patch(deploy('ns-0', 'a'), READ + 16_000), patch(cm('ns-0', 'a'), READ + 15_000)];
    expect(rerunAfterKill([victim, survivor], 0, KILL, keys, partial)).toMatchObject({ victimApplies: 1, otherApplies: 0, dryRuns: 0 });
  });
});

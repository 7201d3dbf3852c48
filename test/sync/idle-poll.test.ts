import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import isogit from 'isomorphic-git';
import type { SimpleGit } from 'simple-git';
import type { GitMirror } from '../../src/git/index.js';
import { ObjectStore } from '../../src/git/tree.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { instance, mirrorOf, outcomeKinds } from './fixtures.js';

/**
 * Issue #20: an idle poll (nothing new in Git, nothing due) costs what a bare `git fetch` costs. Proved
 * by counting what the poll does, not by timing it: one git process (the fetch), no object read from
 * the clone, no request to the cluster, no checkpoint read.
 */
describe('an idle poll of a settled repository', () => {
  let h: AgentHarness;
  let mirror: GitMirror | undefined;
  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`instances/ns-${i % 2}/app-${i}.yaml`] = instance({ VALUE: `v${i}` });
    h = await startAgentHarness({ files, mirror: (world) => (mirror = mirrorOf(world)) });
  }, 120_000);
  afterAll(() => h.stop());

  it('GIVEN every instance COMPLETE and its status pushed WHEN the agent polls again THEN the poll runs only `git fetch` and reads no object, checkpoint or API object', async () => {
    const first = await h.agent.pass();
    expect(Object.values(outcomeKinds(first))).toEqual(Array(6).fill('complete'));
    // The status commits moved the tip: one pass sees them (its own) and settles.
    expect((await h.agent.pass()).reports).toEqual([]);

    // The mirror's git runners: simple-git, and its direct spawn (the fetch): every git process the agent starts goes through one of them.
    const git = (mirror as unknown as { git: SimpleGit }).git;
    const gitRuns = vi.spyOn(git, 'raw');
    const directRuns = vi.spyOn(mirror as unknown as { direct: (operation: string, args: string[]) => Promise<string> }, 'direct');
    const objectReads = (['at', 'treeOfCommit', 'readTree', 'readBlob', 'entryAt'] as const).map((m) => vi.spyOn(ObjectStore.prototype, m));
    const checkpointReads = vi.spyOn(ConfigMapCheckpointStore.prototype, 'load');
    const apiCalls = (['get', 'list', 'create', 'patch', 'apply', 'delete'] as const).map((m) => vi.spyOn(h.client, m));
    // The fetched ref is a loose ref: read as one small file, not through isomorphic-git's ref resolution.
    const refResolutions = vi.spyOn(isogit, 'resolveRef');
    // Instances with no schedule are not walked for one at every poll (issue #20: 10,000 of them cost ~0.3 ms a poll).
    expect((h.agent as unknown as { nextRuns: Map<string, unknown> }).nextRuns.size).toBe(0);
    try {
      for (let i = 0; i < 3; i++) {
        const poll = await h.agent.pass();
        expect(poll.reports).toEqual([]);
      }
      expect(gitRuns).not.toHaveBeenCalled();
      expect(directRuns.mock.calls.map((c) => c[1][0])).toEqual(['fetch', 'fetch', 'fetch']);
      expect(objectReads.map((s) => s.mock.calls.length)).toEqual([0, 0, 0, 0, 0]);
      expect(checkpointReads).not.toHaveBeenCalled();
      expect(apiCalls.map((s) => s.mock.calls.length)).toEqual([0, 0, 0, 0, 0, 0]);
      expect(refResolutions).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }

    // Not a poll that never looks: a new commit is seen at once.
    await h.push({ 'instances/ns-0/app-0.yaml': instance({ VALUE: 'changed' }) }, 'change app-0');
    expect(outcomeKinds(await h.agent.pass())).toEqual({ 'ns-0/app-0': 'complete' });
  }, 120_000);
});

/**
 * Issue 20: one agent slowed down as instances accumulated, because its pod pass loaded and parsed
 * the instance's framework (framework.yaml, params.yaml, every template) once per instance at every
 * poll. GIVEN N deployed instances of one framework version WHEN the agent polls twice more THEN
 * its framework files are read at most once in all (a parsed version is kept by its content-addressed
 * tree id), and no instance's absent request file is looked up: per poll, the reads do not grow with N.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommitTree } from '../../src/git/tree.js';
import type { Agent } from '../../src/sync/agent.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { instance, outcomeKinds, webFramework } from './fixtures.js';

const N = 6;

describe('an agent polling N deployed instances', () => {
  let h: AgentHarness;
  let agent: Agent;

  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < N; i++) files[`instances/shop/site-${i}.yaml`] = instance({ VALUE: `v${i}` });
    h = await startAgentHarness({ files, message: `${N} web instances`, agent: { podCheckIntervalMs: 0 } });
    agent = h.agent;
    const kinds = outcomeKinds(await agent.pass());
    expect(Object.values(kinds)).toEqual(Array.from({ length: N }, () => 'complete'));
  }, 60_000);
  afterAll(() => h.stop());

  it('GIVEN N deployed instances WHEN the agent polls twice THEN the framework is read once at most, not once per instance per poll', async () => {
    // Calls through to the real read; the calls record the paths.
    const spy = vi.spyOn(CommitTree.prototype, 'read');
    let reads: string[];
    try {
      // Each poll runs the pod pass (the agent's status commits of the deploy move the branch).
      await agent.pass();
      await h.push({ 'README.md': 'notes\n' }, 'a file no instance reads');
      await agent.pass();
      reads = spy.mock.calls.map(([path]) => path);
    } finally {
      spy.mockRestore();
    }
    expect(reads.length).toBeGreaterThan(0);
    const frameworkFiles = Object.keys(webFramework()).length;
    const frameworkReads = reads.filter((p) => p.startsWith('frameworks/'));
    // Before the fix: framework.yaml, params.yaml and both templates for each of N instances at each of two polls.
    expect(frameworkReads.length).toBeLessThanOrEqual(frameworkFiles);
    // No request file exists: the scan's fingerprint says so, nothing looks it up per instance.
    expect(reads.filter((p) => p.startsWith('requests/'))).toEqual([]);
  });

  it('GIVEN a new instance WHEN the agent deploys it THEN its instance file is read twice at most (the scan, then once for all its renders), not once per render', async () => {
    const spy = vi.spyOn(CommitTree.prototype, 'read');
    let reads: string[];
    try {
      await h.push({ 'instances/shop/site-new.yaml': instance({ VALUE: 'new' }) }, 'one more instance');
      expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site-new': 'complete' });
      reads = spy.mock.calls.map(([path]) => path);
    } finally {
      spy.mockRestore();
    }
    // Before (issue #20): the plan render, each lifecycle plan's render for the inventory and the engine's
    // renders each read and parsed it again.
    expect(reads.filter((p) => p === 'instances/shop/site-new.yaml').length).toBeLessThanOrEqual(2);
  });
});

/**
 * Leadership fencing (issue #11 item 3) with a real paused leader: two agent processes, the leader
 * paused with SIGSTOP mid-plan until the other took over and completed the plan, then resumed with
 * SIGCONT. It must write nothing to the cluster or to Git from then on, and exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pausedLeader } from '../helpers/paused-leader.js';
import { agentWorld, gatedFramework, instance, type AgentWorld } from './fixtures.js';

describe('a leader paused past its renew deadline', () => {
  let world: AgentWorld;

  beforeAll(async () => {
    world = await agentWorld();
    for (const [path, text] of Object.entries(gatedFramework())) world.user.write(path, text);
    world.user.write('instances/fenced/app.yaml', instance({ VALUE: 'x' }).replace('framework: web', 'framework: gated'));
    world.user.commit('gated app');
    await world.user.push();
  });
  afterAll(async () => {
    await world.stop();
  });

  it('GIVEN a leader paused mid-plan while another agent took over and completed it WHEN it resumes THEN it writes nothing to the cluster or Git and exits 1', async () => {
    const result = await pausedLeader(world, 'fenced', 'app', 'once');
    expect(result.clusterWrites, result.logAfterResume.join('\n')).toEqual([]);
    expect(result.gitCommits).toEqual([]);
    expect(result.exitCode, result.logAfterResume.join('\n')).toBe(1);
    expect(result.logAfterResume.join('\n')).toMatch(/lost/);
  }, 180_000);
});

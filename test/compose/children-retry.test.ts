/**
 * A failed child and a new commit: a new commit retries every failed desired state once, and the child
 * (which has no instance file; its parent's plan runs it) must not be left waiting for a retry that only
 * a desired instance ever gets: the agent would never have an idle poll again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ObjectStore } from '../../src/git/tree.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API } from '../sync/fixtures.js';
import { deployAndUpdatePlans, storeFramework } from './plan-lines.js';

const plans = deployAndUpdatePlans;
const shop = (size: number): string => `${API}\nkind: Instance\nframework: app\nversion: 1.0.0\nparams: { DB_SIZE: ${size} }\n`;

const files: Record<string, string> = {
  // A size above 3 names the ConfigMap with an upper-case letter: the API server refuses it, the child fails.
  ...storeFramework('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-store<%= params.SIZE > 3 ? "-X" : "" %>\ndata:\n  size: "<%= params.SIZE %>"\n'),
  'frameworks/app/1.0.0/framework.yaml': [
    API, 'kind: Framework', 'name: app', 'version: 1.0.0', 'tasks:',
    '  - { name: db, kind: Instance, framework: store, version: "^1.0.0", resources: [db.yaml.ejs] }',
    ...plans(['{ name: db, tasks: [db] }']), '',
  ].join('\n'),
  'frameworks/app/1.0.0/params.yaml': '- { name: DB_SIZE, type: integer, default: 1 }\n',
  'frameworks/app/1.0.0/templates/db.yaml.ejs': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nmetadata:\n  name: <%= instance.name %>-db\nparams:\n  SIZE: <%= params.DB_SIZE %>\n',
  'instances/shop/shop.yaml': shop(5),
};

describe('a failed child and a new commit', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness({ files, message: 'a shop whose database child fails', agent: ({ client: kube }) => ({ valuesFor: () => ({ cluster: kube }) }) });
  });
  afterAll(() => h.stop());

  it('GIVEN the child failed WHEN a commit fixes the parent and everything completes THEN the agent polls idle again', async () => {
    await h.agent.pass();
    const failed = parseStatus((await h.gitFile('status/shop/shop-db.yaml')) ?? '', 'child');
    expect(failed.sync?.status).toBe('Failed');

    h.world.user.write('instances/shop/shop.yaml', shop(2));
    h.world.user.commit('a database size the store takes');
    await h.world.user.push();
    await h.agent.pass();
    // Its own status commits moved the tip: one more pass sees them and settles.
    await h.agent.pass();
    expect(parseStatus((await h.gitFile('status/shop/shop.yaml')) ?? '', 'parent').state).toBe('COMPLETE');
    expect(parseStatus((await h.gitFile('status/shop/shop-db.yaml')) ?? '', 'child').state).toBe('COMPLETE');

    // An idle poll reads nothing from the clone or the cluster; a pass still waiting to retry the child reads the tree again.
    const objectReads = (['at', 'treeOfCommit', 'readTree', 'readBlob', 'entryAt'] as const).map((m) => vi.spyOn(ObjectStore.prototype, m));
    const apiCalls = (['get', 'list', 'create', 'patch', 'apply', 'delete'] as const).map((m) => vi.spyOn(h.client, m));
    try {
      expect((await h.agent.pass()).reports).toEqual([]);
      expect((await h.agent.pass()).reports).toEqual([]);
      expect(objectReads.map((s) => s.mock.calls.length)).toEqual([0, 0, 0, 0, 0]);
      expect(apiCalls.map((s) => s.mock.calls.length)).toEqual([0, 0, 0, 0, 0, 0]);
    } finally {
      vi.restoreAllMocks();
    }
  }, 120_000);
});

/**
 * The agent's team wiring (sync/team.ts) without a cluster: notifications from baton.yaml subscribed to
 * the agent's outcome listener (delivered to a nock endpoint, masked, signed), tenant clients that
 * impersonate, and values read with the tenant's client; a missing credential leaves that notification out.
 */
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repositorySchema } from '../../src/render/schemas.js';
import { resolveSettings } from '../../src/sync/settings.js';
import { teamSetup } from '../../src/sync/team.js';
import { FakeKube } from '../plans/fake-client.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const decl = repositorySchema.parse({
  tenants: [{ name: 'shop', instances: ['instances/shop/*.yaml'], namespaces: ['shop'], serviceAccount: { namespace: 'baton-system', name: 'tenant-shop' } }],
  notifications: [
    { name: 'audit', type: 'webhook', url: 'https://hooks.example.com/baton', secret: { env: 'TEAM_TEST_HOOK_SECRET' }, events: ['plan-failed'], tenants: ['shop'] },
    { name: 'nokey', type: 'slack', url: { env: 'TEAM_TEST_UNSET' } },
  ],
});

describe('teamSetup', () => {
  it('delivers the agent outcomes to baton.yaml notifications, for the instance tenant, and gives tenants their own client', async () => {
    process.env.TEAM_TEST_HOOK_SECRET = 'hook-key';
    const logs: string[] = [];
    const bodies: unknown[] = [];
    nock('https://hooks.example.com').post('/baton', (b: unknown) => { bodies.push(b); return true; }).reply(204);
    const settings = resolveSettings({ repo: 'https://git.example.com/ops.git' }, {}, '/tmp');
    const team = await teamSetup(settings, decl, new FakeKube(), { url: 'http://127.0.0.1:1' }, (level, message) => logs.push(`${level} ${message}`));
    try {
      expect(logs).toContain('error baton.yaml notifications nokey: environment variable TEAM_TEST_UNSET is not set; this notification is off');
      const shop = team.agentOptions.clientFor?.({ namespace: 'shop', name: 'db' });
      const other = team.agentOptions.clientFor?.({ namespace: 'other', name: 'x' });
      expect(shop).toBeDefined();
      expect(shop).not.toBe(other);
      expect(team.agentOptions.valuesFor?.({ namespace: 'shop', name: 'db' }).cluster).toBe(shop);
      team.agentOptions.onInstanceOutcome?.({ instance: { namespace: 'shop', name: 'db' }, commit: 'c'.repeat(40), reason: 'new instance', outcome: { kind: 'failed', plan: 'deploy', message: 'Job failed' }, at: '2026-03-01T00:00:00Z' });
      team.agentOptions.onInstanceOutcome?.({ instance: { namespace: 'shop', name: 'db' }, commit: 'c'.repeat(40), reason: 'x', outcome: { kind: 'complete', plan: 'deploy' }, at: '2026-03-01T00:00:00Z' });
    } finally {
      await team.close();
      delete process.env.TEAM_TEST_HOOK_SECRET;
    }
    expect(bodies).toEqual([expect.objectContaining({ type: 'plan-failed', tenant: 'shop', instance: { namespace: 'shop', name: 'db' }, message: 'deploy failed: Job failed' })]);
  });
});

describe('age key settings', () => {
  it('take --age-key-secret or $BATON_AGE_KEY_SECRET as NAMESPACE/NAME and refuse anything else, naming the source', () => {
    expect(resolveSettings({ repo: 'https://g/x.git', ageKeySecret: 'baton-system/age' }, {}, '/tmp').ageKeySecret).toBe('baton-system/age');
    expect(resolveSettings({ repo: 'https://g/x.git' }, { BATON_AGE_KEY_SECRET: 'flux-system/sops-age' }, '/tmp').ageKeySecret).toBe('flux-system/sops-age');
    expect(() => resolveSettings({ repo: 'https://g/x.git' }, { BATON_AGE_KEY_SECRET: 'sops-age' }, '/tmp')).toThrow('$BATON_AGE_KEY_SECRET --age-key-secret: expected NAMESPACE/NAME of a Secret, got "sops-age"');
    expect(() => resolveSettings({ repo: 'https://g/x.git', ageKeyFile: '/nonexistent/keys.txt' }, {}, '/tmp')).toThrow('flag --age-key-file: expected an age key file');
  });
});

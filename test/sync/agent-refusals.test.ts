import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent, PassReport } from '../../src/sync/agent.js';
import { formatRequest } from '../../src/sync/request-file.js';
import { parseStatus } from '../../src/sync/status-file.js';
import type { WorkClone } from '../helpers/git-server.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API, instance, webFramework, outcomeKinds } from './fixtures.js';

/** Framework `web` at `version` with its main template replaced. */
function webWithMain(version: string, template: string): Record<string, string> {
  return { ...webFramework(version), [`frameworks/web/${version}/templates/main.yaml.ejs`]: template };
}

describe('the agent refuses bad content and keeps every request', () => {
  let h: AgentHarness;
  let client: HttpKubeClient;
  let user: WorkClone;
  let agent: Agent;
  const logged: string[] = [];

  beforeAll(async () => {
    h = await startAgentHarness({
      files: {
        // 1.1.0 loads fine but its template reads a parameter that does not exist.
        ...webWithMain('1.1.0', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.NOPE.value %>\n'),
        // 1.2.0 renders, but the API server rejects a label quoting the sensitive PASSWORD.
        ...webWithMain('1.2.0', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\n  labels:\n    pw: <%= params.PASSWORD + " !" %>\n'),
        'instances/shop/site.yaml': instance({ VALUE: 'one' }),
        'instances/shop/broken.yaml': instance({}, '1.1.0'),
        'instances/shop/leaky.yaml': instance({}, '1.2.0'),
        'instances/shop/mars.yaml': `${API}\nkind: Instance\nframework: web\nversion: 1.0.0\nschedules:\n  - { plan: backup, cron: "0 3 * * *", timezone: Mars/Olympus }\n`,
      },
      message: 'four instances, three of them bad',
      agent: { coalesceMs: 20, log: (_level, message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`) },
    });
    ({ client, user, agent } = h);
  });
  afterAll(() => h.stop());

  const outcomeOf = (r: PassReport, id: string): PassReport['reports'][number]['outcome'] | undefined => r.reports.find((x) => x.instance === id)?.outcome;
  const statusOf = async (name: string): Promise<ReturnType<typeof parseStatus>> => {
    await user.pull();
    return parseStatus(user.git('show', `HEAD:status/shop/${name}.yaml`), name);
  };
  const backupLabel = async (): Promise<string | undefined> =>
    ((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'site-backup' }))?.data as Record<string, string> | undefined)?.label;

  let first: PassReport;

  it('GIVEN a template that fails at render time WHEN polled THEN that instance is refused with the located problem, and the others still deploy', async () => {
    first = await agent.pass();
    expect(outcomeKinds(first)).toEqual({ 'shop/site': 'complete', 'shop/broken': 'refused', 'shop/leaky': 'failed', 'shop/mars': 'refused' });
    const broken = await statusOf('broken');
    expect(broken.state).toBe('REFUSED');
    expect(broken.refusal?.code).toBe('INVALID_CONTENT');
    expect(broken.refusal?.problems?.[0]).toMatch(/^frameworks\/web\/1\.1\.0\/templates\/main\.yaml\.ejs:\d+:\d+: /);
    expect(broken.refusal?.problems?.[0]).toContain('NOPE');
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'broken' }))).toBeUndefined();
  });

  it('GIVEN a schedule in an unknown time zone WHEN polled THEN the instance is refused with the problem, not silently unscheduled', async () => {
    const mars = await statusOf('mars');
    expect(mars.state).toBe('REFUSED');
    expect(mars.refusal?.code).toBe('INVALID_CONTENT');
    expect(mars.refusal?.problems).toEqual([expect.stringMatching(/^instances\/shop\/mars\.yaml:6:\d+: SCHEDULE_TIMEZONE_INVALID: .*"Mars\/Olympus"/)]);
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'mars' }))).toBeUndefined();
  });

  it('GIVEN an API error quoting a sensitive value WHEN the plan fails THEN the outcome, the log and the history show it masked', async () => {
    const failed = outcomeOf(first, 'shop/leaky');
    expect(failed).toMatchObject({ kind: 'failed', message: expect.stringContaining('Invalid value: "*** !"') as unknown });
    expect(JSON.stringify(failed)).not.toContain('hunter2-secret');
    expect(logged.join('\n')).toContain('shop/leaky: failed');
    expect(logged.join('\n')).not.toContain('hunter2-secret');
    await user.pull();
    expect(user.git('log', '--format=%B', '--', 'status/shop/leaky.yaml')).not.toContain('hunter2-secret');
    expect(user.git('show', 'HEAD:status/shop/leaky.yaml')).not.toContain('hunter2-secret');
  });

  it('GIVEN refused instances WHEN polled again THEN they are not looked at again', async () => {
    expect((await agent.pass()).reports).toEqual([]);
  });

  it('GIVEN a value change and a plan request in one commit WHEN polled three times THEN the value plan runs, then the requested plan once, then nothing', async () => {
    await user.pull();
    user.write('instances/shop/site.yaml', instance({ VALUE: 'two' }));
    user.write('requests/shop/site.yaml', formatRequest({ id: 'r-1', plan: 'backup', args: { LABEL: 'together' }, requestedAt: new Date().toISOString() }));
    user.commit('site value two, and a backup');
    await user.push();

    const valuePass = await agent.pass();
    expect(outcomeOf(valuePass, 'shop/site')).toEqual({ kind: 'complete', plan: 'deploy' });
    expect(await backupLabel()).toBeUndefined();
    const afterValue = await statusOf('site');
    expect(afterValue.handledRequests).not.toContain('r-1');
    expect(afterValue.observed.request).toBeUndefined();

    const requestPass = await agent.pass();
    expect(requestPass.reports.map((r) => [r.instance, r.reason, r.outcome])).toEqual([['shop/site', 'plan requested', { kind: 'complete', plan: 'backup' }]]);
    expect(await backupLabel()).toBe('together');
    const afterRequest = await statusOf('site');
    expect(afterRequest.handledRequests).toContain('r-1');
    expect(afterRequest.observed.request).toBeDefined();

    expect((await agent.pass()).reports).toEqual([]);
  });
});

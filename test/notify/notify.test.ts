/**
 * Notifications against HTTP endpoints played by nock: signed webhooks, Slack, GitHub commit statuses
 * and check runs, GitLab commit statuses; retries with backoff and Retry-After, no retry for 4xx, rate
 * limits, redaction of sensitive values and credentials, configuration from baton.yaml with
 * credentials from the environment or a Secret. Waits are recorded by an injected clock, never slept.
 */
import { createHmac } from 'node:crypto';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher, Notifier, buildProviders, type NotifyEvent, type RetryPolicy } from '../../src/notify/index.js';
import { fromOutcome } from '../../src/notify/events.js';
import { notificationSchema } from '../../src/render/schemas.js';
import { FakeKube } from '../plans/fake-client.js';

const event = (over: Partial<NotifyEvent> = {}): NotifyEvent => ({
  type: 'plan-failed', instance: { namespace: 'shop', name: 'db' }, plan: 'deploy',
  message: 'deploy failed: Job shop/migrate failed: password hunter2-secret rejected', commit: 'a'.repeat(40), at: '2026-03-01T03:00:00.000Z', ...over,
});

interface Harness {
  logs: { level: string; message: string; fields?: Record<string, unknown> }[];
  waits: number[];
  clock: { now: number };
  options: { log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void; retry: RetryPolicy; now: () => number; sleep: (ms: number) => Promise<void> };
}

function harness(attempts = 4): Harness {
  const h = { logs: [], waits: [], clock: { now: Date.parse('2026-03-01T03:00:00Z') } } as unknown as Harness;
  h.options = {
    log: (level, message, fields) => { h.logs.push({ level, message, ...(fields ? { fields } : {}) }); },
    retry: { attempts, baseMs: 1000, maxMs: 60_000 },
    now: () => h.clock.now,
    // Waiting is recorded and the clock moves on: no test sleeps.
    sleep: async (ms) => { h.waits.push(ms); h.clock.now += ms; },
  };
  return h;
}

async function providers(decls: unknown[], env: Record<string, string>, h: Harness, client?: FakeKube) {
  return buildProviders(decls.map((d) => notificationSchema.parse(d)), { env, namespace: 'baton-system', ...(client ? { client } : {}) }, h.options.log);
}

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

describe('generic webhook', () => {
  it('posts the event as JSON, signed over timestamp and body; one delivery id across retries', async () => {
    const h = harness();
    const seen: { headers: Record<string, string>; body: string }[] = [];
    nock('https://hooks.example.com').post('/baton').times(2).reply(function (_uri, body) {
      seen.push({ headers: this.req.headers, body: JSON.stringify(body) });
      return seen.length === 1 ? [503, 'busy'] : [204, ''];
    });
    const d = new Dispatcher(await providers([{ name: 'audit', type: 'webhook', url: 'https://hooks.example.com/baton', secret: { env: 'HOOK_SECRET' }, events: ['plan-failed'] }], { HOOK_SECRET: 'shh-hook-key' }, h), h.options);
    d.notify(event(), ['hunter2-secret']);
    expect(await d.drain()).toBe(true);
    expect(d.stats).toEqual({ delivered: 1, failed: 0, retried: 1 });
    const last = seen[1]!;
    const sig = createHmac('sha256', 'shh-hook-key').update(`${last.headers['x-baton-timestamp']}.${last.body}`).digest('hex');
    expect(last.headers['x-baton-signature-256']).toBe(`sha256=${sig}`);
    expect(last.headers['x-baton-event']).toBe('plan-failed');
    expect(seen[0]!.headers['x-baton-delivery']).toBe(last.headers['x-baton-delivery']);
    const body = JSON.parse(last.body) as NotifyEvent & { kind: string };
    expect(body.kind).toBe('Notification');
    expect(body.instance).toEqual({ namespace: 'shop', name: 'db' });
    expect(body.message).toBe('deploy failed: Job shop/migrate failed: password *** rejected');
    expect(h.waits).toHaveLength(1);
  });

  it('4xx is not retried: one logged error with the status, never the URL or the secret', async () => {
    const h = harness();
    const scope = nock('https://hooks.example.com').post('/baton').reply(404, 'no such hook');
    const d = new Dispatcher(await providers([{ name: 'audit', type: 'webhook', url: { env: 'HOOK_URL' }, secret: { env: 'HOOK_SECRET' }, events: ['plan-failed'] }], { HOOK_URL: 'https://hooks.example.com/baton', HOOK_SECRET: 'shh-hook-key' }, h), h.options);
    d.notify(event());
    await d.drain();
    expect(scope.isDone()).toBe(true);
    expect(d.stats).toEqual({ delivered: 0, failed: 1, retried: 0 });
    const error = h.logs.find((l) => l.level === 'error');
    expect(error?.message).toBe('notification audit (webhook webhook) of plan-failed for shop/db failed: HTTP 404: no such hook');
    expect(error?.fields).toMatchObject({ notification: 'audit', status: 404 });
    expect(JSON.stringify(h.logs)).not.toMatch(/hooks\.example\.com|shh-hook-key/);
  });

  it('an endpoint that is down is retried with growing backoff, then a logged failure; the next event still goes out', async () => {
    const h = harness(3);
    nock('https://down.example.com').post('/').times(3).replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    nock('https://down.example.com').post('/').reply(200, 'ok');
    const d = new Dispatcher(await providers([{ name: 'w', type: 'webhook', url: 'https://down.example.com/', secret: { env: 'S' }, events: ['plan-failed', 'refused'] }], { S: 'k' }, h), h.options);
    d.notify(event());
    d.notify(event({ type: 'refused', message: 'refused: bad value' }));
    await d.drain();
    expect(d.stats).toEqual({ delivered: 1, failed: 1, retried: 2 });
    expect(h.waits[1]!).toBeGreaterThan(h.waits[0]! * 0.9);
    expect(h.logs.filter((l) => l.level === 'warn').map((l) => l.message)[0]).toMatch(/ECONNREFUSED; retrying in \d+(\.\d)?s \(attempt 1 of 3\)/);
    expect(h.logs.find((l) => l.level === 'error')?.message).toMatch(/failed after 3 attempts: ECONNREFUSED/);
  });

  it('honours Retry-After on 429', async () => {
    const h = harness();
    nock('https://hooks.example.com').post('/').reply(429, 'slow down', { 'Retry-After': '42' });
    nock('https://hooks.example.com').post('/').reply(200);
    const d = new Dispatcher(await providers([{ name: 'w', type: 'webhook', url: 'https://hooks.example.com/', secret: { env: 'S' }, events: ['plan-failed'] }], { S: 'k' }, h), h.options);
    d.notify(event());
    await d.drain();
    expect(d.stats.delivered).toBe(1);
    expect(h.waits[0]).toBe(42_000);
  });
});

describe('Slack', () => {
  it('posts a message through @slack/webhook with sensitive values masked; retries a 429 after Retry-After', async () => {
    const h = harness();
    const bodies: string[] = [];
    nock('https://hooks.slack.com').post('/services/T000/B000/XXXX').reply(429, 'rate_limited', { 'Retry-After': '3' });
    nock('https://hooks.slack.com').post('/services/T000/B000/XXXX', (b: unknown) => { bodies.push(JSON.stringify(b)); return true; }).reply(200, 'ok');
    const d = new Dispatcher(await providers([{ name: 'ops', type: 'slack', url: { env: 'SLACK_URL' }, events: ['plan-failed'] }], { SLACK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX' }, h), h.options);
    d.notify(event(), ['hunter2-secret']);
    await d.drain();
    expect(d.stats).toEqual({ delivered: 1, failed: 0, retried: 1 });
    expect(h.waits[0]).toBe(3000);
    expect(bodies[0]).toContain('*shop/db*: plan failed (deploy)');
    expect(bodies[0]).toContain('password *** rejected');
    expect(bodies[0]).not.toContain('hunter2');
    expect(JSON.stringify(h.logs)).not.toContain('XXXX');
  });

  it('a 4xx from Slack (a revoked webhook) is a logged failure, not retried', async () => {
    const h = harness();
    nock('https://hooks.slack.com').post('/services/T/B/gone').reply(410, 'no_service');
    const d = new Dispatcher(await providers([{ name: 'ops', type: 'slack', url: { env: 'U' }, events: ['plan-failed'] }], { U: 'https://hooks.slack.com/services/T/B/gone' }, h), h.options);
    d.notify(event());
    await d.drain();
    expect(d.stats.failed).toBe(1);
    expect(h.logs.find((l) => l.level === 'error')?.message).toContain('HTTP 410: no_service');
  });
});

describe('GitHub', () => {
  const decl = { name: 'gh', type: 'github', repository: 'acme/ops', token: { env: 'GITHUB_TOKEN' }, events: ['plan-failed', 'plan-completed'], checkRuns: true };

  it('sets a commit status on the applied commit and creates a check run', async () => {
    const h = harness();
    let status: Record<string, unknown> = {};
    let check: Record<string, unknown> = {};
    const scope = nock('https://api.github.com', { reqheaders: { authorization: 'Bearer ghp_token123', 'x-github-api-version': '2022-11-28' } })
      .post(`/repos/acme/ops/statuses/${'b'.repeat(40)}`, (b: Record<string, unknown>) => { status = b; return true; }).reply(201, {})
      .post('/repos/acme/ops/check-runs', (b: Record<string, unknown>) => { check = b; return true; }).reply(201, {});
    const d = new Dispatcher(await providers([decl], { GITHUB_TOKEN: 'ghp_token123' }, h), h.options);
    d.notify(event({ type: 'plan-completed', message: 'deploy completed', commit: 'b'.repeat(40) }));
    await d.drain();
    expect(scope.isDone()).toBe(true);
    expect(status).toEqual({ state: 'success', context: 'baton/shop/db', description: 'deploy completed' });
    expect(check).toMatchObject({ name: 'baton shop/db', head_sha: 'b'.repeat(40), status: 'completed', conclusion: 'success' });
  });

  it('a check run refused with 403 (no GitHub App) turns check runs off after one warning; statuses go on', async () => {
    const h = harness();
    nock('https://api.github.com').post(/\/statuses\//).times(2).reply(201, {});
    nock('https://api.github.com').post('/repos/acme/ops/check-runs').reply(403, { message: 'Resource not accessible by personal access token' });
    const d = new Dispatcher(await providers([decl], { GITHUB_TOKEN: 'ghp_token123' }, h), h.options);
    d.notify(event());
    await d.drain();
    d.notify(event({ type: 'plan-completed', message: 'deploy completed' }));
    await d.drain();
    expect(nock.pendingMocks()).toEqual([]);
    expect(h.logs.filter((l) => l.message.includes('check runs are off'))).toHaveLength(1);
    expect(JSON.stringify(h.logs)).not.toContain('ghp_token123');
  });

  it("GitHub's rate limit (403 with no requests remaining) is retried after the reset time", async () => {
    const h = harness();
    // Real responses carry real time: the reset is 30-31 s from now (rounded up to a whole second, as GitHub sends it).
    const reset = Math.ceil(Date.now() / 1000) + 30;
    nock('https://api.github.com').post(/\/statuses\//).reply(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
    nock('https://api.github.com').post(/\/statuses\//).reply(201, {});
    const d = new Dispatcher(await providers([{ ...decl, checkRuns: false }], { GITHUB_TOKEN: 't' }, h), h.options);
    d.notify(event());
    await d.drain();
    expect(d.stats).toEqual({ delivered: 1, failed: 0, retried: 1 });
    // The wait is measured from the wall clock when the 403 is read: allow for a loaded machine between here and there.
    expect(h.waits[0]).toBeGreaterThanOrEqual(20_000);
    expect(h.waits[0]).toBeLessThanOrEqual(31_000);
  });

  it('an event without a commit sets no status', async () => {
    const h = harness();
    const d = new Dispatcher(await providers([decl], { GITHUB_TOKEN: 't' }, h), h.options);
    const { commit: _none, ...noCommit } = event();
    d.notify(noCommit);
    expect(await d.drain()).toBe(true);
    expect(d.stats.delivered).toBe(0);
  });
});

describe('GitLab', () => {
  it('sets a commit status with PRIVATE-TOKEN on a self-hosted instance', async () => {
    const h = harness();
    let body: Record<string, unknown> = {};
    const scope = nock('https://git.example.com', { reqheaders: { 'private-token': 'glpat-1' } })
      .post(`/api/v4/projects/ops%2Fplatform/statuses/${'a'.repeat(40)}`, (b: Record<string, unknown>) => { body = b; return true; }).reply(201, {});
    const d = new Dispatcher(await providers([{ name: 'gl', type: 'gitlab', project: 'ops/platform', url: 'https://git.example.com', token: { env: 'GITLAB_TOKEN' }, events: ['plan-failed'] }], { GITLAB_TOKEN: 'glpat-1' }, h), h.options);
    d.notify(event(), ['hunter2-secret']);
    await d.drain();
    expect(scope.isDone()).toBe(true);
    expect(body).toMatchObject({ state: 'failed', name: 'baton/shop/db' });
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });
});

describe('dispatching', () => {
  it('keeps to perMinute: the third delivery in a minute waits for the window', async () => {
    const h = harness();
    nock('https://hooks.example.com').post('/').times(3).reply(200);
    const d = new Dispatcher(await providers([{ name: 'w', type: 'webhook', url: 'https://hooks.example.com/', secret: { env: 'S' }, events: ['plan-failed'], perMinute: 2 }], { S: 'k' }, h), h.options);
    for (let i = 0; i < 3; i++) d.notify(event());
    await d.drain();
    expect(d.stats.delivered).toBe(3);
    expect(h.waits).toEqual([60_000]);
  });

  it('sends only the events a provider chose, and only for its tenants', async () => {
    const h = harness();
    const scope = nock('https://hooks.example.com').post('/').reply(200);
    const d = new Dispatcher(await providers([{ name: 'w', type: 'webhook', url: 'https://hooks.example.com/', secret: { env: 'S' }, events: ['refused'], tenants: ['team-a'] }], { S: 'k' }, h), h.options);
    d.notify(event());
    d.notify(event({ type: 'refused', tenant: 'team-b' }));
    d.notify(event({ type: 'refused', tenant: 'team-a' }));
    await d.drain();
    expect(scope.isDone()).toBe(true);
    expect(d.stats.delivered).toBe(1);
  });

  it('a notification with a missing credential is off (logged); the others work; Secret credentials are read', async () => {
    const h = harness();
    const kube = new FakeKube();
    kube.objects.set('v1/Secret/baton-system/notify', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'notify', namespace: 'baton-system' }, data: { slack: Buffer.from('https://hooks.slack.com/services/A/B/C\n').toString('base64') } });
    const built = await providers([
      { name: 'broken', type: 'webhook', url: 'https://x.example.com/', secret: { env: 'MISSING' } },
      { name: 'ops', type: 'slack', url: { secret: { name: 'notify', key: 'slack' } } },
    ], {}, h, kube);
    expect(built.map((p) => p.name)).toEqual(['ops']);
    expect(h.logs[0]?.message).toBe('baton.yaml notifications broken: environment variable MISSING is not set; this notification is off');
  });

  it('the agent listener reports completed, failed and refused outcomes, not superseded or idle ones', async () => {
    const h = harness();
    const sent: string[] = [];
    nock('https://hooks.example.com').post('/').times(3).reply(200, function (_u, b) { sent.push((b as NotifyEvent).type); return ''; });
    const notifier = await Notifier.create([notificationSchema.parse({ name: 'w', type: 'webhook', url: 'https://hooks.example.com/', secret: { env: 'S' }, events: ['plan-completed', 'plan-failed', 'refused'] })], { env: { S: 'k' }, namespace: 'baton-system' }, { ...h.options, tenantOf: () => 'team-a' });
    const at = '2026-03-01T03:00:00Z';
    for (const outcome of [{ kind: 'complete', plan: 'deploy' }, { kind: 'superseded', plan: 'deploy' }, { kind: 'failed', plan: 'backup', message: 'x' }, { kind: 'nothing', message: 'n' }, { kind: 'refused', message: 'r' }] as const) {
      notifier.onOutcome({ instance: { namespace: 'shop', name: 'db' }, commit: 'c'.repeat(40), outcome, at });
    }
    await notifier.drain();
    expect(sent).toEqual(['plan-completed', 'plan-failed', 'refused']);
    expect(fromOutcome({ kind: 'removed', message: 'gone' }, { namespace: 'a', name: 'b' }, undefined, at)).toBeUndefined();
  });

  it('a completed drift repair is reported as drift-repaired, a completed recovery as recovery-acted, a failed one as plan-failed', () => {
    const at = '2026-03-01T03:00:00Z';
    const i = { namespace: 'shop', name: 'db' };
    expect(fromOutcome({ kind: 'complete', plan: 'repair' }, i, undefined, at)?.type).toBe('drift-repaired');
    expect(fromOutcome({ kind: 'complete', plan: 'recovery' }, i, undefined, at)?.type).toBe('recovery-acted');
    expect(fromOutcome({ kind: 'failed', plan: 'repair', message: 'x' }, i, undefined, at)?.type).toBe('plan-failed');
    expect(fromOutcome({ kind: 'complete', plan: 'deploy' }, i, undefined, at)?.type).toBe('plan-completed');
  });
});

/**
 * Issue #11 item 10: an API error that quotes a sensitive value (as Kubernetes does, Go-quoted) never
 * reaches the checkpoint (the ConfigMap `baton plan status` prints in cluster mode) or an engine event in
 * any encoding: the engine masks before it saves or announces.
 */
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../src/plans/checkpoint.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { reconcile } from '../../src/plans/reconcile.js';
import { apiError, FakeKube } from './fake-client.js';
import { apply, cm, desired, INSTANCE, plan, step, testHooks } from './fixtures.js';

const SECRET = 'pa"ss\\wörd-9';
const GO_QUOTED = 'pa\\"ss\\\\wörd-9';

describe('sensitive values in engine messages', () => {
  it.each([
    ['a terminal error (422)', 422, 'Invalid', 'FATAL'],
    ['a transient error that outlives the step (500)', 500, 'InternalError', 'TIMEOUT'],
  ])('GIVEN %s quoting the value Go-quoted THEN neither the checkpoint nor any event holds it in any form', async (_name, code, reason) => {
    const kube = new FakeKube();
    kube.fault = (verb) => (verb === 'apply' ? apiError(code, reason, `Secret "db" is invalid: data.password: Invalid value: "${GO_QUOTED}": too weak`) : undefined);
    const store = new MemoryCheckpointStore();
    const events: EngineEvent[] = [];
    // The transient error outlives the step at its first attempt (its retry would come after the step's
    // deadline), so it ends as TIMEOUT quoting it. With a short backoff the deadline used to land at a
    // wall-clock moment: under load inside an attempt, and the timeout then named no error at all.
    const deploy = plan('deploy', [{ name: 'main', steps: [{ ...step('config', [apply(cm('a'))]), timeoutSeconds: 30 }] }]);
    const hooks = { ...testHooks, retryDelayMs: (f: Parameters<typeof testHooks.retryDelayMs>[0], attempt: number) => (testHooks.retryDelayMs(f, attempt) === undefined ? undefined : 60_000) };
    const result = await reconcile({
      client: kube,
      store,
      hooks,
      instance: INSTANCE,
      framework: 'redis',
      desired: desired({ plans: ['deploy'] }),
      render: async () => deploy,
      onEvent: (e) => events.push(e),
      sensitiveValues: [SECRET],
    });
    expect(result.kind === 'ran' && result.execution.outcome).toBe('failed');
    const saved = JSON.stringify((await store.load(INSTANCE))!.checkpoint);
    expect(saved).toContain('***');
    for (const text of [saved, JSON.stringify(events), JSON.stringify(result)]) {
      expect(text).not.toContain('wörd');
      expect(text).not.toContain('w\\u00f6rd');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createFaultInjector, FaultRuleError, parseFaultRules, parseFaultSpec, type FaultRuleInput } from '../../../src/cluster/faults/index.js';
import type { RequestInfo } from '../../../src/cluster/faults/index.js';

const listPods: RequestInfo = { verb: 'list', group: '', resource: 'pods', namespace: 'default' };
const watchPods: RequestInfo = { verb: 'watch', group: '', resource: 'pods', namespace: 'default' };
const createDeploy: RequestInfo = { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'prod', name: 'web' };

describe('fault injection decisions', () => {
  it.each<[string, FaultRuleInput[], RequestInfo, unknown]>([
    ['no rules let every request pass', [], listPods, { kind: 'pass' }],
    ['a 503 rule on pods answers 503', [{ resource: 'pods', error: 503, retryAfterSeconds: 2 }], listPods, { kind: 'error', code: 503, retryAfterSeconds: 2 }],
    ['a 429 rule defaults Retry-After to one second', [{ error: 429 }], listPods, { kind: 'error', code: 429, retryAfterSeconds: 1 }],
    ['a 500 never carries Retry-After', [{ error: 500, retryAfterSeconds: 5 }], listPods, { kind: 'error', code: 500 }],
    ['an error with latency is delayed first', [{ error: 500, latencyMs: 30 }], listPods, { kind: 'error', code: 500, delayMs: 30 }],
    ['a latency-only rule delays', [{ verb: 'list', latencyMs: 40 }], listPods, { kind: 'delay', ms: 40 }],
    ['a rule for another verb does not match', [{ verb: 'create', error: 500 }], listPods, { kind: 'pass' }],
    ['a rule for another group does not match', [{ group: 'apps', error: 500 }], listPods, { kind: 'pass' }],
    ['a list of verbs matches any of them', [{ verb: ['get', 'create'], error: 500 }], createDeploy, { kind: 'error', code: 500 }],
    ['a namespace rule ignores other namespaces', [{ namespace: 'prod', error: 503 }], listPods, { kind: 'pass' }],
    ['a name rule matches the named object', [{ name: 'web', error: 503 }], createDeploy, { kind: 'error', code: 503 }],
    ['a drop rule cuts watches', [{ resource: 'pods', dropWatchAfterMs: 50 }], watchPods, { kind: 'drop-watch', afterMs: 50 }],
    ['a drop-only rule leaves lists alone', [{ resource: 'pods', dropWatchAfterMs: 50 }], listPods, { kind: 'pass' }],
    ['rate 0 never fires', [{ error: 500, rate: 0 }], listPods, { kind: 'pass' }],
    ['the first matching rule wins', [{ verb: 'list', latencyMs: 5 }, { error: 500 }], listPods, { kind: 'delay', ms: 5 }],
  ])('%s', (_name, rules, info, expected) => {
    // GIVEN an injector with the rules WHEN a request arrives THEN the decision is as expected
    expect(createFaultInjector(rules).intercept(info)).toEqual(expected);
  });

  it('a rule with a count stops after that many requests', () => {
    const injector = createFaultInjector([{ error: 503, count: 2 }]);
    const kinds = Array.from({ length: 4 }, () => injector.intercept(listPods).kind);
    expect(kinds).toEqual(['error', 'error', 'pass', 'pass']);
    expect(injector.rules()[0]?.hits).toBe(2);
  });

  it('a rate applies to about that share of requests, the same way for the same seed', () => {
    const roll = (seed: number): boolean[] => {
      const injector = createFaultInjector([{ error: 500, rate: 0.3 }], { seed });
      return Array.from({ length: 1000 }, () => injector.intercept(listPods).kind === 'error');
    };
    const first = roll(7);
    const failed = first.filter(Boolean).length;
    expect(failed).toBeGreaterThan(240);
    expect(failed).toBeLessThan(360);
    expect(roll(7)).toEqual(first);
    expect(roll(8)).not.toEqual(first);
  });
});

describe('fault rule validation', () => {
  it.each<[string, unknown, string]>([
    ['an unknown error code', [{ error: 404 }], 'rules[0].error'],
    ['a rate above one', [{ error: 500, rate: 2 }], 'rules[0].rate'],
    ['an unknown verb', [{ verb: 'explode', error: 500 }], 'rules[0].verb'],
    ['an unknown field', [{ error: 500, colour: 'red' }], 'rules[0]'],
    ['a rule with no effect', [{ verb: 'list' }], 'at least one effect'],
    ['not a list', { error: 500 }, 'rules'],
  ])('refuses %s, naming the field', (_name, input, fragment) => {
    expect(() => parseFaultRules(input, '--fault')).toThrow(FaultRuleError);
    expect(() => parseFaultRules(input, '--fault')).toThrow(fragment);
  });
});

describe('the /baton-sim/faults admin endpoint', () => {
  it('GIVEN no rules WHEN POST adds one THEN requests fail and GET lists it with its hits', () => {
    const injector = createFaultInjector();
    expect(injector.handle('POST', { resource: 'pods', error: 503 })).toMatchObject({ status: 200 });
    expect(injector.intercept(listPods)).toMatchObject({ kind: 'error', code: 503 });
    expect(injector.handle('GET', undefined)).toEqual({ status: 200, body: { rules: [expect.objectContaining({ resource: 'pods', error: 503, hits: 1, id: 1 })] } });
  });

  it('PUT replaces the rules and DELETE clears them', () => {
    const injector = createFaultInjector([{ error: 500 }]);
    injector.handle('PUT', { rules: [{ verb: 'create', error: 429 }], seed: 3 });
    expect(injector.intercept(listPods)).toEqual({ kind: 'pass' });
    expect(injector.intercept(createDeploy)).toMatchObject({ kind: 'error', code: 429 });
    injector.handle('DELETE', undefined);
    expect(injector.intercept(createDeploy)).toEqual({ kind: 'pass' });
  });

  it.each<[string, string, unknown, number]>([
    ['a bad rule', 'POST', { rules: [{ error: 418 }] }, 400],
    ['a body that is not JSON object', 'PUT', 'nonsense', 400],
    ['a non-integer seed', 'PUT', { rules: [], seed: 1.5 }, 400],
    ['an unsupported method', 'PATCH', {}, 405],
  ])('answers %s with a clear error', (_name, method, body, status) => {
    const injector = createFaultInjector([{ error: 500 }]);
    const answer = injector.handle(method, body);
    expect(answer.status).toBe(status);
    expect(answer.body).toHaveProperty('message');
    // and the previous rules stay in force
    expect(injector.intercept(listPods)).toMatchObject({ kind: 'error', code: 500 });
  });
});

describe('the command-line form of a rule', () => {
  it.each<[string, string, unknown]>([
    ['an error with a rate', 'resource=pods,error=503,rate=0.5', { resource: 'pods', error: 503, rate: 0.5 }],
    ['a list of verbs', 'verb=list|watch,latencyMs=20', { verb: ['list', 'watch'], latencyMs: 20, rate: 1 }],
    ['the core group written empty', 'group=,resource=pods,dropWatchAfterMs=100', { group: '', resource: 'pods', dropWatchAfterMs: 100, rate: 1 }],
  ])('reads %s', (_name, spec, expected) => {
    expect(parseFaultSpec(spec)).toEqual(expected);
  });

  it.each([['error=503,oops'], ['error=abc'], ['verb=list']])('refuses %s', (spec) => {
    expect(() => parseFaultSpec(spec)).toThrow(FaultRuleError);
  });
});

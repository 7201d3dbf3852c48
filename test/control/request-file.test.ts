import { describe, expect, it } from 'vitest';
import { appendRequest, formatRequest, formatRequests, parseRequestFile, REQUESTS_KEPT, triggerOf, type OperatorRequest } from '../../src/sync/request-file.js';

const file = 'requests/shop/zk.yaml';
const pause: OperatorRequest = { id: 'r-1', action: 'pause', plan: 'deploy', args: {}, reason: 'disk alarm', requestedBy: 'Ada <ada@example.com>' };

describe('request files', () => {
  it('GIVEN the legacy single PlanRequest WHEN parsed THEN it is one trigger request', () => {
    const legacy = 'apiVersion: baton.dev/v1alpha1\nkind: PlanRequest\nid: r-9\nplan: backup\nargs: {LABEL: x}\n';
    expect(parseRequestFile(legacy, file)).toEqual([{ id: 'r-9', action: 'trigger', plan: 'backup', args: { LABEL: 'x' } }]);
  });

  it('GIVEN requests written by formatRequests WHEN parsed back THEN they are the same, oldest first', () => {
    const text = formatRequests([pause, { id: 'r-2', action: 'force-complete', phase: 'main', step: 'zk-1', reason: 'node lost', args: {} }]);
    expect(parseRequestFile(text, file).map((r) => `${r.id}:${r.action}`)).toEqual(['r-1:pause', 'r-2:force-complete']);
    expect(parseRequestFile(text, file)[0]).toEqual(pause);
  });

  it('GIVEN a file WHEN a request is appended THEN earlier ones stay, the newest REQUESTS_KEPT are kept and a reused id is refused', () => {
    let text: string | undefined;
    for (let i = 0; i < REQUESTS_KEPT + 3; i++) text = appendRequest(text, file, { ...pause, id: `r-${i}` });
    const ids = parseRequestFile(text ?? '', file).map((r) => r.id);
    expect(ids).toHaveLength(REQUESTS_KEPT);
    expect(ids.at(-1)).toBe(`r-${REQUESTS_KEPT + 2}`);
    expect(() => appendRequest(text, file, { ...pause, id: `r-${REQUESTS_KEPT + 2}` })).toThrow(/already in the file/);
  });

  it('GIVEN several triggers WHEN selection asks THEN the newest trigger is the one that runs', () => {
    const text = formatRequests([{ id: 'a', action: 'trigger', plan: 'backup', args: {} }, pause, { id: 'b', action: 'trigger', plan: 'restore', args: { FROM: 'x' } }]);
    expect(triggerOf(parseRequestFile(text, file))).toEqual({ id: 'b', plan: 'restore', args: { FROM: 'x' } });
    expect(triggerOf([pause])).toBeUndefined();
    expect(parseRequestFile(formatRequest({ id: 'c', plan: 'backup', args: {}, requestedAt: 'now' }), file)[0]?.action).toBe('trigger');
  });

  it.each([
    ['force-complete without a reason', { id: 'x', action: 'force-complete', phase: 'main', step: 's' }, /requests\.0\.reason: action force-complete requires reason/],
    ['a trigger without a plan', { id: 'x', action: 'trigger' }, /requests\.0\.plan: action trigger requires plan/],
    ['a pause with arguments', { id: 'x', action: 'pause', args: { A: 'b' } }, /requests\.0\.args: action pause takes no args/],
    ['a step without its phase', { id: 'x', action: 'restart', step: 's' }, /requests\.0\.step: a step is named within its phase/],
    ['an unknown action', { id: 'x', action: 'explode' }, /requests\.0\.action/],
    ['an unknown field', { id: 'x', action: 'pause', force: true }, /requests\.0/],
  ])('GIVEN %s WHEN parsed THEN the error names the file and the field', (_name, request, message) => {
    const text = JSON.stringify({ apiVersion: 'baton.dev/v1alpha1', kind: 'Requests', requests: [request] });
    expect(() => parseRequestFile(text, file)).toThrow(new RegExp(`^${file}: field`));
    expect(() => parseRequestFile(text, file)).toThrow(message);
  });

  it('GIVEN two requests with one id WHEN parsed THEN it is an error naming both places', () => {
    const text = JSON.stringify({ apiVersion: 'baton.dev/v1alpha1', kind: 'Requests', requests: [{ id: 'x', action: 'pause' }, { id: 'x', action: 'resume' }] });
    expect(() => parseRequestFile(text, file)).toThrow(/requests\.1\.id: id x is used twice \(also requests\[0\]\)/);
  });
});

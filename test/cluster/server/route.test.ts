import { describe, expect, it } from 'vitest';
import { managerFromUserAgent, parseBool, parsePath } from '../../../src/cluster/server/route.js';

describe('reading request paths like kube-apiserver', () => {
  it.each([
    ['a namespaced collection', '/api/v1/namespaces/ns/pods', { group: '', version: 'v1', resource: 'pods', namespace: 'ns', legacyWatch: false }],
    ['a named object in a group', '/apis/apps/v1/namespaces/ns/deployments/web', { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'web', legacyWatch: false }],
    ['a subresource', '/apis/apps/v1/namespaces/ns/deployments/web/scale', { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'web', subresource: 'scale', legacyWatch: false }],
    ['the namespace object itself', '/api/v1/namespaces/ns', { group: '', version: 'v1', resource: 'namespaces', name: 'ns', legacyWatch: false }],
    ['a namespace status', '/api/v1/namespaces/ns/status', { group: '', version: 'v1', resource: 'namespaces', name: 'ns', subresource: 'status', legacyWatch: false }],
    ['a cluster-wide list', '/apis/apps/v1/deployments', { group: 'apps', version: 'v1', resource: 'deployments', legacyWatch: false }],
    ['a legacy watch path', '/api/v1/watch/namespaces/ns/configmaps', { group: '', version: 'v1', resource: 'configmaps', namespace: 'ns', legacyWatch: true }],
  ])('GIVEN %s (%s) THEN it names the resource', (_n, path, expected) => {
    expect(parsePath(path)).toEqual({ kind: 'resource', path: expected });
  });

  it.each([
    ['/api/v1', { kind: 'groupVersion', group: '', version: 'v1' }],
    ['/apis/apps/v1', { kind: 'groupVersion', group: 'apps', version: 'v1' }],
    ['/apis/apps', { kind: 'group', group: 'apps' }],
    ['/metrics', { kind: 'other' }],
  ])('GIVEN %s THEN it is a discovery or other path', (path, expected) => {
    expect(parsePath(path)).toEqual(expected);
  });

  it.each([
    ['true', true], ['True', true], ['1', true], ['t', true],
    ['false', false], ['False', false], ['0', false], ['', false],
    ['yes', undefined],
  ])('parses the boolean %j as Go strconv.ParseBool does: %s', (raw, expected) => {
    expect(parseBool(raw)).toBe(expected);
  });

  it.each([
    ['kubectl-client-side-apply/v1.33.1 (linux/amd64) kubernetes/8adc0f0', 'kubectl-client-side-apply'],
    ['kubectl-label/v1.27.16 (linux/amd64) kubernetes/cbb86e0', 'kubectl-label'],
    [undefined, 'unknown'],
  ])('derives the Update field manager from the User-Agent %j: %s', (ua, expected) => {
    expect(managerFromUserAgent(ua)).toBe(expected);
  });
});

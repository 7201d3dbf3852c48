/** Small pure pieces: batch order, masking, problem formatting, versions and durations. */
import { describe, expect, it } from 'vitest';
import { compareSemver, formatProblems, latestVersion, maskSensitive, orderBatch, parseDuration, type BatchAction } from '../../src/render/index.js';

const apply = (kind: string, name: string): BatchAction => ({ action: 'apply', object: { apiVersion: 'v1', kind, metadata: { name } }, task: 't', template: 'x', force: false });
const del = (kind: string, name: string): BatchAction => ({ action: 'delete', object: { apiVersion: 'v1', kind, metadata: { name } }, task: 't', template: 'x' });
const label = (a: BatchAction): string => `${a.action} ${a.object.kind}/${a.object.metadata.name ?? ''}`;

describe('orderBatch', () => {
  it('puts Namespaces and CRDs first, then kinds in install order, unknown kinds last, ties by name', () => {
    const batch = [apply('Widget', 'w'), apply('StatefulSet', 's'), apply('Service', 'b'), apply('Service', 'a'), apply('ConfigMap', 'c'), apply('CustomResourceDefinition', 'crd'), apply('Namespace', 'ns')];
    expect(orderBatch(batch).map(label)).toEqual([
      'apply Namespace/ns',
      'apply CustomResourceDefinition/crd',
      'apply ConfigMap/c',
      'apply Service/a',
      'apply Service/b',
      'apply StatefulSet/s',
      'apply Widget/w',
    ]);
  });

  it('runs deletions before applies, in reverse install order', () => {
    expect(orderBatch([apply('Job', 'j'), del('ConfigMap', 'c'), del('Job', 'j')]).map(label)).toEqual(['delete Job/j', 'delete ConfigMap/c', 'apply Job/j']);
  });
});

describe('maskSensitive', () => {
  it.each([
    ['a whole value', 'hunter2', '***'],
    ['a substring of a longer text', 'password=hunter2;', 'password=***;'],
    ['the base64 form', 'aHVudGVyMg==', '***'],
    ['nothing else', 'hunter', 'hunter'],
  ])('masks %s', (_name, input, expected) => {
    expect(maskSensitive(input, ['hunter2'])).toBe(expected);
  });

  it('masks inside objects and lists without touching keys, returning a copy', () => {
    const input = { hunter2: ['x hunter2 y', { data: 'aHVudGVyMg==' }], n: 1 };
    expect(maskSensitive(input, ['hunter2'])).toEqual({ hunter2: ['x *** y', { data: '***' }], n: 1 });
    expect(input.hunter2[0]).toBe('x hunter2 y');
  });

  it('does not blank out unrelated text for a very short value, but masks it whole', () => {
    expect(maskSensitive({ a: 'abc', b: 'xabcx' }, ['abc'])).toEqual({ a: '***', b: 'xabcx' });
  });
});

describe('formatProblems', () => {
  it('shows file, line, column, code, the offending line with a caret, and a summary', () => {
    const text = formatProblems(
      [
        { code: 'PARAM_TYPE', severity: 'error', file: 'instances/a/b.yaml', line: 2, column: 7, path: ['params', 'X'], message: 'parameter X must be of type integer' },
        { code: 'TASK_UNUSED', severity: 'warning', file: 'f.yaml', line: 0, column: 0, path: [], message: 'task t is not used' },
      ],
      { sources: new Map([['instances/a/b.yaml', 'params:\n  X: abc\n']]) },
    );
    expect(text).toBe(
      'f.yaml: warning TASK_UNUSED: task t is not used\n' +
        'instances/a/b.yaml:2:7: error PARAM_TYPE: parameter X must be of type integer (at params.X)\n' +
        '    2 |   X: abc\n' +
        '      |       ^\n' +
        '1 error, 1 warning\n',
    );
  });
});

describe('versions and durations', () => {
  it.each([
    ['1.2.0', '1.10.0', -1],
    ['2.0.0', '2.0.0-rc.1', 1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
    ['1.0.0-rc.2', '1.0.0-rc.10', -1],
    ['1.0.0', '1.0.0', 0],
  ])('compareSemver(%s, %s) is %i', (a, b, expected) => {
    expect(compareSemver(a, b)).toBe(expected);
  });

  it('latestVersion picks the highest by semver precedence', () => {
    expect(latestVersion(['1.9.0', '1.10.0', '1.10.0-rc.1'])).toBe('1.10.0');
  });

  it.each([
    ['90s', 90],
    ['10m', 600],
    ['1h30m', 5400],
    ['', undefined],
    ['10 minutes', undefined],
  ])('parseDuration(%j) is %s', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });
});

/**
 * Marathon placement constraints -> Kubernetes scheduling, one operator at a time, and the generated
 * templates call Baton's helpers directly, defining only what the sandbox lacks or means otherwise.
 */
import { describe, expect, it } from 'vitest';
import { placementToScheduling } from '../../src/import/dcos/placement.js';
import { FindingLog } from '../../src/import/report.js';
import { importKudo } from '../../src/import/index.js';
import { kudoPackage } from './support.js';

const at = { file: 'svc.yml', line: 3, column: 5 };

function run(text: string): { out: unknown; log: FindingLog } {
  const log = new FindingLog();
  return { out: JSON.parse(JSON.stringify(placementToScheduling(text, 'SEL', at, log))) as unknown, log };
}

describe('placement', () => {
  it.each([
    ['[["hostname", "UNIQUE"]]', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { js: 'SEL' } }, topologyKey: 'kubernetes.io/hostname' }] } } }],
    ['hostname:UNIQUE', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { js: 'SEL' } }, topologyKey: 'kubernetes.io/hostname' }] } } }],
    ['[["@zone", "GROUP_BY", "3"]]', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { js: 'SEL' } } }] }],
    ['[["hostname", "MAX_PER", "2"]]', { topologySpreadConstraints: [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { js: 'SEL' } } }] }],
    ['[["@region", "CLUSTER", "eu"]]', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/region', operator: 'In', values: ['eu'] }] }] } } } }],
    ['[["rack", "LIKE", "r1|r2"], ["disk", "UNLIKE", "hdd"]]', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1', 'r2'] }, { key: 'disk', operator: 'NotIn', values: ['hdd'] }] }] } } } }],
    ['', {}],
  ])('%s', (text, expected) => {
    expect(run(text).out).toEqual(expected);
  });

  it('reports a regular expression and an unknown operator as not translated, and nonsense as an error', () => {
    const { log } = run('[["rack", "LIKE", "r[0-9]+"], ["hostname", "SOMETIMES"]]');
    expect(log.findings.filter((f) => f.level === 'untranslated').map((f) => f.code)).toEqual(['IMPORT_DCOS_PLACEMENT_REGEX', 'IMPORT_DCOS_PLACEMENT_OPERATOR']);
    expect(run('[["hostname" "UNIQUE"]]').log.findings.map((f) => `${f.level} ${f.code}`)).toEqual(['error IMPORT_DCOS_PLACEMENT']);
  });
});

describe('function definitions in translated templates', () => {
  it("calls the sandbox's helpers by their Sprig names and defines only Go built-ins and Sprig meanings Baton lacks", () => {
    const r = importKudo(kudoPackage('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name | trimSuffix "-" }}\ndata:\n  a: {{ (split "," "x,y")._0 }}\n  b: {{ len "abc" }}\n  c: {{ default "d" "" }}\n'));
    const ejs = r.files.find((f) => f.path === 'templates/t.yaml.ejs')!.content;
    expect(ejs).toContain("<%= trimSuffix(\"-\", instance.name) %>");
    expect(ejs).toContain('const sprigSplit = ');
    expect(ejs).toContain('const goLen = ');
    expect(ejs).not.toMatch(/const (trimSuffix|dflt|empty) = /);
  });
});

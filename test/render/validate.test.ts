/**
 * `validateRepository` on a minimal repository with one change each: every validation code not covered by
 * the bad-input corpus, with its file and line.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { validateRepository, type Problem } from '../../src/render/index.js';
import { miniRepo, testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

const FW = 'frameworks/web/1.0.0/framework.yaml';
const PARAMS = 'frameworks/web/1.0.0/params.yaml';
const TPL = 'frameworks/web/1.0.0/templates/main.yaml.ejs';
const INST = 'instances/apps/site.yaml';
const fw = (extra: string, tasks = '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }'): string =>
  `apiVersion: baton.dev/v1alpha1\nkind: Framework\nname: web\nversion: 1.0.0\ntasks:\n${tasks}\nplans:\n  deploy:\n    phases:\n      - name: main\n        steps:\n          - { name: main, tasks: [main] }\n${extra}`;

type Case = [string, Record<string, string>, Partial<Problem>];
const cases: Case[] = [
  ['a framework whose name differs from its folder', { [FW]: fw('').replace('name: web', 'name: webby') }, { code: 'FRAMEWORK_NAME_MISMATCH', file: FW, line: 3 }],
  ['a framework whose version differs from its folder', { [FW]: fw('').replace('version: 1.0.0', 'version: 1.0.1') }, { code: 'FRAMEWORK_VERSION_MISMATCH', file: FW, line: 4 }],
  ['a task declared twice', { [FW]: fw('', '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }\n  - { name: main, kind: Delete, resources: [main.yaml.ejs] }') }, { code: 'TASK_DUPLICATE', file: FW, line: 7 }],
  ['a task no plan uses', { [FW]: fw('', '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }\n  - { name: spare, kind: Apply, resources: [main.yaml.ejs] }') }, { code: 'TASK_UNUSED', file: FW, line: 7, severity: 'warning' }],
  ['a Toggle task on an undeclared parameter', { [FW]: fw('', '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }\n  - { name: opt, kind: Toggle, parameter: NOPE, resources: [main.yaml.ejs] }') }, { code: 'TOGGLE_PARAM_UNKNOWN', file: FW, line: 7 }],
  ['a Toggle task on a string parameter', { [FW]: fw('', '  - { name: main, kind: Toggle, parameter: VALUE, resources: [main.yaml.ejs] }') }, { code: 'TOGGLE_PARAM_TYPE', file: FW, line: 6 }],
  ['a template no task names', { 'frameworks/web/1.0.0/templates/spare.yaml.ejs': 'a: 1\n' }, { code: 'TEMPLATE_UNUSED', file: 'frameworks/web/1.0.0/templates/spare.yaml.ejs', severity: 'warning' }],
  ['a parameter declared twice', { [PARAMS]: '- { name: VALUE, default: a }\n- { name: VALUE, default: b }\n' }, { code: 'PARAM_DUPLICATE', file: PARAMS, line: 2 }],
  ['a pattern that is not a regular expression', { [PARAMS]: '- name: VALUE\n  default: a\n  pattern: "[a-"\n' }, { code: 'PARAM_PATTERN_INVALID', file: PARAMS, line: 3 }],
  ['minimum above maximum', { [PARAMS]: '- { name: VALUE, default: v }\n- name: N\n  type: integer\n  default: 1\n  minimum: 5\n  maximum: 2\n' }, { code: 'PARAM_RANGE_INVALID', file: PARAMS, line: 5 }],
  ['a default of the wrong type', { [PARAMS]: '- name: VALUE\n  type: integer\n  default: many\n' }, { code: 'PARAM_DEFAULT_INVALID', file: PARAMS, line: 3 }],
  ['an enum value of the wrong type', { [PARAMS]: '- name: VALUE\n  default: a\n  enum: [a, 2]\n' }, { code: 'PARAM_ENUM_INVALID', file: PARAMS, line: 3 }],
  ['a parameter nothing reads', { [PARAMS]: '- { name: VALUE, default: v }\n- { name: UNREAD, default: x }\n' }, { code: 'PARAM_UNUSED', file: PARAMS, line: 2, severity: 'warning' }],
  ['a cron expression that does not parse', { [INST]: 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nschedules:\n  - plan: deploy\n    cron: "61 * * * *"\n' }, { code: 'SCHEDULE_CRON_INVALID', file: INST, line: 7 }],
  ['an instance of a framework that does not exist', { [INST]: 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: nope\nversion: 1.0.0\n' }, { code: 'INSTANCE_FRAMEWORK_UNKNOWN', file: INST, line: 3 }],
  ['a duplicate key in an instance file', { [INST]: 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nframework: web\nversion: 1.0.0\n' }, { code: 'YAML_SYNTAX', file: INST, line: 4 }],
  ['a required field missing', { [INST]: 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\n' }, { code: 'SCHEMA_REQUIRED', file: INST, path: ['version'] }],
  ['a framework version without framework.yaml', { 'frameworks/web/2.0.0/params.yaml': '[]\n' }, { code: 'FILE_MISSING', file: 'frameworks/web/2.0.0/framework.yaml' }],
  ['an output larger than 4 MiB', { [TPL]: '<%- "#".repeat(5 * 1024 * 1024) %>\n' }, { code: 'TEMPLATE_OUTPUT_LIMIT', file: TPL }],
  ['a step timeout that is not a duration', { [FW]: fw('').replace('tasks: [main] }', 'tasks: [main], timeout: soon }') }, { code: 'SCHEMA_VALUE', file: FW, line: 12, path: ['plans', 'deploy', 'phases', 0, 'steps', 0, 'timeout'] }],
  ['a task of an unknown kind', { [FW]: fw('', '  - { name: main, kind: Install, resources: [main.yaml.ejs] }') }, { code: 'SCHEMA_VALUE', file: FW, line: 6 }],
];

describe('validateRepository', () => {
  it('GIVEN the minimal repository THEN there is no problem at all', async () => {
    expect((await validateRepository(miniRepo(), renderer)).problems).toEqual([]);
  });

  it.each(cases)('GIVEN %s THEN reports it, located', async (_name, files, expected) => {
    const report = await validateRepository(miniRepo(files), renderer);
    expect(report.problems).toContainEqual(expect.objectContaining(expected));
    expect(report.ok).toBe((expected.severity ?? 'error') !== 'error');
  });

  it('collects every problem instead of stopping at the first', async () => {
    const report = await validateRepository(
      miniRepo({ [INST]: 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams:\n  VALUE: 1\n  OTHER: 2\nschedules:\n  - { plan: backup, cron: "0 0 31 2 *" }\n' }),
      renderer,
    );
    expect(report.problems.map((p) => `${p.code}@${p.line}`)).toEqual(['PARAM_TYPE@6', 'PARAM_UNKNOWN@7', 'SCHEDULE_PLAN_UNKNOWN@9', 'SCHEDULE_NEVER_FIRES@9']);
  });
});

describe('validateRepository: <%= %> tags in every YAML context (contextual escaping)', () => {
  const HEAD = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\n';

  it.each([
    ['the whole value of a key', 'data:\n  value: <%= params.VALUE %>\n'],
    ['a whole list item', 'finalizers:\n  - <%= params.VALUE %>\n'],
    ['text before and after the tag (natural style)', 'data:\n  value: pre-<%= params.VALUE %>-post # c\n'],
    ['two tags in one scalar', 'data:\n  value: <%= params.VALUE %>:<%= params.VALUE %>\n'],
    ['a tag inside a double-quoted string', 'data:\n  value: "x<%= params.VALUE %>"\n'],
    ['a flow list item with a prefix', 'finalizers: [a, b-<%= params.VALUE %>]\n'],
    ['scriptlet and comment lines, and a scalar whose tags an if/else picks between', '<% const v = params.VALUE + "-b"; -%>\n<%# a comment -%>\ndata:\n  value: <% if (v) { %><%= params.VALUE %><% } else { %><%= v %><% } %>\n'],
  ])('GIVEN %s THEN there is no problem at all (the old TEMPLATE_PARTIAL_SCALAR warning is gone)', async (_name, body) => {
    const report = await validateRepository(miniRepo({ [TPL]: HEAD + body }), renderer);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it.each<[string, string, [number, number]]>([
    ['a tag in an anchor', 'data:\n  value: &<%= params.VALUE %> x\n', [6, 11]],
    ['a tag alone where a key is expected', 'data:\n  a: b\n  <%= params.VALUE %>\n', [7, 3]],
    ['a tag that makes indentation', 'data:\n<%= params.VALUE %>  a: b\n', [6, 1]],
    ['a tag in a block scalar header', 'data:\n  value: | <%= params.VALUE %>\n    x\n', [6, 12]],
    ['a scriptlet that jumps out of a scalar', 'data:\n<% for (const x of [1]) { %>  value: a<%= x %><% if (x) break; %>b\n<% } %>\n', [6, 47]],
  ])('GIVEN %s THEN TEMPLATE_CONTEXT names file, line and column', async (_name, body, [line, column]) => {
    const report = await validateRepository(miniRepo({ [TPL]: HEAD + body }), renderer);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'TEMPLATE_CONTEXT', severity: 'error', file: TPL, line, column }));
  });
});

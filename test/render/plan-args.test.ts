/** Plan arguments declared in framework.yaml are checked before anything renders (render, apply, schedules). */
import { afterAll, describe, expect, it } from 'vitest';
import { renderInstancePlan, validateRepository } from '../../src/render/index.js';
import { miniRepo, testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

const FRAMEWORK = [
  'apiVersion: baton.dev/v1alpha1',
  'kind: Framework',
  'name: web',
  'version: 1.0.0',
  'tasks:',
  '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }',
  'plans:',
  '  deploy:',
  '    phases: [{ name: main, steps: [{ name: main, tasks: [main] }] }]',
  '  backup:',
  '    args:',
  '      - { name: TARGET, type: string, required: true, description: where the dump goes }',
  '      - { name: KEEP, type: integer, default: 3 }',
  '      - { name: MODE, type: string, enum: [full, incremental], default: full }',
  '      - { name: VERIFY, type: boolean }',
  '    phases: [{ name: main, steps: [{ name: main, tasks: [main] }] }]',
  '',
].join('\n');
const TEMPLATE = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n  args: <%= JSON.stringify(plan.args) %>\n';
const repo = (extra: Record<string, string> = {}) => miniRepo({ 'frameworks/web/1.0.0/framework.yaml': FRAMEWORK, 'frameworks/web/1.0.0/templates/main.yaml.ejs': TEMPLATE, ...extra });

async function render(plan: string, args: Record<string, string>) {
  return renderInstancePlan(repo(), 'instances/apps/site.yaml', { plan, args, renderer });
}

describe('plan arguments', () => {
  it('fills in defaults and passes the given ones as text', async () => {
    const r = await render('backup', { TARGET: 's3://b', VERIFY: 'true' });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const data = r.plan.phases[0]!.steps[0]!.actions[0]!.object.data as { args: string };
    expect(JSON.parse(data.args)).toEqual({ TARGET: 's3://b', VERIFY: 'true', KEEP: '3', MODE: 'full' });
  });

  it('passes rotate-generated, an argument Baton reads on any plan, without a declaration', async () => {
    const r = await render('deploy', { 'rotate-generated': 'PASSWORD' });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const data = r.plan.phases[0]!.steps[0]!.actions[0]!.object.data as { args: string };
    expect(JSON.parse(data.args)).toEqual({ 'rotate-generated': 'PASSWORD' });
  });

  it.each([
    ['an argument the plan does not take', 'deploy', { REPLICAS: 'abc' }, 'PLAN_ARG_UNKNOWN', 'argument REPLICAS: plan deploy of framework web 1.0.0 does not take it (arguments: none)'],
    ['an unknown argument beside declared ones', 'backup', { TARGET: 'x', KEPP: '2' }, 'PLAN_ARG_UNKNOWN', '(arguments: TARGET, KEEP, MODE, VERIFY)'],
    ['a missing required argument', 'backup', {}, 'PLAN_ARG_MISSING', 'argument TARGET is required by plan backup (where the dump goes): pass --arg TARGET=VALUE'],
    ['an integer that is not one', 'backup', { TARGET: 'x', KEEP: 'abc' }, 'PLAN_ARG_TYPE', 'argument KEEP: expected an integer such as 3 (type integer), got "abc"'],
    ['a boolean that is not one', 'backup', { TARGET: 'x', VERIFY: 'yes' }, 'PLAN_ARG_TYPE', 'expected true or false'],
    ['a value outside the enum', 'backup', { TARGET: 'x', MODE: 'partial' }, 'PLAN_ARG_ENUM', 'expected one of "full", "incremental", got "partial"'],
  ])('refuses %s before rendering, located in framework.yaml', async (_name, plan, args, code, message) => {
    const r = await render(plan, args);
    expect(r.ok).toBe(false);
    const found = r.problems.find((p) => p.code === code);
    expect(found?.message).toContain(message);
    expect(found?.file).toBe('frameworks/web/1.0.0/framework.yaml');
    expect(found?.line).toBeGreaterThan(0);
  });

  it('baton validate checks schedule args against the declaration and renders plans with required args', async () => {
    const instance = 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nschedules:\n  - { plan: backup, cron: "0 3 * * *", args: { TARGET: s3://b, KEEP: many } }\n';
    const report = await validateRepository(repo({ 'instances/apps/site.yaml': instance }), renderer);
    expect(report.problems.map((p) => [p.code, p.file, p.message])).toEqual([
      ['PLAN_ARG_TYPE', 'instances/apps/site.yaml', 'schedule 1: argument KEEP: expected an integer such as 3 (type integer), got "many"'],
    ]);
    const fine = await validateRepository(repo(), renderer);
    expect(fine.problems).toEqual([]);
  });

  it('baton validate refuses a declaration that contradicts itself', async () => {
    const bad = FRAMEWORK.replace('{ name: KEEP, type: integer, default: 3 }', '{ name: KEEP, type: integer, default: three }');
    const report = await validateRepository(repo({ 'frameworks/web/1.0.0/framework.yaml': bad }), renderer);
    expect(report.problems.map((p) => [p.code, p.message])).toContainEqual(['PLAN_ARG_DECLARATION', 'argument KEEP: "three" is not an integer such as 3 (type integer)']);
  });
});

/**
 * Shared helpers of the import tests: in-memory KUDO packages, and rendering an imported framework's
 * plan through Baton's real pipeline (sandbox, checks, enhancement).
 */
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { loadFramework, MemoryTree, renderPlan, resolveParams, type Renderer, type RenderedPlan } from '../../src/render/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { ImportResult, PackageFiles } from '../../src/import/index.js';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures/import');
export const KUDO_QUORUM = join(FIXTURES, 'kudo/quorum-0.1.0');
export const KUDO_ZOOKEEPER = join(FIXTURES, 'kudo/zookeeper-0.3.0');
export const DCOS_LEDGER = join(FIXTURES, 'dcos/ledger');

/** A KUDO package with one Apply task rendering `template` (templates/t.yaml) and the given parameters. */
export function kudoPackage(template: string, params: Record<string, unknown>[] = [], extra: Record<string, string> = {}): PackageFiles {
  const operator = {
    apiVersion: 'kudo.dev/v1beta1',
    name: 'probe',
    operatorVersion: '1.0.0',
    appVersion: '2.3.4',
    tasks: [{ name: 'main', kind: 'Apply', spec: { resources: ['t.yaml'] } }],
    plans: { deploy: { strategy: 'serial', phases: [{ name: 'main', strategy: 'serial', steps: [{ name: 'everything', tasks: ['main'] }] }] } },
  };
  return {
    source: 'probe',
    files: new Map(Object.entries({ 'operator.yaml': stringify(operator), 'params.yaml': stringify({ apiVersion: 'kudo.dev/v1beta1', parameters: params }), 'templates/t.yaml': template, ...extra })),
  };
}

export function treeOf(result: ImportResult): MemoryTree {
  const dir = `frameworks/${result.framework.name}/${result.framework.version}`;
  return new MemoryTree(Object.fromEntries(result.files.map((f) => [`${dir}/${f.path}`, f.content])));
}

export async function renderImported(renderer: Renderer, result: ImportResult, values: Record<string, unknown> = {}, plan = 'deploy'): Promise<RenderedPlan> {
  const loaded = await loadFramework(treeOf(result), result.framework.name, result.framework.version);
  if (!loaded.ok) throw new Error(loaded.problems.map((p) => `${p.file}:${p.line} ${p.code} ${p.message}`).join('\n'));
  const resolved = resolveParams(loaded.value.params, values);
  if (resolved.problems.some((p) => p.severity === 'error')) throw new Error(resolved.problems.map((p) => p.message).join('\n'));
  const r = await renderPlan({ framework: loaded.value, instance: { name: 'demo', namespace: 'ns1' }, params: resolved.values, sensitiveValues: resolved.sensitiveValues, plan, renderer });
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.file}:${p.line} ${p.code} ${p.message}`).join('\n'));
  return r.plan;
}

export function objectsOf(plan: RenderedPlan, kind?: string): KubeObject[] {
  return plan.phases.flatMap((p) => p.steps.flatMap((s) => s.actions.filter((a) => a.action === 'apply').map((a) => a.object))).filter((o) => kind === undefined || o.kind === kind);
}

export function errorsOf(result: ImportResult): string[] {
  return result.findings.filter((f) => f.level === 'error').map((f) => `${f.at.file}:${f.at.line}:${f.at.column} ${f.code}`);
}

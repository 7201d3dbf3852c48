/**
 * Shared fixtures of the catalog specifications: the catalog read as a repository (the Baton repository
 * root has `frameworks/` at the top, like a user's repository), the repo-template, and helpers that
 * render a plan and pick objects out of the RenderedPlan value.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DirectoryTree,
  loadFramework,
  renderPlan,
  resolveParams,
  type FileTree,
  type Framework,
  type Problem,
  type TreeEntry,
  type RenderedPlan,
  type Renderer,
} from '../../src/render/index.js';
import { isRecord, type KubeObject } from '../../src/kube/object.js';
import { placeholderValue } from '../../src/compose/generated/generate.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CATALOG_DIR = path.join(ROOT, 'frameworks');
export const TEMPLATE_DIR = path.join(ROOT, 'repo-template');
export const catalogTree = new DirectoryTree(ROOT);
/**
 * The repository `baton init` creates: repo-template/ with the catalog (frameworks/, its one copy) as
 * its frameworks/ folder.
 */
class TemplateRepositoryTree implements FileTree {
  private readonly template = new DirectoryTree(TEMPLATE_DIR);

  private inCatalog(p: string): boolean {
    const norm = p.replace(/^\.?\/?/, '');
    return norm === 'frameworks' || norm.startsWith('frameworks/');
  }

  read(p: string): Promise<Uint8Array | undefined> {
    return this.inCatalog(p) ? catalogTree.read(p) : this.template.read(p);
  }

  async list(dir: string): Promise<TreeEntry[]> {
    if (this.inCatalog(dir)) return catalogTree.list(dir);
    const entries = await this.template.list(dir);
    if (dir.replace(/^\.?\/?/, '') !== '') return entries;
    return [...entries, { name: 'frameworks', type: 'dir' as const }].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
export const templateTree: FileTree = new TemplateRepositoryTree();

export interface CatalogVersion {
  name: string;
  version: string;
  /** `zookeeper 1.0.0`, for test names. */
  label: string;
}

/** Every `frameworks/<name>/<version>` of the catalog, sorted. */
export function catalogVersions(): CatalogVersion[] {
  const dirs = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return dirs(CATALOG_DIR).flatMap((name) => dirs(path.join(CATALOG_DIR, name)).map((version) => ({ name, version, label: `${name} ${version}` })));
}

export async function loadCatalogFramework(v: CatalogVersion): Promise<Framework> {
  const loaded = await loadFramework(catalogTree, v.name, v.version);
  if (!loaded.ok) throw new Error(`${v.label} does not load:\n${formatProblems(loaded.problems)}`);
  return loaded.value;
}

export interface RenderRequest {
  framework: Framework;
  plan: string;
  values?: Record<string, unknown>;
  args?: Record<string, string>;
  instance?: { name: string; namespace: string };
}

export type Rendered = { ok: true; plan: RenderedPlan; problems: Problem[] } | { ok: false; problems: Problem[] };

/** Resolves the values (defaults when none) and renders one plan for instance `demo` in `catalog`. */
export async function render(renderer: Renderer, req: RenderRequest): Promise<Rendered> {
  // Generated parameters (kafka's passwords and cluster id) render with the placeholder of their shape,
  // as `baton validate` and `baton render` without a cluster do.
  const generated = Object.fromEntries(req.framework.params.filter((p) => p.generate !== undefined).map((p) => [p.name, placeholderValue(p.generate!)]));
  const resolved = resolveParams(req.framework.params, { ...generated, ...req.values });
  const args = { ...requiredArgSamples(req.framework, req.plan), ...req.args };
  if (resolved.problems.some((p) => p.severity === 'error')) return { ok: false, problems: resolved.problems };
  return renderPlan({
    framework: req.framework,
    instance: req.instance ?? { name: 'demo', namespace: 'catalog' },
    params: resolved.values,
    sensitiveValues: resolved.sensitiveValues,
    plan: req.plan,
    ...(Object.keys(args).length > 0 ? { args } : {}),
    renderer,
  });
}

/** A sample for each required plan argument without default (kafka's decommission takes POD=<a broker pod>). */
function requiredArgSamples(framework: Framework, plan: string): Record<string, string> {
  const instance = 'demo';
  const samples: Record<string, string> = { POD: `${instance}-broker-3` };
  const declared = framework.decl.plans[plan]?.args ?? [];
  return Object.fromEntries(declared.filter((a) => a.required && a.default === undefined).map((a) => [a.name, samples[a.name] ?? 'sample']));
}

/** Renders and fails the test with the problems when rendering does not succeed. */
export async function renderOk(renderer: Renderer, req: RenderRequest): Promise<RenderedPlan> {
  const result = await render(renderer, req);
  if (!result.ok) throw new Error(`${req.framework.name} ${req.framework.version} plan ${req.plan} does not render:\n${formatProblems(result.problems)}`);
  return result.plan;
}

export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.severity} ${p.code} ${p.file}:${p.line} ${p.message}`).join('\n');
}

/** Every action of a plan in order, with where it runs. */
export function actionsOf(plan: RenderedPlan): { phase: string; step: string; action: 'apply' | 'delete'; object: KubeObject }[] {
  return plan.phases.flatMap((phase) =>
    phase.steps.flatMap((step) => step.actions.map((a) => ({ phase: phase.name, step: step.name, action: a.action, object: a.object }))),
  );
}

export function objectsOf(plan: RenderedPlan, kind?: string): KubeObject[] {
  return actionsOf(plan)
    .filter((a) => a.action === 'apply' && (kind === undefined || a.object.kind === kind))
    .map((a) => a.object);
}

/** `Kind/name`, for readable expectations. */
export function ids(objects: readonly KubeObject[]): string[] {
  return objects.map((o) => `${o.kind}/${o.metadata.name ?? ''}`);
}

export interface PodTemplate {
  owner: KubeObject;
  labels: Record<string, string>;
  spec: Record<string, unknown>;
}

/** The pod templates of StatefulSets, Deployments and Jobs of a plan. */
export function podTemplates(plan: RenderedPlan): PodTemplate[] {
  return objectsOf(plan).flatMap((owner) => {
    const template = at(owner, ['spec', 'template']);
    if (!isRecord(template)) return [];
    const labels = at(template, ['metadata', 'labels']);
    const spec = at(template, ['spec']);
    return [{ owner, labels: isRecord(labels) ? (labels as Record<string, string>) : {}, spec: isRecord(spec) ? spec : {} }];
  });
}

export function containersOf(spec: Record<string, unknown>): Record<string, unknown>[] {
  const all = [...asArray(spec.initContainers), ...asArray(spec.containers)];
  return all.filter(isRecord);
}

export function at(value: unknown, keys: readonly string[]): unknown {
  let cur = value;
  for (const k of keys) {
    if (!isRecord(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * Rendered plans by their inputs, so unchanged inputs are never rendered twice: the agent renders a plan
 * before running it and again (with update/upgrade) to know what pruning keeps, on every reconcile of an
 * unchanged instance. The key is the framework version's content digest, the instance, the resolved
 * values, the plan and its arguments, and the step timeout default; nothing else reaches a render.
 * Only successful renders are kept (a timeout or a crashed worker must be retried). Callers get their
 * own copy, so nothing they do to a plan changes what the cache returns next.
 */
import { createHash } from 'node:crypto';
import { frameworkDigest } from './digest.js';
import type { Framework } from './model.js';
import type { RenderedPlan } from './types.js';

export interface RenderKeyInput {
  framework: Framework;
  instance: { name: string; namespace: string };
  params: Readonly<Record<string, unknown>>;
  plan: string;
  args?: Readonly<Record<string, string>>;
  stepTimeoutSeconds?: number;
  pipes?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/**
 * Digests by the loaded files they cover. Keyed by the framework.yaml source object, not the Framework: callers
 * pass copies (`{ ...framework, params }` with an instance's resolved declarations), and hashing every file of the
 * framework again for each copy cost more than some renders.
 */
const digests = new WeakMap<Framework['frameworkSource'], { templates: Framework['templates']; paramsSource: Framework['paramsSource']; digest: string }>();

/** The framework digest, computed once per loaded framework version. */
function digestOf(fw: Framework): string {
  const known = digests.get(fw.frameworkSource);
  if (known !== undefined && known.templates === fw.templates && known.paramsSource === fw.paramsSource) return known.digest;
  const digest = frameworkDigest(fw);
  digests.set(fw.frameworkSource, { templates: fw.templates, paramsSource: fw.paramsSource, digest });
  return digest;
}

export function renderKey(input: RenderKeyInput): string {
  const args = input.args ?? {};
  const sortedArgs = Object.keys(args).sort().map((k) => [k, args[k]]);
  return createHash('sha256')
    .update(JSON.stringify([digestOf(input.framework), input.framework.name, input.framework.version, input.instance.name, input.instance.namespace, input.params, input.plan, sortedArgs, input.stepTimeoutSeconds ?? null, input.pipes ?? null]))
    .digest('hex');
}

export class RenderCache {
  private readonly entries = new Map<string, RenderedPlan>();
  hits = 0;
  misses = 0;

  /** `capacity` 0 turns the cache off. */
  constructor(readonly capacity = 512) {}

  get(key: string): RenderedPlan | undefined {
    const plan = this.entries.get(key);
    if (plan === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Least recently used goes first: re-insert on every hit.
    this.entries.delete(key);
    this.entries.set(key, plan);
    return structuredClone(plan);
  }

  set(key: string, plan: RenderedPlan): void {
    if (this.capacity <= 0) return;
    this.entries.set(key, structuredClone(plan));
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

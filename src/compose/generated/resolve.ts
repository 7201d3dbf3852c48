/**
 * The values of an instance's generated parameters, worked out when its values are resolved:
 * - a value the instance gives itself (params, values files, valuesFrom) wins and nothing is generated;
 * - with a cluster (the agent, `baton apply`, `baton test`): the value kept in the instance's Secret,
 *   generated and stored first when missing, or regenerated when the run asks for its rotation;
 * - read-only (a removal, lenient commands that see a cluster): what the Secret holds, else a placeholder;
 * - without a cluster (validate, render, preview): a placeholder of the declared shape.
 * Every generated value is sensitive (masked everywhere, stored hashed in the checkpoint).
 */
import type { KubeClient } from '../../kube/client.js';
import { checkParamValue } from '../../render/params.js';
import { problem, type Problem } from '../../render/problems.js';
import type { Framework } from '../../render/model.js';
import type { GenerateDecl, ParamDecl } from '../../render/schemas.js';
import { ComposeError } from '../errors.js';
import { generateValue, placeholderValue } from './generate.js';
import { readGenerated, writeGenerated, type InstanceRef } from './store.js';

/** The plan argument that rotates generated values: a comma-separated list of parameter names, or `*`. */
export const ROTATE_ARG = 'rotate-generated';
const WRITE_ATTEMPTS = 3;

export interface Rotation {
  /** The request or schedule run asking for it: a rotation is done once per id. */
  id: string;
  params: string[];
}

export interface GeneratedContext {
  cluster?: KubeClient;
  /** Only read what exists (a removal, a lenient command). */
  readOnly: boolean;
  /** Without a cluster: placeholders are fine (lenient) or an error (strict). */
  lenient: boolean;
  rotation?: Rotation;
}

export interface GeneratedValues {
  values: Record<string, string>;
  /** The generated values themselves, for masking. */
  secrets: string[];
  /** Parameters rendered with a placeholder (no cluster, or not generated yet). */
  placeholders: string[];
  problems: Problem[];
}

type Generated = ParamDecl & { generate: GenerateDecl };

export function generatedParams(decls: readonly ParamDecl[]): Generated[] {
  return decls.filter((d): d is Generated => d.generate !== undefined);
}

/** The rotation a run's arguments ask for, if any (`rotate-generated: PASSWORD,TOKEN` or `*`). */
export function rotationOf(id: string | undefined, args: Readonly<Record<string, string>> | undefined): Rotation | undefined {
  const text = args?.[ROTATE_ARG];
  if (text === undefined || id === undefined) return undefined;
  return { id, params: text.split(',').map((s) => s.trim()).filter((s) => s !== '') };
}

export async function resolveGenerated(fw: Framework, instance: InstanceRef, given: Readonly<Record<string, unknown>>, ctx: GeneratedContext): Promise<GeneratedValues> {
  const out: GeneratedValues = { values: {}, secrets: [], placeholders: [], problems: [] };
  const all = generatedParams(fw.params);
  if (all.length === 0) {
    if (ctx.rotation) throw new ComposeError('GENERATED_ROTATE_UNKNOWN', `${ROTATE_ARG} names ${ctx.rotation.params.join(', ')}, but framework ${fw.name} ${fw.version} generates no parameter`);
    return out;
  }
  const rotate = rotationTargets(all, ctx.rotation, fw);
  const needed = all.filter((d) => given[d.name] === undefined || given[d.name] === null);
  if (needed.length === 0) return out;
  if (ctx.cluster === undefined) {
    if (!ctx.lenient) throw new ComposeError('GENERATED_NO_CLUSTER', `parameters ${needed.map((d) => d.name).join(', ')} are generated and kept in the cluster: this needs a cluster to read them from`);
    for (const d of needed) placeholder(out, d);
    return out;
  }
  const cluster = ctx.cluster;
  let values: Map<string, string> | undefined;
  for (let attempt = 1; values === undefined; attempt++) values = await ensureStored(cluster, instance, needed, rotate, ctx, attempt);
  for (const d of needed) {
    const value = values.get(d.name);
    if (value === undefined) {
      placeholder(out, d);
      continue;
    }
    out.values[d.name] = value;
    out.secrets.push(value);
    for (const f of checkParamValue(d, value)) out.problems.push(declProblem(fw, d, f.code, `generated value of ${f.message.replace(/, got .*$/, '')}: change the generator's length or alphabet`));
  }
  return out;
}

/**
 * Reads the Secret and, unless read-only, stores what is missing or rotated. Undefined: another
 * process wrote it meanwhile, read again (at most WRITE_ATTEMPTS times).
 */
async function ensureStored(cluster: KubeClient, instance: InstanceRef, needed: readonly Generated[], rotate: ReadonlySet<string>, ctx: GeneratedContext, attempt: number): Promise<Map<string, string> | undefined> {
  const stored = await readGenerated(cluster, instance);
  if (ctx.readOnly) return stored.values;
  const rotation = ctx.rotation !== undefined && !stored.rotations.includes(ctx.rotation.id) ? ctx.rotation : undefined;
  const next = new Map(stored.values);
  let changed = rotation !== undefined;
  for (const d of needed) {
    if (next.has(d.name) && !(rotation && rotate.has(d.name))) continue;
    next.set(d.name, generateValue(d.generate));
    changed = true;
  }
  if (!changed) return next;
  try {
    await writeGenerated(cluster, instance, stored, next, rotation ? [rotation.id, ...stored.rotations] : stored.rotations);
    return next;
  } catch (err) {
    if (err instanceof ComposeError && err.code === 'GENERATED_CONFLICT' && attempt < WRITE_ATTEMPTS) return undefined;
    throw err;
  }
}

function placeholder(out: GeneratedValues, d: Generated): void {
  out.values[d.name] = placeholderValue(d.generate);
  out.placeholders.push(d.name);
}

function rotationTargets(all: readonly Generated[], rotation: Rotation | undefined, fw: Framework): Set<string> {
  if (rotation === undefined) return new Set();
  if (rotation.params.includes('*')) return new Set(all.map((d) => d.name));
  const names = new Set(all.map((d) => d.name));
  const unknown = rotation.params.filter((p) => !names.has(p));
  if (unknown.length > 0 || rotation.params.length === 0) {
    throw new ComposeError('GENERATED_ROTATE_UNKNOWN', `${ROTATE_ARG} names ${unknown.join(', ') || 'no parameter'}; the generated parameters of ${fw.name} ${fw.version} are ${[...names].join(', ')} (or * for all)`);
  }
  return new Set(rotation.params);
}

function declProblem(fw: Framework, d: ParamDecl, code: string, message: string): Problem {
  const i = fw.params.indexOf(d);
  const path = [i, 'generate'];
  return problem({ code, file: `${fw.dir}/params.yaml`, path, ...(fw.paramsSource ? fw.paramsSource.locate(path) : { line: 0, column: 0 }), message });
}

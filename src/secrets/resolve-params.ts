/**
 * The step between loading an instance and rendering it: its values from every source (values files,
 * valuesFrom, SOPS-encrypted params; see instance-values.ts) resolved against the framework's
 * declarations. Parameters whose value was encrypted or came from a Secret are declared sensitive
 * for this instance (`decls`), so masking, the checkpoint's hashed values and plan selection treat
 * them like `sensitive: true`. In lenient mode, values that cannot be read get a placeholder of their
 * type and no problem is reported about them beyond the warning that says they are not checked.
 */
import type { Framework, Instance } from '../render/model.js';
import { isRequired, resolveParams, sampleValue, type ResolvedParams } from '../render/params.js';
import type { ParamDecl } from '../render/schemas.js';
import type { FileTree } from '../render/tree.js';
import { hasExternalValues, resolveInstanceValues, type ValuesContext } from './instance-values.js';
// Directly, not through compose/index.ts: that entry point also pulls in the engine side (plans/), which imports render/.
import { resolveGenerated } from '../compose/generated/resolve.js';

export interface InstanceParams extends ResolvedParams {
  /** The framework's declarations with parameters made sensitive by where their value came from. */
  decls: ParamDecl[];
  /** Lenient only: parameters rendered with a placeholder value. */
  placeholders: string[];
}

export async function resolveInstanceParams(tree: FileTree, inst: Instance, fw: Framework, ctx: ValuesContext = {}): Promise<InstanceParams> {
  const origin = { source: inst.source, path: ['params'] };
  const paramsFile = `${fw.dir}/params.yaml`;
  const input = { source: inst.source, namespace: inst.namespace, params: inst.decl.params, valuesFiles: inst.decl.valuesFiles, valuesFrom: inst.decl.valuesFrom, paramTypes: new Map(fw.params.map((p) => [p.name, p.type])) };
  const ext = hasExternalValues(input) ? await resolveInstanceValues(tree, input, ctx) : undefined;
  const given = ext?.params ?? inst.decl.params;
  // Generated parameters the instance does not set: from its Secret (made there first when missing).
  const generated = await resolveGenerated(fw, { namespace: inst.namespace, name: inst.name }, given, {
    ...(ctx.cluster ? { cluster: ctx.cluster } : {}),
    readOnly: ctx.lenient === true || ctx.generatedReadOnly === true,
    lenient: ctx.lenient === true,
    ...(ctx.rotation ? { rotation: ctx.rotation } : {}),
  });
  if (ext === undefined) {
    const plain = resolveParams(fw.params, { ...inst.decl.params, ...generated.values }, origin, paramsFile);
    return { ...plain, sensitiveValues: [...plain.sensitiveValues, ...generated.secrets], problems: [...generated.problems, ...plain.problems], decls: fw.params, placeholders: generated.placeholders };
  }
  const values = { ...ext.params, ...generated.values };
  const placeholders: string[] = [...generated.placeholders];
  for (const d of fw.params) {
    if (values[d.name] !== undefined && values[d.name] !== null) continue;
    const unseen = ext.unseenParams.includes(d.name) || (ext.unseenCluster && isRequired(d) && (d.default === undefined || d.default === null));
    if (!unseen) continue;
    values[d.name] = sampleValue(d);
    placeholders.push(d.name);
  }
  const sensitive = new Set(ext.sensitiveParams);
  const decls = fw.params.map((d) => (sensitive.has(d.name) && d.sensitive !== true ? { ...d, sensitive: true } : d));
  const resolved = resolveParams(decls, values, origin, paramsFile);
  // A placeholder stands for a value that was not read: its own checks would be about the placeholder.
  const problems = resolved.problems.filter((p) => !(p.path[0] === 'params' && placeholders.includes(String(p.path[1]))));
  return { values: resolved.values, sensitiveValues: [...new Set([...resolved.sensitiveValues, ...ext.secrets, ...generated.secrets])], problems: [...ext.problems, ...generated.problems, ...problems], decls, placeholders };
}

/**
 * The values of one instance before they are checked against the framework's declarations: values
 * files (`valuesFiles`, possibly SOPS-encrypted), then `valuesFrom` Secrets and ConfigMaps, then the
 * instance file's own `params` (possibly SOPS-encrypted), each later source overriding earlier ones.
 * Every value that was encrypted or came from a Secret is sensitive: its parameter is treated as
 * `sensitive: true` (masked everywhere, stored only as a hash) and its text is masked.
 *
 * `lenient` is for `baton validate` and `baton preview`: what they cannot read (no age key, no
 * cluster) is reported as a warning naming what was not checked, and its parameters are listed so the
 * caller can render with placeholders. The agent is strict: what it cannot read refuses the instance.
 */
import type { KubeClient } from '../kube/client.js';
import type { Rotation } from '../compose/generated/resolve.js';
import { isRecord } from '../kube/object.js';
import { problem, type Problem } from '../render/problems.js';
import { parseYamlFile, type SourceFile } from '../render/source.js';
import { normalizeTreePath, readText, type FileTree } from '../render/tree.js';
import { AgeKeyring } from './age-keyring.js';
import { SecretsError } from './errors.js';
import { decryptSops, lockedSops } from './sops.js';
import { isSopsDocument } from './sops-file.js';
import { readClusterValues, type ValuesFromRef } from './values-from.js';

export interface ValuesContext {
  /** Age keys; absent or empty: none given. */
  keys?: AgeKeyring;
  /** The cluster valuesFrom objects are read from; absent: it cannot be seen. */
  cluster?: KubeClient;
  lenient?: boolean;
  /** Generated parameters to generate anew in this run (a plan's `rotate-generated` argument). */
  rotation?: Rotation;
  /** Read generated values without creating missing ones (looking at another instance, e.g. a dependency). */
  generatedReadOnly?: boolean;
}

export interface InstanceValuesInput {
  /** The instance file, its parsed source (for locating problems) and namespace. */
  source: SourceFile;
  namespace: string;
  /** The instance's inline `params` (encrypted ones undefined until decrypted). */
  params: Record<string, unknown>;
  valuesFiles: readonly string[];
  valuesFrom: readonly ValuesFromRef[];
  /** Declared type of each parameter (valuesFrom entries are converted to it). */
  paramTypes: ReadonlyMap<string, string>;
}

export interface InstanceValues {
  params: Record<string, unknown>;
  /** Parameters to treat as sensitive because of where their value came from. */
  sensitiveParams: string[];
  /** Text of decrypted or Secret values, for masking. */
  secrets: string[];
  /** Lenient only: parameters whose value could not be read (encrypted without a key, or named by a valuesFrom entry). */
  unseenParams: string[];
  /** Lenient only: a valuesFrom entry without `param` could not be read, so any parameter may come from it. */
  unseenCluster: boolean;
  /** Located problems (errors refuse the instance; lenient notes are warnings). */
  problems: Problem[];
}

/** Whether a parsed instance (or values) file needs its values worked out here. */
export function hasExternalValues(input: Pick<InstanceValuesInput, 'source' | 'valuesFiles' | 'valuesFrom'>): boolean {
  return input.valuesFiles.length > 0 || input.valuesFrom.length > 0 || isSopsText(input.source.text);
}

export function isSopsText(text: string): boolean {
  return /^sops:\s*$/m.test(text) || /"sops"\s*:/.test(text) ? isSopsDocument(parseYamlFile('', text).value) : false;
}

export async function resolveInstanceValues(tree: FileTree, input: InstanceValuesInput, ctx: ValuesContext): Promise<InstanceValues> {
  const out: InstanceValues = { params: {}, sensitiveParams: [], secrets: [], unseenParams: [], unseenCluster: false, problems: [] };
  const locate = (source: SourceFile, path: (string | number)[]): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => ({ file: source.file, path, ...source.locate(path) });
  const fail = (err: unknown, source: SourceFile, prefix: (string | number)[] = []): void => {
    if (!(err instanceof SecretsError)) throw err;
    const noKey = err.code === 'SOPS_NO_KEY' && ctx.lenient === true;
    out.problems.push(problem({ code: err.code, severity: noKey ? 'warning' : 'error', ...locate(source, [...prefix, ...err.path]), message: err.message }));
  };

  for (const [i, path] of input.valuesFiles.entries()) {
    const at = ['valuesFiles', i];
    const loaded = await loadValuesFile(tree, path, input.source, at);
    if (!loaded.ok) {
      out.problems.push(...loaded.problems);
      continue;
    }
    const values = await openValues(loaded.source, loaded.value, [], ctx, out, fail);
    if (values !== undefined) Object.assign(out.params, values);
  }

  if (input.valuesFrom.length > 0) {
    if (ctx.cluster === undefined) {
      if (ctx.lenient === true) {
        for (const ref of input.valuesFrom) if (ref.param !== undefined) out.unseenParams.push(ref.param);
        out.unseenCluster ||= input.valuesFrom.some((r) => r.param === undefined);
        const names = input.valuesFrom.map((r) => `${r.kind} ${input.namespace}/${r.name}`).join(', ');
        out.problems.push(problem({ code: 'VALUES_FROM_UNSEEN', severity: 'warning', ...locate(input.source, ['valuesFrom']), message: `values from ${names} are read from the cluster by the agent at render time and are not checked here; parameters they set are rendered with placeholder values` }));
      } else {
        out.problems.push(problem({ code: 'VALUES_FROM_UNREACHABLE', ...locate(input.source, ['valuesFrom']), message: 'valuesFrom needs a cluster to read from' }));
      }
    } else {
      try {
        const cluster = await readClusterValues(ctx.cluster, input.namespace, input.valuesFrom, input.paramTypes, (i) => ['valuesFrom', i]);
        Object.assign(out.params, cluster.values);
        out.sensitiveParams.push(...cluster.sensitiveParams);
        out.secrets.push(...cluster.secrets);
      } catch (err) {
        fail(err, input.source);
      }
    }
  }

  // The instance file's own params: plain, or SOPS-encrypted (only values under params may be).
  if (isSopsText(input.source.text)) {
    const values = await openValues(input.source, undefined, ['params'], ctx, out, fail);
    if (values !== undefined) Object.assign(out.params, isRecord(values.params) ? values.params : {});
  } else {
    Object.assign(out.params, input.params);
  }
  out.sensitiveParams = [...new Set(out.sensitiveParams)].sort();
  out.secrets = [...new Set(out.secrets)];
  out.unseenParams = [...new Set(out.unseenParams)].sort();
  return out;
}

type Fail = (err: unknown, source: SourceFile, prefix?: (string | number)[]) => void;

/**
 * The values of a file: plain as parsed, or decrypted. `within` is where encrypted values may be
 * ([] anywhere, ['params'] in an instance file). Without a usable key in lenient mode, the encrypted
 * values are left out and their parameters noted as unseen.
 */
async function openValues(source: SourceFile, parsed: unknown, within: string[], ctx: ValuesContext, out: InstanceValues, fail: Fail): Promise<Record<string, unknown> | undefined> {
  if (!isSopsText(source.text)) return isRecord(parsed) ? parsed : {};
  let locked;
  try {
    locked = lockedSops(source.text);
  } catch (err) {
    fail(err, source);
    return undefined;
  }
  const outside = locked.encrypted.find((e) => within.some((w, i) => e.path[i] !== w));
  if (outside) {
    fail(new SecretsError('SOPS_UNSUPPORTED', `only values under ${within.join('.')} may be encrypted in an instance file (framework, version and schedules must stay readable): use encrypted_regex in .sops.yaml`, outside.path), source);
    return undefined;
  }
  const paramOf = (path: (string | number)[]): string => String(path[within.length] ?? '');
  const encryptedParams = [...new Set(locked.encrypted.map((e) => paramOf(e.path)))];
  if ((ctx.keys?.size ?? 0) === 0 && ctx.lenient === true) {
    out.unseenParams.push(...encryptedParams);
    out.problems.push(problem({ code: 'SOPS_NO_KEY', severity: 'warning', file: source.file, path: ['sops'], ...source.locate(['sops']), message: `${encryptedParams.join(', ')} ${encryptedParams.length === 1 ? 'is' : 'are'} encrypted for ${locked.recipients.join(', ')} and no age key was given: their values, their constraints and the MAC are not checked; plans are rendered with placeholder values` }));
    return stripUndefined(locked.value);
  }
  try {
    const decrypted = await decryptSops(source.text, ctx.keys ?? new AgeKeyring());
    out.sensitiveParams.push(...encryptedParams);
    out.secrets.push(...decrypted.secrets);
    return decrypted.value;
  } catch (err) {
    if (err instanceof SecretsError && err.code === 'SOPS_NO_KEY' && ctx.lenient === true) out.unseenParams.push(...encryptedParams);
    fail(err, source);
    return err instanceof SecretsError && err.code === 'SOPS_NO_KEY' && ctx.lenient === true ? stripUndefined(locked.value) : undefined;
  }
}

function stripUndefined(value: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as Record<string, unknown>;
}

type LoadedValues = { ok: true; source: SourceFile; value: Record<string, unknown> } | { ok: false; problems: Problem[] };

async function loadValuesFile(tree: FileTree, path: string, instance: SourceFile, at: (string | number)[]): Promise<LoadedValues> {
  const bad = (message: string): LoadedValues => ({ ok: false, problems: [problem({ code: 'VALUES_FILE_INVALID', file: instance.file, path: at, ...instance.locate(at), message })] });
  let norm: string;
  try {
    norm = normalizeTreePath(path);
  } catch {
    return bad(`values file ${JSON.stringify(path)} is outside the repository`);
  }
  if (/^instances\/[^/]+\/[^/]+\.ya?ml$/.test(norm)) return bad(`values file ${norm} lies where instance files live (instances/<namespace>/*.yaml) and would be read as an instance: keep values files elsewhere, e.g. values/<namespace>/`);
  const text = await readText(tree, norm);
  if (text === undefined) return bad(`values file ${norm} does not exist`);
  const parsed = parseYamlFile(norm, text);
  if (parsed.problems.some((p) => p.severity === 'error')) return { ok: false, problems: parsed.problems };
  const value = parsed.value ?? {};
  if (!isRecord(value)) return { ok: false, problems: [problem({ code: 'VALUES_FILE_INVALID', file: norm, path: [], line: 1, column: 1, message: 'a values file must be a map of parameter names to values' })] };
  return { ok: true, source: parsed, value };
}

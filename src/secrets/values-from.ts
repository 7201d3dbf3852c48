/**
 * `valuesFrom`: parameters taken from an existing Secret or ConfigMap in the instance's namespace,
 * read when the instance is rendered. Three forms, as Flux's HelmRelease knows them:
 * - `{kind, name}`: every entry is a parameter named by its key;
 * - `{kind, name, key}`: that entry holds a YAML map of parameters;
 * - `{kind, name, key, param}`: that entry's text is the value of one parameter.
 * Entries are text; a value for an integer, number, boolean, array or object parameter is read as YAML.
 * Values from a Secret are sensitive. Only the instance's own namespace is read.
 */
import { parse } from 'yaml';
import type { KubeClient } from '../kube/client.js';
import { isRecord, type KubeObject } from '../kube/object.js';
import { errorMessage } from '../errors.js';
import { SecretsError } from './errors.js';
import type { ValuesFromDecl } from '../render/schemas.js';

/** One `valuesFrom` entry of an instance file (its schema is in render/schemas.ts). */
export type ValuesFromRef = ValuesFromDecl;

/** The declared type of each parameter, to convert entry text. */
export type ParamTypes = ReadonlyMap<string, string>;

export interface ClusterValues {
  values: Record<string, unknown>;
  /** Parameters whose value came from a Secret. */
  sensitiveParams: string[];
  /** Text forms of Secret values, for masking. */
  secrets: string[];
}

const label = (ref: ValuesFromRef, namespace: string): string => `${ref.kind} ${namespace}/${ref.name}`;

/** Reads one referenced object; `undefined` when it does not exist. Transport failures are VALUES_FROM_UNREACHABLE. */
export async function readValuesObject(client: KubeClient, namespace: string, ref: ValuesFromRef, path: (string | number)[]): Promise<KubeObject | undefined> {
  try {
    return await client.get({ apiVersion: 'v1', kind: ref.kind, namespace, name: ref.name });
  } catch (err) {
    throw new SecretsError('VALUES_FROM_UNREACHABLE', `${label(ref, namespace)} could not be read: ${errorMessage(err)}`, path);
  }
}

/** The entries of a Secret (base64-decoded) or ConfigMap as text. */
function entriesOf(obj: KubeObject, ref: ValuesFromRef, namespace: string, path: (string | number)[]): Map<string, string> {
  const out = new Map<string, string>();
  if (ref.kind === 'Secret') {
    for (const [k, v] of Object.entries(isRecord(obj.data) ? obj.data : {})) if (typeof v === 'string') out.set(k, Buffer.from(v, 'base64').toString('utf8'));
    for (const [k, v] of Object.entries(isRecord(obj.stringData) ? obj.stringData : {})) if (typeof v === 'string') out.set(k, v);
  } else {
    for (const [k, v] of Object.entries(isRecord(obj.data) ? obj.data : {})) if (typeof v === 'string') out.set(k, v);
    if (isRecord(obj.binaryData) && Object.keys(obj.binaryData).length > 0 && out.size === 0) {
      throw new SecretsError('VALUES_FROM_INVALID', `${label(ref, namespace)} has only binaryData; values are read from data`, path);
    }
  }
  return out;
}

/** Converts entry text to the parameter's declared type (text stays text for string parameters). */
export function convertEntry(text: string, type: string | undefined, where: string, path: (string | number)[]): unknown {
  if (type === undefined || type === 'string') return text;
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 0 });
  } catch {
    throw new SecretsError('VALUES_FROM_INVALID', `${where}: the entry is not valid YAML for a parameter of type ${type}`, path);
  }
  return value === undefined ? null : value;
}

/** Values an instance takes from the cluster, in the order of its `valuesFrom` list (later entries win). */
export async function readClusterValues(client: KubeClient, namespace: string, refs: readonly ValuesFromRef[], types: ParamTypes, pathOf: (index: number) => (string | number)[]): Promise<ClusterValues> {
  const out: ClusterValues = { values: {}, sensitiveParams: [], secrets: [] };
  for (const [index, ref] of refs.entries()) {
    const path = pathOf(index);
    const obj = await readValuesObject(client, namespace, ref, path);
    const where = label(ref, namespace);
    if (obj === undefined) {
      if (ref.optional === true) continue;
      throw new SecretsError('VALUES_FROM_MISSING', `${where} does not exist (create it, or mark the entry optional: true)`, path);
    }
    const entries = entriesOf(obj, ref, namespace, path);
    const set = (param: string, value: unknown, text: string): void => {
      out.values[param] = value;
      if (ref.kind === 'Secret') {
        out.sensitiveParams.push(param);
        if (text !== '') out.secrets.push(text);
      }
    };
    if (ref.key === undefined) {
      for (const [k, text] of entries) set(k, convertEntry(text, types.get(k), `${where} key ${k}`, path), text);
      continue;
    }
    const text = entries.get(ref.key);
    if (text === undefined) {
      if (ref.optional === true) continue;
      throw new SecretsError('VALUES_FROM_MISSING', `${where} has no key ${ref.key}`, path);
    }
    if (ref.param !== undefined) {
      set(ref.param, convertEntry(text, types.get(ref.param), `${where} key ${ref.key}`, path), text);
      continue;
    }
    let map: unknown;
    try {
      map = parse(text, { maxAliasCount: 100 });
    } catch {
      throw new SecretsError('VALUES_FROM_INVALID', `${where} key ${ref.key} is not valid YAML`, path);
    }
    if (!isRecord(map)) throw new SecretsError('VALUES_FROM_INVALID', `${where} key ${ref.key} must hold a YAML map of parameter values`, path);
    for (const [k, v] of Object.entries(map)) set(k, v, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return out;
}

/**
 * What identifies the referenced objects' current content without reading it into Git: uid and
 * resourceVersion of each (or "missing"). A change of it is a change of desired state for the agent;
 * plan selection then compares the values themselves, so a change that touches no value runs nothing.
 */
export async function clusterValuesVersion(client: KubeClient, namespace: string, refs: readonly ValuesFromRef[]): Promise<string> {
  const parts: string[] = [];
  for (const ref of refs) {
    const obj = await readValuesObject(client, namespace, ref, []);
    parts.push(`${ref.kind}/${ref.name}=${obj ? `${obj.metadata.uid ?? ''}:${obj.metadata.resourceVersion ?? ''}` : 'missing'}`);
  }
  return parts.join(',');
}

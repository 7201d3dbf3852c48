/**
 * Loads a GitOps repository through a FileTree: baton.yaml, frameworks/<name>/<version>/ and
 * instances/<namespace>/<instance>.yaml. Loading is lazy: reading one instance reads only its framework.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Framework, Instance, Loaded, RepositorySettings, TemplateFile } from './model.js';
import { hasErrors, looksBinary, problem, type Problem } from './problems.js';
import { frameworkSchema, instanceSchema, paramsFileSchema, repositorySchema } from './schemas.js';
import { parseYamlFile, schemaProblems, type ParsedYaml } from './source.js';
import { normalizeTreePath, readText, type FileTree } from './tree.js';
import { isDnsLabel, parseDuration } from './versions.js';
import { scanLayout } from './layout.js';
import { SecretsError } from '../secrets/errors.js';
import { lockedSops } from '../secrets/sops.js';
import { isSopsDocument } from '../secrets/sops-file.js';

export const DEFAULT_STEP_TIMEOUT_SECONDS = 600;

/** Reads, parses and schema-checks one YAML file; problems are located. */
export async function parseWith<S extends z.ZodType>(
  tree: FileTree,
  file: string,
  schema: S,
  required: boolean,
  prepare: (parsed: ParsedYaml) => unknown = (p) => p.value,
): Promise<{ parsed: ParsedYaml | undefined; value: z.output<S> | undefined; problems: Problem[] }> {
  const text = await readText(tree, file);
  if (text === undefined) {
    return { parsed: undefined, value: undefined, problems: required ? [problem({ code: 'FILE_MISSING', file, message: `${file} does not exist` })] : [] };
  }
  if (looksBinary(text)) {
    return { parsed: undefined, value: undefined, problems: [problem({ code: 'FILE_NOT_TEXT', file, message: `${file} is not UTF-8 text (${text.length} characters, binary content?): expected YAML` })] };
  }
  const parsed = parseYamlFile(file, text);
  if (hasErrors(parsed.problems)) return { parsed, value: undefined, problems: parsed.problems };
  // An empty file is an empty document: let the schema say what is missing.
  let value: unknown;
  try {
    value = prepare(parsed);
  } catch (err) {
    if (!(err instanceof SecretsError)) throw err;
    return { parsed, value: undefined, problems: [...parsed.problems, problem({ code: err.code, file, path: err.path, ...parsed.locate(err.path), message: err.message })] };
  }
  const result = schema.safeParse(value === null || value === undefined ? (schema === (paramsFileSchema as unknown) ? [] : {}) : value);
  if (!result.success) return { parsed, value: undefined, problems: [...parsed.problems, ...schemaProblems(parsed, result.error.issues)] };
  return { parsed, value: result.data, problems: parsed.problems };
}

export async function loadSettings(tree: FileTree): Promise<Loaded<RepositorySettings>> {
  const { value, problems } = await parseWith(tree, 'baton.yaml', repositorySchema, false);
  if (hasErrors(problems)) return { ok: false, problems };
  const decl = value ?? {};
  const timeout = decl.defaults?.stepTimeout;
  return { ok: true, value: { decl, stepTimeoutSeconds: (timeout && parseDuration(timeout)) || DEFAULT_STEP_TIMEOUT_SECONDS }, problems };
}

export function frameworkDir(name: string, version: string): string {
  return `frameworks/${name}/${version}`;
}

/** All `{name, version}` pairs under frameworks/, sorted. */
export async function listFrameworks(tree: FileTree): Promise<{ name: string; version: string }[]> {
  const out: { name: string; version: string }[] = [];
  for (const fw of await tree.list('frameworks')) {
    if (fw.type !== 'dir') continue;
    for (const v of await tree.list(`frameworks/${fw.name}`)) if (v.type === 'dir') out.push({ name: fw.name, version: v.name });
  }
  return out;
}

/**
 * The file of every instance, sorted, as the layout rules decide (layout.ts: `.yaml` or `.yml`, one file
 * per instance). Use `scanLayout` to also get what those rules refuse.
 */
export async function listInstances(tree: FileTree): Promise<string[]> {
  return (await scanLayout(tree)).instances.map((i) => i.file);
}

async function loadTemplates(tree: FileTree, dir: string, problems: Problem[], prefix = ''): Promise<Map<string, TemplateFile>> {
  const templates = new Map<string, TemplateFile>();
  for (const entry of await tree.list(dir)) {
    const name = `${prefix}${entry.name}`;
    if (entry.type === 'dir') {
      for (const [k, v] of await loadTemplates(tree, `${dir}/${entry.name}`, problems, `${name}/`)) templates.set(k, v);
      continue;
    }
    if (entry.type === 'symlink') {
      // Never followed: on disk it could read any file of the machine into a rendered object.
      problems.push(problem({ code: 'FILE_SYMLINK', file: `${dir}/${entry.name}`, message: `${dir}/${entry.name} is a symbolic link: links are never followed; commit the template itself` }));
      continue;
    }
    const file = `${dir}/${entry.name}`;
    const text = (await readText(tree, file)) ?? '';
    const id = (await tree.id?.(file)) ?? createHash('sha1').update(text).digest('hex');
    templates.set(name, { name, file, text, id });
  }
  return templates;
}

export async function loadFramework(tree: FileTree, name: string, version: string): Promise<Loaded<Framework>> {
  const dir = frameworkDir(name, version);
  const fw = await parseWith(tree, `${dir}/framework.yaml`, frameworkSchema, true);
  const params = await parseWith(tree, `${dir}/params.yaml`, paramsFileSchema, false);
  const problems = [...fw.problems, ...params.problems];
  if (!fw.value || !fw.parsed || hasErrors(problems)) return { ok: false, problems };
  const source = fw.parsed;
  if (fw.value.name !== name) {
    problems.push(problem({ code: 'FRAMEWORK_NAME_MISMATCH', file: source.file, path: ['name'], ...source.locate(['name']), message: `name "${fw.value.name}" does not match its folder frameworks/${name}` }));
  }
  if (fw.value.version !== version) {
    problems.push(problem({ code: 'FRAMEWORK_VERSION_MISMATCH', file: source.file, path: ['version'], ...source.locate(['version']), message: `version "${fw.value.version}" does not match its folder ${dir}` }));
  }
  const templates = await loadTemplates(tree, `${dir}/templates`, problems);
  if (hasErrors(problems)) return { ok: false, problems };
  return {
    ok: true,
    value: { name, version, dir, decl: fw.value, params: (params.value ?? []).map((p) => (p.generate !== undefined ? { ...p, sensitive: true } : p)), templates, frameworkSource: source, paramsSource: params.parsed },
    problems,
  };
}

/** Splits `instances/<namespace>/<name>.yaml` into its parts, or explains what is wrong with the path. */
export function instancePathParts(path: string): { namespace: string; name: string } | string {
  const m = /^instances\/([^/]+)\/([^/]+)\.ya?ml$/.exec(normalizeTreePath(path));
  if (!m) return `instance files live at instances/<namespace>/<instance>.yaml, not ${path}`;
  return { namespace: m[1]!, name: m[2]! };
}

/**
 * A SOPS-encrypted instance file is read without its key: the `sops` metadata is set aside and each
 * encrypted value is left undefined, to be decrypted when values are resolved (secrets/). Everything
 * that plan selection, change detection and schedules read stays readable without a key.
 */
function lockedInstance(parsed: ParsedYaml): unknown {
  return isSopsDocument(parsed.value) ? lockedSops(parsed.text).value : parsed.value;
}

export async function loadInstance(tree: FileTree, path: string): Promise<Loaded<Instance>> {
  const file = normalizeTreePath(path);
  const parts = instancePathParts(file);
  if (typeof parts === 'string') return { ok: false, problems: [problem({ code: 'INSTANCE_PATH', file, message: parts })] };
  const inst = await parseWith(tree, file, instanceSchema, true, lockedInstance);
  const problems = [...inst.problems];
  for (const [what, value] of [['namespace', parts.namespace], ['instance name', parts.name]] as const) {
    if (!isDnsLabel(value)) {
      problems.push(problem({ code: 'INSTANCE_NAME_INVALID', file, message: `${what} "${value}" (from the file path) must be a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters` }));
    }
  }
  if (!inst.value || !inst.parsed || hasErrors(problems)) return { ok: false, problems };
  // zod rebuilds records by assignment, which drops a `__proto__` key: keep every key as written, so an
  // unknown one is reported (PARAM_UNKNOWN) rather than silently lost.
  const decl = { ...inst.value, params: ownRecord(rawParams(inst.parsed.value) ?? inst.value.params) };
  return { ok: true, value: { ...parts, file, decl, source: inst.parsed }, problems };
}

function rawParams(doc: unknown): Record<string, unknown> | undefined {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const params = (doc as Record<string, unknown>).params;
  return params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
}

/** A plain copy with every own key defined as data (a `__proto__` key stays a key). */
function ownRecord(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) Object.defineProperty(out, key, { value: source[key], enumerable: true, writable: true, configurable: true });
  return out;
}

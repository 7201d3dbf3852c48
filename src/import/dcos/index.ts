/**
 * `baton import dcos`: a DC/OS SDK service (svc.yml, its config templates, and optionally its universe
 * package: config.json, marathon.json.mustache, resource.json, package.json, plus the user's options.json)
 * becomes one Baton framework version. Pure: everything is read from memory.
 */
import type { FrameworkDecl, ParamDecl } from '../../render/schemas.js';
import type { PackageFiles } from '../package-files.js';
import { FindingLog, locate, type ImportResult } from '../report.js';
import { parseYamlSource, type YamlSource } from '../yaml-source.js';
import { yamlFile } from '../generated-yaml.js';
import { isRecord, toDnsLabel, toSemver } from '../util.js';
import { DcosBuilder } from './build.js';
import { expandSpec, mustacheNames, parseMustache, type VarUse } from './mustache.js';
import { readPlans, readPods, SpecValues } from './spec.js';
import { readOptions, variablesFromPackage, variablesWithoutPackage, type Variables } from './vars.js';

export interface DcosImportOptions {
  /** svc.yml: its name for findings and its text. */
  svc: { file: string; text: string };
  /** Files beside svc.yml (config templates), by relative path. */
  files: ReadonlyMap<string, string>;
  /** The universe package folder (config.json, marathon.json.mustache, ...). */
  pkg?: PackageFiles;
  /** The user's options.json. */
  options?: { file: string; text: string };
  /** Framework name and version (default: package.json, else svc.yml's name and 1.0.0). */
  name?: string;
  version?: string;
}

function parseJson(file: string, text: string, log: FindingLog): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const m = /position (\d+)/.exec(err instanceof Error ? err.message : '');
    log.error('IMPORT_JSON_SYNTAX', m ? locate(file, text, Number(m[1])) : { file, line: 0, column: 0 }, `malformed JSON: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function packageVariables(o: DcosImportOptions, log: FindingLog): { vars?: Variables; meta: Record<string, unknown> } {
  const pkg = o.pkg!;
  const read = (f: string): unknown => {
    const t = pkg.files.get(f);
    return t === undefined ? undefined : parseJson(f, t, log);
  };
  const config = read('config.json');
  const meta = read('package.json');
  const resource = read('resource.json');
  const options = o.options ? parseJson(o.options.file, o.options.text, log) : undefined;
  const marathon = pkg.files.get('marathon.json.mustache');
  if (config === undefined || marathon === undefined) {
    log.error('IMPORT_DCOS_PACKAGE', { file: config === undefined ? 'config.json' : 'marathon.json.mustache', line: 0, column: 0 }, 'a universe package folder holds config.json and marathon.json.mustache');
    return { meta: isRecord(meta) ? meta : {} };
  }
  if (log.failed) return { meta: {} };
  const vars = variablesFromPackage(marathon, readOptions(config, options, log), resource, log);
  return { ...(vars ? { vars } : {}), meta: isRecord(meta) ? meta : {} };
}

export function importDcos(o: DcosImportOptions): ImportResult {
  const log = new FindingLog();
  const result: ImportResult = { kind: 'dcos', source: o.svc.file, framework: { name: '', version: '', appVersion: '' }, files: [], findings: log.findings };
  const tokens = parseMustache(o.svc.file, o.svc.text, log);
  if (!tokens) return result;
  let vars: Variables | undefined;
  let meta: Record<string, unknown> = {};
  if (o.pkg) ({ vars, meta } = packageVariables(o, log));
  else {
    if (o.options) log.error('IMPORT_DCOS_OPTIONS', { file: o.options.file, line: 0, column: 0 }, '--options needs --package: options are read through the package\'s config.json');
    vars = variablesWithoutPackage(mustacheNames(tokens), log);
  }
  if (!vars) return result;
  const expanded = expandSpec(o.svc.file, o.svc.text, tokens, (n) => vars.value(n), log);
  const src = parseYamlSource(o.svc.file, expanded.text, log, { text: o.svc.text, source: expanded.source });
  if (!src) return result;
  const used = new Set<string>();
  const values = new SpecValues(src, expanded.uses, vars, log, used);
  const spec = isRecord(src.value) ? src.value : {};
  const id = identity(o, meta, spec, expanded.uses, vars, src, log);
  if (!id) return result;
  const { name, version } = id;
  if (spec.scheduler !== undefined) log.untranslated('IMPORT_DCOS_SCHEDULER', src.at(['scheduler']), 'scheduler settings (principal, user, zookeeper) belong to the DC/OS scheduler; Baton is the scheduler here');
  for (const k of ['web-url', 'replacement-failure-policy'] as const) if (spec[k] !== undefined) log.untranslated('IMPORT_DCOS_SCHEDULER', src.at([k]), `${k} belongs to the DC/OS scheduler; left out`);
  const pods = readPods(values, log);
  const plans = readPlans(values, pods, log);
  const header = `<%# Imported by baton import dcos from ${o.svc.file} (${name} ${version}). -%>`;
  const built = new DcosBuilder({ values, vars, pods, plans, log, files: o.files, header }).build();
  result.framework = { name, version, appVersion: '' };
  const params: ParamDecl[] = [];
  for (const p of [...vars.params.values(), ...built.extraParams]) if (used.has(p.name)) params.push(p);
  const unused = [...vars.params.keys()].filter((n) => !used.has(n));
  if (unused.length > 0 && vars.fromPackage) log.mapped('IMPORT_DCOS_UNUSED_VARIABLES', { file: 'marathon.json.mustache', line: 0, column: 0 }, `not declared as parameters (no translated template reads them; some were fixed at import): ${unused.join(', ')}`);
  const decl: FrameworkDecl = { apiVersion: 'baton.dev/v1alpha1', kind: 'Framework', name, version, appVersion: '', tasks: built.tasks, plans: built.plans };
  if (typeof meta.description === 'string') decl.description = meta.description;
  if (typeof meta.maintainer === 'string') decl.maintainers = [{ name: meta.maintainer }];
  if (!decl.plans.deploy) log.error('IMPORT_PLAN_DEPLOY', src.at(['plans']), 'no deploy plan survives the import (Baton needs one)');
  const source = `Imported by baton import dcos from ${o.svc.file}${o.pkg ? ` and package ${o.pkg.source}` : ''}.\nThe import report is IMPORT.md beside this file.`;
  result.files = [{ path: 'framework.yaml', content: yamlFile(source, decl) }, { path: 'params.yaml', content: yamlFile(source, params) }, ...built.templates];
  return result;
}

/** The framework's name and version: flags, else package.json, else svc.yml's name (and 1.0.0). */
function identity(o: DcosImportOptions, meta: Record<string, unknown>, spec: Record<string, unknown>, uses: VarUse[], vars: Variables, src: YamlSource, log: FindingLog): { name: string; version: string } | undefined {
  const nameValue = typeof spec.name === 'string' && !/\uE100/.test(spec.name) ? spec.name : typeof spec.name === 'string' ? uses.reduce((t: string, u, i) => t.replace(`\uE100${i}\uE101`, vars.value(u.name) ?? '\uE100'), spec.name) : '';
  const rawName = o.name ?? (typeof meta.name === 'string' ? meta.name : undefined) ?? (nameValue.includes('\uE100') ? '' : nameValue);
  let name = toDnsLabel(rawName);
  if (name === '') {
    log.error('IMPORT_DCOS_NAME', src.at(['name']), 'the framework name is not known at import time (svc.yml names the service with a variable): pass --name');
    name = 'service';
  }
  const rawVersion = o.version ?? (typeof meta.version === 'string' ? meta.version : undefined);
  const version = rawVersion === undefined ? '1.0.0' : toSemver(rawVersion);
  if (version === undefined) {
    log.error('IMPORT_DCOS_VERSION', { file: o.version ? '--version' : 'package.json', line: 0, column: 0 }, `version ${JSON.stringify(rawVersion)} is not a semantic version (pass --version)`);
    return undefined;
  }
  if (rawVersion === undefined) log.mapped('IMPORT_DCOS_VERSION', { file: o.svc.file, line: 0, column: 0 }, 'no version (no package.json, no --version): the framework version is 1.0.0');
  return { name, version };
}

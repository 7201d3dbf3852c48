/**
 * `baton import kudo`: a KUDO operator package (operator.yaml, params.yaml, templates/) becomes one Baton
 * framework version. Pure: reads the package from memory, returns the generated files and the findings.
 */
import type { PackageFiles } from '../package-files.js';
import { FindingLog, type GeneratedFile, type ImportResult, type SourceLocation } from '../report.js';
import { parseYamlSource } from '../yaml-source.js';
import { yamlFile } from '../generated-yaml.js';
import { sandboxSprigHelpers } from '../helpers.js';
import { parseTemplate, TemplateSyntaxError } from '../gotemplate/parser.js';
import { translateTemplate } from '../gotemplate/translate.js';
import { locate } from '../report.js';
import { convertParams, type KudoParam } from './params.js';
import { convertTasksAndPlans, readOperator } from './operator.js';
import { kudoRootModel } from './model.js';

export function importKudo(pkg: PackageFiles): ImportResult {
  const log = new FindingLog();
  const result: ImportResult = { kind: 'kudo', source: pkg.source, framework: { name: '', version: '', appVersion: '' }, files: [], findings: log.findings };
  const opText = pkg.files.get('operator.yaml');
  if (opText === undefined) {
    log.error('IMPORT_FILE_MISSING', { file: 'operator.yaml', line: 0, column: 0 }, 'no operator.yaml: not a KUDO operator package folder');
    return result;
  }
  const opSrc = parseYamlSource('operator.yaml', opText, log);
  const paramsText = pkg.files.get('params.yaml');
  const paramsSrc = paramsText === undefined ? undefined : parseYamlSource('params.yaml', paramsText, log);
  if (paramsText === undefined) log.mapped('IMPORT_FILE_MISSING', { file: 'params.yaml', line: 0, column: 0 }, 'no params.yaml: the framework declares no parameters');
  if (!opSrc || (paramsText !== undefined && !paramsSrc)) return result;
  const op = readOperator(opSrc, log);
  if (!op) return result;
  result.framework = { name: op.decl.name, version: op.decl.version, appVersion: op.decl.appVersion };
  const params: KudoParam[] = paramsSrc ? convertParams(paramsSrc, log, op.planNames) : [];
  const byName = new Map(params.map((p) => [p.decl.name, p]));

  // Baton template name -> KUDO template it is translated from (a KUDO template may become a resource and a partial).
  const used = new Map<string, string>();
  const generated: GeneratedFile[] = [];
  const translatedAs = (baton: string) => (resource: string, at: SourceLocation): string | undefined => {
    if (!pkg.files.has(`templates/${resource}`)) {
      log.error('IMPORT_TEMPLATE_MISSING', at, `template ${resource} does not exist in templates/`);
      return undefined;
    }
    const name = baton.replace('{}', resource);
    used.set(name, resource);
    return name;
  };
  const template = translatedAs('{}.ejs');
  // Go templates the importer writes itself (a pipe pod as a Job), translated like the package's.
  const goSources = new Map<string, { file: string; source: string }>();
  const freeName = (preferred: string): string => {
    const taken = (n: string): boolean => pkg.files.has(`templates/${n.replace(/\.ejs$/, '')}`) || generated.some((g) => g.path === `templates/${n}`) || goSources.has(n);
    let name = preferred;
    for (let i = 2; taken(name); i++) name = preferred.replace(/\.yaml\.ejs$/, `-${i}.yaml.ejs`);
    return name;
  };
  const pipeKeys = new Map<string, string>();
  // Package templates read by a conversion (a pipe pod) rather than translated themselves.
  const consumed = new Set<string>();
  convertTasksAndPlans(opSrc, op, {
    log,
    template,
    partial: translatedAs('_{}.ejs'),
    generatedTemplate: (preferred, content) => {
      const name = freeName(preferred);
      generated.push({ path: `templates/${name}`, content });
      return name;
    },
    source: (resource, at) => {
      const text = pkg.files.get(`templates/${resource}`);
      if (text === undefined) log.error('IMPORT_TEMPLATE_MISSING', at, `template ${resource} does not exist in templates/`);
      else consumed.add(resource);
      return text;
    },
    generatedGoTemplate: (preferred, origin, source) => {
      const name = freeName(preferred);
      goSources.set(name, { file: origin, source });
      return name;
    },
    pipeKeys,
    booleanParam: (name) => {
      const p = byName.get(name);
      return p !== undefined && p.decl.type === 'boolean';
    },
  });
  const ns = (opSrc.value as Record<string, unknown>).namespaceManifest;
  if (typeof ns === 'string') {
    const t = template(ns, opSrc.at(['namespaceManifest']));
    if (t) op.decl.namespaceManifest = t;
  }

  const model = kudoRootModel(params, pipeKeys);
  const helpers = sandboxSprigHelpers();
  const files: GeneratedFile[] = [];
  const sources = [
    ...[...used].map(([baton, resource]) => ({ baton, file: `templates/${resource}`, source: pkg.files.get(`templates/${resource}`)! })),
    ...[...goSources].map(([baton, g]) => ({ baton, ...g })),
  ].sort((a, b) => (a.baton < b.baton ? -1 : a.baton > b.baton ? 1 : 0));
  for (const { baton, file, source } of sources) {
    let parsed;
    try {
      parsed = parseTemplate(source);
    } catch (err) {
      if (!(err instanceof TemplateSyntaxError)) throw err;
      log.error('IMPORT_TEMPLATE_SYNTAX', locate(file, source, err.offset), `template syntax error: ${err.message}`);
      continue;
    }
    const header = `<%# Imported by baton import kudo from ${file} (KUDO operator ${op.decl.name} ${op.decl.version}). -%>`;
    files.push({ path: `templates/${baton}`, content: translateTemplate({ file, source, parsed, model, helpers, log, header }) });
  }
  files.push(...generated);
  const usedResources = new Set([...used.values(), ...consumed]);
  for (const f of pkg.files.keys()) {
    if (f.startsWith('templates/') && !usedResources.has(f.slice('templates/'.length))) {
      log.untranslated('IMPORT_TEMPLATE_UNUSED', { file: f, line: 0, column: 0 }, 'no translated task names this template; not imported');
    }
  }
  const source = `Imported by baton import kudo from KUDO operator ${op.decl.name} ${op.decl.version}.\nThe import report is IMPORT.md beside this file.`;
  files.unshift({ path: 'params.yaml', content: yamlFile(source, params.map((p) => p.decl)) }, { path: 'framework.yaml', content: yamlFile(source, op.decl) });
  result.files = files;
  return result;
}

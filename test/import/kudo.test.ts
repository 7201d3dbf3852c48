/**
 * `baton import kudo` as a library: what operator.yaml and params.yaml become, the report with locations,
 * and bad input that is reported with its location and never written.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Renderer } from '../../src/render/index.js';
import { checkImport, formatImportMarkdown, importKudo, readPackageDir, refusal, writeImport, ImportRefusedError, type ImportResult } from '../../src/import/index.js';
import { errorsOf, KUDO_QUORUM, KUDO_ZOOKEEPER, kudoPackage, objectsOf, renderImported } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());

function file(result: ImportResult, path: string): unknown {
  const f = result.files.find((x) => x.path === path);
  if (!f) throw new Error(`no ${path}`);
  return parse(f.content);
}

function findings(result: ImportResult, level: string): string[] {
  return result.findings.filter((f) => f.level === level).map((f) => `${f.at.file}:${f.at.line}:${f.at.column} ${f.code}`);
}

describe('the quorum operator', () => {
  const result = importKudo(readPackageDir(KUDO_QUORUM, 'quorum-0.1.0'));

  it('becomes framework quorum 0.1.0 with the appVersion, maintainers, tasks and strategies', () => {
    expect(errorsOf(result)).toEqual([]);
    expect(result.framework).toEqual({ name: 'quorum', version: '0.1.0', appVersion: '1.4.2' });
    const fw = file(result, 'framework.yaml') as Record<string, unknown>;
    expect(fw).toMatchObject({ apiVersion: 'baton.dev/v1alpha1', kind: 'Framework', name: 'quorum', version: '0.1.0', appVersion: '1.4.2', maintainers: [{ name: 'Example Maintainers', email: 'maintainers@example.com' }], url: 'https://example.com/quorum' });
    expect(fw.tasks).toEqual([
      { name: 'infra', kind: 'Apply', resources: ['service.yaml.ejs', 'pdb.yaml.ejs'] },
      { name: 'config', kind: 'Apply', resources: ['configmap.yaml.ejs'] },
      { name: 'nodes', kind: 'Apply', resources: ['statefulset.yaml.ejs'] },
      { name: 'metrics', kind: 'Toggle', parameter: 'METRICS_ENABLED', resources: ['metrics-service.yaml.ejs'] },
      { name: 'gen-certs', kind: 'Pipe', resources: ['gen-certs-pipe-job.yaml.ejs'], pipe: { kind: 'Secret', files: ['ca.crt'] } },
      { name: 'coordination', kind: 'Instance', framework: 'zookeeper', version: '0.3.0', resources: ['coordination-instance.yaml.ejs'] },
      { name: 'remove-check', kind: 'Delete', resources: ['check-job.yaml.ejs'] },
      { name: 'check', kind: 'Apply', resources: ['check-job.yaml.ejs'] },
    ]);
    expect(Object.keys(fw.plans as object)).toEqual(['deploy', 'update', 'check-now']);
    expect((fw.plans as Record<string, { phases: { name: string; strategy: string; steps: { name: string; tasks: string[] }[] }[] }>).deploy!.phases.map((p) => `${p.name}(${p.strategy}): ${p.steps.map((s) => `${s.name}=${s.tasks.join('+')}`).join(' ')}`)).toEqual([
      'prerequisites(parallel): certs=gen-certs dependency=coordination',
      'main(serial): infra=infra+config nodes=nodes+metrics',
      'verify(serial): cleanup=remove-check check=check',
    ]);
  });

  it('types the parameters: from type:, else inferred from the default; keeps trigger, immutable, enum, required, groups', () => {
    const params = file(result, 'params.yaml') as Record<string, unknown>[];
    const by = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(by.NODE_COUNT).toMatchObject({ type: 'integer', default: 3, group: 'nodes', description: 'Number of quorum nodes.' });
    expect(by.MEMORY_MB).toMatchObject({ type: 'integer', default: 512 });
    expect(by.PARALLEL_START).toMatchObject({ type: 'boolean', default: false });
    expect(by.CPUS).toMatchObject({ type: 'string', default: '250m' });
    expect(by.LOG_LEVEL).toMatchObject({ enum: ['debug', 'info', 'warn', 'error'] });
    expect(by.PEER_PORT).toMatchObject({ type: 'integer', immutable: true });
    expect(by.SETTINGS).toMatchObject({ type: 'object', default: { 'snapshot.interval': '300', compaction: 'leveled' } });
    expect(by.EXTRA_ENV).toMatchObject({ type: 'array', default: [] });
    expect(by.ADMIN_PASSWORD).toEqual({ name: 'ADMIN_PASSWORD', type: 'string', description: 'Password of the admin user.', sensitive: true });
    expect(by.CHECK_TIMEOUT).toMatchObject({ trigger: 'check-now' });
  });

  it('reports what is not translated, located in the package', () => {
    expect(findings(result, 'untranslated')).toEqual(
      expect.arrayContaining([
        'operator.yaml:7:1 IMPORT_OPERATOR_VERSIONS',
        'params.yaml:2:1 IMPORT_PARAM_GROUPS',
        'params.yaml:9:5 IMPORT_PARAM_UI_FIELD',
      ]),
    );
    expect(findings(result, 'mapped')).toEqual(expect.arrayContaining(['params.yaml:11:5 IMPORT_PARAM_TYPE_INFERRED', 'operator.yaml:106:3 IMPORT_PLAN_NAME', 'params.yaml:64:5 IMPORT_PARAM_SENSITIVE']));
  });

  it('maps the KudoOperator task to an Instance task whose template renders the child from the parameterFile', async () => {
    expect(findings(result, 'mapped')).toEqual(expect.arrayContaining(['operator.yaml:45:5 IMPORT_TASK_KUDO_OPERATOR', 'operator.yaml:37:5 IMPORT_TASK_PIPE']));
    const child = result.files.find((f) => f.path === 'templates/coordination-instance.yaml.ejs')?.content ?? '';
    expect(child).toContain('name: <%= instance.name %>-zookeeper');
    expect(child).toContain('include("_zk-params.yaml")');
    expect(result.files.find((f) => f.path === 'templates/_zk-params.yaml.ejs')?.content).toContain('NODE_COUNT: <%= params.ZK_NODE_COUNT %>');
    const plan = await renderImported(renderer, result, { ADMIN_PASSWORD: 'pw-123456', ZK_NODE_COUNT: 5 });
    expect(plan.phases.flatMap((ph) => ph.steps.flatMap((st) => st.children ?? []))).toEqual([{ task: 'coordination', name: 'demo-zookeeper', framework: 'zookeeper', version: '0.3.0', params: { NODE_COUNT: 5 } }]);
  });

  it('is refused by the check while the child framework is not in the repository (located at the task), and passes once it is', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'baton-import-child-'));
    try {
      const alone: ImportResult = { ...result, findings: [...result.findings] };
      await checkImport(alone, renderer, repo);
      expect(errorsOf(alone)).toEqual([expect.stringMatching(/^frameworks\/quorum\/0\.1\.0\/framework\.yaml:\d+:\d+ VALIDATE_CHILD_FRAMEWORK_UNKNOWN$/)]);
      expect(alone.findings.find((f) => f.code === 'VALIDATE_CHILD_FRAMEWORK_UNKNOWN')?.message).toContain('framework "zookeeper" does not exist under frameworks/');
      const zookeeper = importKudo(readPackageDir(KUDO_ZOOKEEPER, 'zookeeper-0.3.0'));
      await checkImport(zookeeper, renderer, repo);
      expect(errorsOf(zookeeper)).toEqual([]);
      writeImport(zookeeper, repo, { reportMarkdown: '' });
      const checked: ImportResult = { ...result, findings: [...result.findings] };
      await checkImport(checked, renderer, repo);
      expect(errorsOf(checked)).toEqual([]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('passes the checks of baton validate (warnings only) and renders its deploy plan', async () => {
    const plan = await renderImported(renderer, result, { ADMIN_PASSWORD: 'pw-123456', NODE_COUNT: 2, EXTRA_ENV: [{ name: 'A', value: 1 }] });
    const [sts] = objectsOf(plan, 'StatefulSet') as unknown as { spec: { replicas: number; template: { spec: { containers: { args: string[]; env: { name: string; value: string }[] }[] } } } }[];
    expect(sts!.spec.replicas).toBe(2);
    const c = sts!.spec.template.spec.containers[0]!;
    expect(c.args).toEqual(['--cluster=demo', '--peers=demo-0.demo-hs:7401,demo-1.demo-hs:7401', '--heap=384m']);
    expect(c.env).toEqual(expect.arrayContaining([{ name: 'NODE_COUNT', value: '2' }, { name: 'LOG_LEVEL', value: 'INFO' }, { name: 'A', value: '1' }]));
    const [cm] = objectsOf(plan, 'ConfigMap') as unknown as { data: Record<string, string> }[];
    expect(cm!.data['nodes.txt']).toBe('demo-0\ndemo-1\n');
    expect(cm!.data['quorum.conf']).toBe('cluster.name=demo\nclient.port=7400\nlog.level=INFO\ncompaction=leveled\nsnapshot.interval=300\n');
    expect(cm!.data.summary).toBe('2 nodes, info');
  });
});

function withFile(path: string, content: string | ((s: string) => string)): ImportResult {
  const pkg = readPackageDir(KUDO_QUORUM, 'quorum-0.1.0');
  pkg.files.set(path, typeof content === 'string' ? content : content(pkg.files.get(path) ?? ''));
  return importKudo(pkg);
}

describe('bad input is located and nothing is written', () => {
  it.each([
    ['malformed YAML in operator.yaml', () => withFile('operator.yaml', (s) => s.replace('tasks:', 'tasks: [')), /^operator\.yaml:\d+:\d+ IMPORT_YAML_SYNTAX$/],
    ['malformed YAML in params.yaml', () => withFile('params.yaml', 'parameters:\n  - name: A\n   default: x\n'), /^params\.yaml:3:\d+ IMPORT_YAML_SYNTAX$/],
    ['duplicate keys', () => withFile('operator.yaml', (s) => s.replace('url:', 'name: again\nurl:')), /^operator\.yaml:\d+:\d+ IMPORT_YAML_SYNTAX$/],
    ['an unknown task kind', () => withFile('operator.yaml', (s) => s.replace('kind: Delete', 'kind: Remove')), /^operator\.yaml:\d+:5 IMPORT_TASK_KIND$/],
    ['a task naming a missing template', () => withFile('operator.yaml', (s) => s.replace('- pdb.yaml', '- nope.yaml')), /^operator\.yaml:\d+:5 IMPORT_TEMPLATE_MISSING$/],
    ['a Toggle on a string parameter', () => withFile('operator.yaml', (s) => s.replace('parameter: METRICS_ENABLED', 'parameter: CPUS')), /^operator\.yaml:\d+:5 IMPORT_TASK_TOGGLE$/],
    ['a step naming an undeclared task', () => withFile('operator.yaml', (s) => s.replace('- name: cleanup\n            tasks:\n              - remove-check', '- name: cleanup\n            tasks:\n              - remove-chek')), /IMPORT_STEP_TASK$/],
    ['an operatorVersion that is not a version', () => withFile('operator.yaml', (s) => s.replace('operatorVersion: "0.1.0"', 'operatorVersion: "latest"')), /^operator\.yaml:5:1 IMPORT_OPERATOR_VERSION$/],
    ['a default that does not fit its type', () => withFile('params.yaml', (s) => s.replace('default: 512', 'default: lots')), /^params\.yaml:\d+:5 IMPORT_PARAM_DEFAULT$/],
    ['a trigger naming no plan', () => withFile('params.yaml', (s) => s.replace('trigger: checkNow', 'trigger: nope')), /^params\.yaml:\d+:5 IMPORT_PARAM_TRIGGER$/],
    ['a template syntax error', () => withFile('templates/pdb.yaml', (s) => s.replace('{{ .Name }}', '{{ .Name }')), /^templates\/pdb\.yaml:5:18 IMPORT_TEMPLATE_SYNTAX$/],
    ['an unknown function in a template', () => withFile('templates/service.yaml', (s) => s.replace('{{ .Params.SERVICE_TYPE }}', '{{ .Params.SERVICE_TYPE | shout }}')), /^templates\/service\.yaml:\d+:\d+ IMPORT_TEMPLATE_UNKNOWN_FUNCTION$/],
    ['no operator.yaml', () => importKudo({ source: 'x', files: new Map() }), /^operator\.yaml:0:0 IMPORT_FILE_MISSING$/],
    ['a KudoOperator task without a package', () => withFile('operator.yaml', (s) => s.replace('package: zookeeper', 'package: ""')), /^operator\.yaml:45:5 IMPORT_TASK_KUDO_OPERATOR$/],
    ['a KudoOperator operatorVersion that is not a version', () => withFile('operator.yaml', (s) => s.replace('operatorVersion: 0.3.0', 'operatorVersion: newest')), /^operator\.yaml:45:5 IMPORT_TASK_KUDO_OPERATOR$/],
    ['a KudoOperator parameterFile that does not exist', () => withFile('operator.yaml', (s) => s.replace('parameterFile: zk-params.yaml', 'parameterFile: nope.yaml')), /^operator\.yaml:45:5 IMPORT_TEMPLATE_MISSING$/],
  ])('%s', (_name, run, pattern) => {
    const result = run();
    const errors = errorsOf(result);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((e) => pattern.test(e)), errors.join('\n')).toBe(true);
    const repo = mkdtempSync(join(tmpdir(), 'baton-import-refused-'));
    try {
      expect(refusal(result, repo, false)).toBeDefined();
      expect(() => writeImport(result, repo, { reportMarkdown: '' })).toThrow(ImportRefusedError);
      expect(readdirSync(repo)).toEqual([]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('writes a failed import only with --force, together with its report (IMPORT.md)', () => {
    const result = withFile('templates/service.yaml', (s) => s.replace('{{ .Params.SERVICE_TYPE }}', '{{ .Params.SERVICE_TYPE | shout }}'));
    const repo = mkdtempSync(join(tmpdir(), 'baton-import-force-'));
    try {
      const written = writeImport(result, repo, { force: true, reportMarkdown: formatImportMarkdown({ result, written: 'frameworks/quorum/0.1.0' }) });
      expect(written).toBe('frameworks/quorum/0.1.0');
      const report = readFileSync(join(repo, written, 'IMPORT.md'), 'utf8');
      expect(report).toContain('## Errors');
      expect(report).toMatch(/`templates\/service\.yaml:\d+:\d+` \| IMPORT_TEMPLATE_UNKNOWN_FUNCTION/);
      expect(existsSync(join(repo, written, 'templates/statefulset.yaml.ejs'))).toBe(true);
      expect(readdirSync(join(repo, 'frameworks/quorum'))).toEqual(['0.1.0']);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('replaces an existing version only with --force, in one step', () => {
    const result = importKudo(readPackageDir(KUDO_QUORUM, 'quorum-0.1.0'));
    const repo = mkdtempSync(join(tmpdir(), 'baton-import-replace-'));
    try {
      writeImport(result, repo, { reportMarkdown: 'first' });
      writeFileSync(join(repo, 'frameworks/quorum/0.1.0/stale.txt'), 'x');
      expect(() => writeImport(result, repo, { reportMarkdown: 'second' })).toThrow(/exists: a published version should not change/);
      writeImport(result, repo, { force: true, reportMarkdown: 'second' });
      expect(readFileSync(join(repo, 'frameworks/quorum/0.1.0/IMPORT.md'), 'utf8')).toBe('second');
      expect(existsSync(join(repo, 'frameworks/quorum/0.1.0/stale.txt'))).toBe(false);
      expect(readdirSync(join(repo, 'frameworks/quorum'))).toEqual(['0.1.0']);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe('older package forms', () => {
  it('reads params.yaml in the older map form and `version:` in operator.yaml', () => {
    const pkg = kudoPackage('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\ndata:\n  a: {{ .Params.A }}\n');
    pkg.files.set('params.yaml', 'A:\n  default: "x"\n  description: old style\n');
    pkg.files.set('operator.yaml', (pkg.files.get('operator.yaml') ?? '').replace('operatorVersion: 1.0.0', 'version: "1.0"'));
    const result = importKudo(pkg);
    expect(errorsOf(result)).toEqual([]);
    expect(result.framework.version).toBe('1.0.0');
    expect(file(result, 'params.yaml')).toEqual([{ name: 'A', type: 'string', description: 'old style', default: 'x' }]);
  });
});


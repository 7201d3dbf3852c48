/**
 * `baton import dcos` as a library: the universe package chain (config.json -> marathon.json.mustache ->
 * svc.yml variables) becomes typed parameters; pods, tasks and plans become Kubernetes objects and Baton
 * plans; bad input is located in svc.yml (through the Mustache expansion) and nothing is written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Renderer } from '../../src/render/index.js';
import { checkImport, importDcos, readPackageDir, type DcosImportOptions, type ImportResult } from '../../src/import/index.js';
import { DCOS_LEDGER, errorsOf, objectsOf, renderImported } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());

const service = readPackageDir(join(DCOS_LEDGER, 'service'), 'service');
const svcText = service.files.get('svc.yml')!;

function ledger(over: Partial<DcosImportOptions> = {}, svc = svcText): ImportResult {
  return importDcos({
    svc: { file: 'svc.yml', text: svc },
    files: service.files,
    pkg: readPackageDir(join(DCOS_LEDGER, 'package'), 'package'),
    options: { file: 'options.json', text: readFileSync(join(DCOS_LEDGER, 'options.json'), 'utf8') },
    ...over,
  });
}

function file(result: ImportResult, path: string): unknown {
  return parse(result.files.find((f) => f.path === path)!.content);
}

function codes(result: ImportResult, level: string): string[] {
  return result.findings.filter((f) => f.level === level).map((f) => `${f.at.file}:${f.at.line}:${f.at.column} ${f.code}`);
}

/* eslint-disable @typescript-eslint/no-unsafe-return -- parsed YAML documents, matched field by field */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML documents, matched field by field
type Obj = Record<string, any>;

describe('the ledger service with its universe package and options', () => {
  const result = ledger();

  it('follows config.json -> marathon.json.mustache -> svc.yml: typed parameters named after the variables, options.json values as defaults', () => {
    expect(errorsOf(result)).toEqual([]);
    expect(result.framework).toEqual({ name: 'ledger', version: '2.1.0', appVersion: '' });
    const params = file(result, 'params.yaml') as Obj[];
    const by = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(Object.keys(by).sort()).toEqual(['BACKUP_TARGET', 'DATA_COUNT', 'DATA_CPUS', 'DATA_DISK', 'DATA_MEM', 'DATA_PORT', 'META_CPUS', 'META_DISK', 'META_MEM', 'TASKCFG_ALL_DATA_REPLICATION', 'TASKCFG_DATA_DATA_COMPACTION']);
    expect(by.DATA_COUNT).toEqual({ name: 'DATA_COUNT', type: 'integer', description: 'Number of data nodes', default: 2, minimum: 1, group: 'data' });
    expect(by.META_CPUS).toMatchObject({ type: 'number', default: 0.5, minimum: 0.1 });
    expect(by.TASKCFG_DATA_DATA_COMPACTION).toMatchObject({ type: 'string', default: 'tiered', enum: ['leveled', 'tiered', ''] });
    expect(codes(result, 'mapped')).toEqual(expect.arrayContaining(['options.json:0:0 IMPORT_DCOS_OPTION', 'svc.yml:78:11 IMPORT_MUSTACHE_SECTION', 'svc.yml:107:9 IMPORT_DCOS_FIXED_AT_IMPORT']));
  });

  it('reports scheduler-only concepts and canary strategies as not translated, located in svc.yml', () => {
    expect(codes(result, 'untranslated')).toEqual(
      expect.arrayContaining(['svc.yml:4:1 IMPORT_DCOS_SCHEDULER', 'svc.yml:12:5 IMPORT_DCOS_SCHEDULER_ONLY', 'svc.yml:14:5 IMPORT_DCOS_SCHEDULER_ONLY', 'svc.yml:117:7 IMPORT_DCOS_CANARY', 'ledger.conf.mustache:6:12 IMPORT_DCOS_CONFIG_RUNTIME_VARIABLE']),
    );
  });

  it('keeps a plan-level canary strategy (phases are the items it waits between)', () => {
    for (const strategy of ['serial-canary', 'parallel-canary']) {
      const canary = ledger({}, svcText.replace('  update:\n    strategy: serial', `  update:\n    strategy: ${strategy}`));
      expect(codes(canary, 'error')).toEqual([]);
      expect((file(canary, 'framework.yaml') as Obj).plans.update.strategy).toBe(strategy);
      expect(canary.findings).toContainEqual(expect.objectContaining({ level: 'mapped', code: 'IMPORT_DCOS_CANARY', at: expect.objectContaining({ file: 'svc.yml', line: 111 }) }));
    }
    const unknown = ledger({}, svcText.replace('  update:\n    strategy: serial', '  update:\n    strategy: canary-ish'));
    expect(codes(unknown, 'error')).toEqual(['svc.yml:111:3 IMPORT_DCOS_STRATEGY']);
  });

  it('maps plans: deploy runs the pods in order, backup deletes and re-runs a Job', () => {
    const fw = file(result, 'framework.yaml') as Obj;
    expect(Object.keys(fw.plans)).toEqual(['deploy', 'update', 'backup']);
    expect(fw.plans.deploy.phases.map((p: Obj) => `${p.name}: ${p.steps.map((s: Obj) => s.tasks.join('+')).join(', ')}`)).toEqual(['meta: meta', 'data: data']);
    expect(fw.plans.backup.phases[0].steps.map((s: Obj) => s.tasks)).toEqual([['remove-data-backup'], ['data-backup']]);
  });

  it('passes the checks of baton validate', async () => {
    const checked: ImportResult = { ...result, findings: [...result.findings] };
    await checkImport(checked, renderer);
    expect(errorsOf(checked)).toEqual([]);
  });

  it('renders a StatefulSet per pod: count, init container, containers, env, resources, probes, volumes, placement', async () => {
    const plan = await renderImported(renderer, result, { DATA_COUNT: 4 });
    const data = objectsOf(plan, 'StatefulSet').find((o) => o.metadata.name === 'demo-data') as unknown as Obj;
    expect(data.spec).toMatchObject({ replicas: 4, serviceName: 'demo-data-hs', podManagementPolicy: 'Parallel' });
    const pod = data.spec.template.spec;
    expect(pod.initContainers.map((c: Obj) => c.name)).toEqual(['init']);
    expect(pod.initContainers[0].readinessProbe).toBeUndefined();
    const server = pod.containers[0];
    expect(server).toMatchObject({
      name: 'server',
      image: 'registry.example.com/ledger:1.4.2',
      command: ['/bin/sh', '-c', 'exec ledger-data --config conf/ledger.conf'],
      ports: [{ name: 'client', containerPort: 9042 }],
      resources: { requests: { cpu: '1', memory: '1024Mi' }, limits: { memory: '1024Mi' } },
      livenessProbe: { exec: { command: ['/bin/sh', '-c', 'ledger-cli --port $PORT_CLIENT ping'] }, periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 5 },
      startupProbe: { periodSeconds: 10, failureThreshold: 6 },
      readinessProbe: { periodSeconds: 5, timeoutSeconds: 10 },
    });
    const env = Object.fromEntries(server.env.map((e: Obj) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({ PORT_CLIENT: '9042', DATA_REPLICATION: '3', DATA_COMPACTION: 'tiered', LEDGER_CLUSTER: 'demo', FRAMEWORK_NAME: 'demo', MESOS_SANDBOX: '/mnt/mesos/sandbox', TASK_NAME: '$(POD_NAME)-server' });
    expect(env.LEDGER_TLS).toBeUndefined();
    expect(pod.terminationGracePeriodSeconds).toBe(30);
    expect(pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).toBe('kubernetes.io/hostname');
    expect(pod.topologySpreadConstraints[0]).toMatchObject({ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1 });
    expect(data.spec.volumeClaimTemplates).toEqual([{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5000Mi' } } } }]);
    expect(server.volumeMounts).toEqual(expect.arrayContaining([{ name: 'data', mountPath: '/mnt/mesos/sandbox/data' }, { name: 'config', mountPath: '/mnt/mesos/sandbox/conf/ledger.conf', subPath: 'server-ledger-conf', readOnly: true }]));
    const [cm] = objectsOf(plan, 'ConfigMap') as unknown as Obj[];
    expect(cm!.data['server-ledger-conf']).toBe('# ledger data node configuration, rendered for every data node\ncluster=demo\ndata.dir=/mnt/mesos/sandbox/data\nclient.port=9042\nreplication=3\nnode.index=${POD_INSTANCE_INDEX}\ncompaction=tiered\n');
    const services = objectsOf(plan, 'Service').map((s) => s.metadata.name);
    expect(services).toEqual(expect.arrayContaining(['demo-meta-hs', 'demo-meta', 'demo-data-hs', 'demo-data']));
  });

  it('renders the backup plan as an Indexed Job with one completion per pod instance', async () => {
    const plan = await renderImported(renderer, result, {}, 'backup');
    const [job] = objectsOf(plan, 'Job') as unknown as Obj[];
    expect(job!.spec).toMatchObject({ completions: 2, parallelism: 1, completionMode: 'Indexed' });
    expect(job!.spec.template.spec.containers[0].command[2]).toBe('ledger-backup --to s3://backups/ledger/$POD_INSTANCE_INDEX');
  });
});

describe('without the package', () => {
  const simple = `name: {{FRAMEWORK_NAME}}
pods:
  web:
    count: {{WEB_COUNT}}
    image: {{WEB_IMAGE}}
    tasks:
      server:
        goal: RUNNING
        cmd: "serve --port {{WEB_PORT}}"
        cpus: 0.1
        memory: 64
`;

  it('makes every variable a required string parameter', async () => {
    const result = importDcos({ svc: { file: 'svc.yml', text: simple }, files: new Map(), name: 'web' });
    expect(errorsOf(result)).toEqual([]);
    expect(file(result, 'params.yaml')).toEqual([
      { name: 'WEB_COUNT', type: 'string' },
      { name: 'WEB_IMAGE', type: 'string' },
      { name: 'WEB_PORT', type: 'string' },
    ]);
    const plan = await renderImported(renderer, result, { WEB_COUNT: '2', WEB_IMAGE: 'nginx:1.27', WEB_PORT: '8080' });
    const [sts] = objectsOf(plan, 'StatefulSet') as unknown as Obj[];
    expect(sts!.spec.replicas).toBe(2);
    expect(sts!.spec.template.spec.containers[0]).toMatchObject({ image: 'nginx:1.27', command: ['/bin/sh', '-c', 'serve --port 8080'] });
  });

  it('refuses sections: they have no value at import time (located)', () => {
    const result = importDcos({ svc: { file: 'svc.yml', text: svcText }, files: service.files });
    expect(codes(result, 'error')).toEqual(expect.arrayContaining(['svc.yml:78:11 IMPORT_MUSTACHE_SECTION', 'svc.yml:3:1 IMPORT_DCOS_NAME', 'svc.yml:11:5 IMPORT_DCOS_IMPORT_VALUE']));
  });
});

describe('bad input is located in svc.yml', () => {
  it.each([
    ['malformed YAML after Mustache', svcText.replace('    count: 1\n', '    count: [1\n'), /^svc\.yml:(9|10):\d+ IMPORT_YAML_SYNTAX$/],
    ['a Mustache syntax error', svcText.replace('{{/DATA_TLS_ENABLED}}', '{{/DATA_TLS}}'), /^svc\.yml:\d+:\d+ IMPORT_MUSTACHE_SYNTAX$/],
    ['an unknown goal', svcText.replace('goal: FINISH\n        cmd: "ledger-init', 'goal: SOMETIMES\n        cmd: "ledger-init'), /^svc\.yml:64:9 IMPORT_DCOS_GOAL$/],
    ['a phase of an unknown pod', svcText.replace('pod: meta\n      data:\n        strategy: {{DEPLOY', 'pod: metta\n      data:\n        strategy: {{DEPLOY'), /^svc\.yml:\d+:\d+ IMPORT_DCOS_PHASE$/],
    ['a variable the package does not set', svcText.replace('cmd: "ledger-init --data data"', 'cmd: "ledger-init --data {{NOPE}}"'), /^svc\.yml:65:9 IMPORT_DCOS_VARIABLE$/],
    ['a missing config template', svcText.replace('template: ledger.conf.mustache', 'template: missing.mustache'), /^svc\.yml:73:13 IMPORT_DCOS_CONFIG_MISSING$/],
    ['a task without a cmd', svcText.replace('        cmd: "ledger-init --data data"\n', ''), /^svc\.yml:63:7 IMPORT_DCOS_CMD$/],
  ])('%s', (_name, text, pattern) => {
    const result = ledger({}, text);
    const errors = errorsOf(result);
    expect(errors.some((e) => pattern.test(e)), errors.join('\n')).toBe(true);
  });

  it('reports a marathon.json.mustache that does not render to JSON', () => {
    const pkg = readPackageDir(join(DCOS_LEDGER, 'package'), 'package');
    pkg.files.set('marathon.json.mustache', (pkg.files.get('marathon.json.mustache') ?? '').replace('"instances": 1,', '"instances": 1'));
    expect(errorsOf(ledger({ pkg }))).toEqual(['marathon.json.mustache:0:0 IMPORT_MARATHON_JSON']);
  });
});

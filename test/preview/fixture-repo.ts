/**
 * A small GitOps repository in a real Git repository, for preview tests: a `kv` framework in two
 * versions (1.1.0 adds an `upgrade` plan) and helpers to change files and commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const FRAMEWORK = (version: string, withUpgrade: boolean): string => `apiVersion: baton.dev/v1alpha1
kind: Framework
name: kv
version: ${version}
appVersion: "${version === '1.0.0' ? '7.0' : '7.2'}"
tasks:
  - { name: config, kind: Apply, resources: [config.yaml.ejs, secret.yaml.ejs] }
  - { name: server, kind: Apply, resources: [server.yaml.ejs] }
  - { name: backup, kind: Apply, resources: [backup.yaml.ejs] }
  - { name: drop-backup, kind: Delete, resources: [backup.yaml.ejs] }
plans:
  deploy:
    phases:
      - name: main
        steps:
          - { name: config, tasks: [config] }
          - { name: server, tasks: [server] }
  update:
    phases:
      - name: main
        steps:
          - { name: config, tasks: [config] }
          - { name: server, tasks: [server] }
${withUpgrade ? `  upgrade:
    phases:
      - name: migrate
        steps:
          - { name: server, tasks: [config, server] }
` : ''}  backup:
    phases:
      - name: snapshot
        steps:
          - { name: run, tasks: [drop-backup, backup] }
  cleanup:
    phases:
      - name: cleanup
        steps:
          - { name: drop, tasks: [drop-backup] }
`;

const PARAMS = `- { name: REPLICAS, type: integer, default: 1, minimum: 1, description: Servers }
- { name: MAXMEMORY, type: string, default: 64mb, description: Memory limit of the cache }
- { name: STORAGE_CLASS, type: string, default: standard, immutable: true, description: Storage class }
- { name: PASSWORD, type: string, sensitive: true, description: Password }
- { name: BACKUP_BUCKET, type: string, default: backups, trigger: backup, description: Where backups go }
`;

const TEMPLATES: Record<string, string> = {
  'config.yaml.ejs': `apiVersion: v1
kind: ConfigMap
metadata:
  name: <%= instance.name + '-config' %>
data:
  maxmemory: <%= params.MAXMEMORY %>
  bucket: <%= params.BACKUP_BUCKET %>
`,
  'secret.yaml.ejs': `apiVersion: v1
kind: Secret
metadata:
  name: <%= instance.name + '-auth' %>
stringData:
  password: <%= params.PASSWORD %>
`,
  'server.yaml.ejs': `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: <%= instance.name %>
spec:
  serviceName: <%= instance.name %>
  replicas: <%= params.REPLICAS %>
  selector:
    matchLabels: <%- toJson(selectorLabels) %>
  template:
    metadata:
      labels: <%- toJson(selectorLabels) %>
    spec:
      containers:
        - name: kv
          image: <%= 'redis:' + framework.appVersion %>
          volumeMounts: [{ name: config, mountPath: /etc/kv }]
      volumes:
        - name: config
          configMap: { name: <%= instance.name + '-config' %> }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec:
        storageClassName: <%= params.STORAGE_CLASS %>
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 1Gi } }
`,
  'backup.yaml.ejs': `apiVersion: batch/v1
kind: Job
metadata:
  name: <%= instance.name + '-backup' %>
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: backup
          image: redis:7.2
          command: [sh, -c, <%= 'redis-cli save && echo to ' + params.BACKUP_BUCKET %>]
`,
};

export class FixtureRepo {
  readonly dir: string;
  private tick = 0;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'baton-preview-'));
    this.git('init', '-q', '-b', 'main');
    this.writeFramework('1.0.0', false);
    this.writeFramework('1.1.0', true);
  }

  writeFramework(version: string, withUpgrade: boolean): void {
    const base = `frameworks/kv/${version}`;
    this.write(`${base}/framework.yaml`, FRAMEWORK(version, withUpgrade));
    this.write(`${base}/params.yaml`, PARAMS);
    for (const [name, text] of Object.entries(TEMPLATES)) this.write(`${base}/templates/${name}`, text);
  }

  instance(ns: string, name: string, version: string, params: Record<string, unknown>, schedules = ''): void {
    const lines = Object.entries(params).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
    this.write(`instances/${ns}/${name}.yaml`, `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: kv\nversion: ${version}\nparams:\n${lines.join('\n')}\n${schedules}`);
  }

  write(path: string, text: string): void {
    const full = join(this.dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }

  remove(path: string): void {
    rmSync(join(this.dir, path), { recursive: true, force: true });
  }

  /** Commits everything with fixed dates so commit ids are stable; returns the commit id. */
  commit(message: string): string {
    this.tick += 1;
    const date = `2026-01-01T00:00:${String(this.tick).padStart(2, '0')}Z`;
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message, { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
    return this.git('rev-parse', 'HEAD').trim();
  }

  git(...args: (string | Record<string, string>)[]): string {
    const env = typeof args[args.length - 1] === 'object' ? (args.pop() as Record<string, string>) : {};
    return execFileSync('git', args as string[], {
      cwd: this.dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com', ...env },
    });
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

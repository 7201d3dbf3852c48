/**
 * End to end: a KUDO operator and a DC/OS service are imported through the CLI into a repository, the
 * repository validates, and their plans complete on the simulated cluster (`baton test`, which starts
 * it): deploy, a KUDO re-import of a newer operatorVersion that existing instances upgrade to through
 * Baton's upgrade plan, and a DC/OS custom plan (backup) that runs a Job per pod instance.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { DCOS_LEDGER, FIXTURES } from './support.js';

let repo: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}

async function baton(...args: string[]): Promise<{ code: number; out: string }> {
  const io: CliIO & { out: string } = { out: '', isTTY: false, cwd: repo, exitCode: 0, stdout: (t) => void (io.out += t), stderr: (t) => void (io.out += t) };
  const code = await main(['node', 'baton', ...args], io);
  return { code, out: io.out };
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-import-e2e-'));
  write('baton.yaml', 'apiVersion: baton.dev/v1alpha1\nkind: Repository\n');
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const QUORUM_PARAMS = '{ ADMIN_PASSWORD: "s3cret-admin-pw", METRICS_ENABLED: true }';

describe('an imported KUDO operator on the simulated cluster', () => {
  it('imports 0.1.0 and its deploy plan completes: the KudoOperator dependency as a child instance, the Pipe task\'s Secret, nodes ready, check Job done, metrics Service toggled on', async () => {
    const dependency = await baton('import', 'kudo', join(FIXTURES, 'kudo/zookeeper-0.3.0'), '--repo', '.');
    expect(dependency.code, dependency.out).toBe(0);
    const imported = await baton('import', 'kudo', join(FIXTURES, 'kudo/quorum-0.1.0'), '--repo', '.');
    expect(imported.code, imported.out).toBe(0);
    expect(imported.out).toContain('written: frameworks/quorum/0.1.0');
    expect(existsSync(join(repo, 'frameworks/quorum/0.1.0/IMPORT.md'))).toBe(true);
    write('frameworks/quorum/0.1.0/tests/deploy.yaml', `name: deploys the quorum
instance: q
params: ${QUORUM_PARAMS}
steps:
  - name: deploy
    assert:
      - { apiVersion: apps/v1, kind: StatefulSet, metadata: { name: q }, spec: { replicas: 3, podManagementPolicy: OrderedReady }, status: { readyReplicas: 3 } }
      - { apiVersion: apps/v1, kind: StatefulSet, metadata: { name: q-zookeeper }, spec: { replicas: 1 }, status: { readyReplicas: 1 } }
      - { apiVersion: v1, kind: Secret, metadata: { name: q-pipe-gen-certs }, data: { ca.crt: "${Buffer.from('-----BEGIN CERTIFICATE-----\nsimulated\n-----END CERTIFICATE-----\n').toString('base64')}" } }
      - { apiVersion: batch/v1, kind: Job, metadata: { name: q-certs }, status: { succeeded: 1 } }
      - { apiVersion: v1, kind: Service, metadata: { name: q-metrics } }
      - { apiVersion: v1, kind: ConfigMap, metadata: { name: q-config, labels: { plan: deploy } } }
      - { apiVersion: batch/v1, kind: Job, metadata: { name: q-check }, status: { succeeded: 1 } }
  - name: check on demand (a renamed KUDO plan)
    plan: check-now
  - name: removal
    remove: true
    expect: REMOVED
    absent: [{ apiVersion: apps/v1, kind: StatefulSet, name: q }, { apiVersion: apps/v1, kind: StatefulSet, name: q-zookeeper }, { apiVersion: v1, kind: Secret, name: q-pipe-gen-certs }]
`);
    const tested = await baton('test', 'frameworks/quorum/0.1.0');
    expect(tested.code, tested.out).toBe(0);
    expect(tested.out).toContain('1 passed, 0 failed');
    expect(tested.out).not.toContain('s3cret-admin-pw');
  }, 180_000);

  it('imports 0.2.0 beside 0.1.0, and an instance on 0.1.0 moves to it through the upgrade plan', async () => {
    const before = readFileSync(join(repo, 'frameworks/quorum/0.1.0/framework.yaml'), 'utf8');
    const imported = await baton('import', 'kudo', join(FIXTURES, 'kudo/quorum-0.2.0'), '--repo', '.');
    expect(imported.code, imported.out).toBe(0);
    expect(imported.out).toContain('IMPORT_NEW_VERSION');
    expect(readFileSync(join(repo, 'frameworks/quorum/0.1.0/framework.yaml'), 'utf8')).toBe(before);
    write('frameworks/quorum/0.2.0/tests/upgrade.yaml', `name: upgrades from 0.1.0
instance: q
params: ${QUORUM_PARAMS}
steps:
  - name: deploy 0.1.0
    version: 0.1.0
  - name: upgrade to 0.2.0
    version: 0.2.0
    assert:
      - { apiVersion: v1, kind: ConfigMap, metadata: { name: q-config, labels: { plan: upgrade } } }
      - apiVersion: apps/v1
        kind: StatefulSet
        metadata: { name: q }
        spec: { template: { spec: { containers: [{ name: quorum, image: "registry.example.com/quorum:1.5.0" }] } } }
        status: { readyReplicas: 3, updatedReplicas: 3 }
`);
    const tested = await baton('test', 'frameworks/quorum/0.2.0');
    expect(tested.code, tested.out).toBe(0);
  }, 180_000);

  it('refuses to import the same version again (a published version does not change) and changes nothing', async () => {
    const before = readFileSync(join(repo, 'frameworks/quorum/0.2.0/framework.yaml'), 'utf8');
    const again = await baton('import', 'kudo', join(FIXTURES, 'kudo/quorum-0.2.0'), '--repo', '.');
    expect(again.code).toBe(1);
    expect(again.out).toContain('not written: frameworks/quorum/0.2.0 exists');
    expect(readFileSync(join(repo, 'frameworks/quorum/0.2.0/framework.yaml'), 'utf8')).toBe(before);
  }, 60_000);
});

describe('an imported DC/OS service on the simulated cluster', () => {
  it('imports with its package and options; deploy starts both pods with their volumes, backup runs a Job per data node', async () => {
    const imported = await baton('import', 'dcos', join(DCOS_LEDGER, 'service/svc.yml'), '--package', join(DCOS_LEDGER, 'package'), '--options', join(DCOS_LEDGER, 'options.json'), '--repo', '.');
    expect(imported.code, imported.out).toBe(0);
    write('frameworks/ledger/2.1.0/tests/deploy.yaml', `name: deploys the ledger and backs it up
instance: l
steps:
  - name: deploy
    assert:
      - { apiVersion: apps/v1, kind: StatefulSet, metadata: { name: l-meta }, status: { readyReplicas: 1 } }
      - { apiVersion: apps/v1, kind: StatefulSet, metadata: { name: l-data }, spec: { replicas: 2, podManagementPolicy: Parallel }, status: { readyReplicas: 2 } }
      - { apiVersion: v1, kind: Service, metadata: { name: l-data }, spec: { ports: [{ port: 9042, targetPort: client }] } }
      - { apiVersion: v1, kind: PersistentVolumeClaim, metadata: { name: data-l-data-0 } }
  - name: backup
    plan: backup
    assert:
      - { apiVersion: batch/v1, kind: Job, metadata: { name: l-data-backup }, spec: { completions: 2 }, status: { succeeded: 2 } }
  - name: scale the data pods
    params: { DATA_COUNT: 3 }
    assert:
      - { apiVersion: apps/v1, kind: StatefulSet, metadata: { name: l-data }, status: { readyReplicas: 3 } }
`);
    const tested = await baton('test', 'frameworks/ledger/2.1.0');
    expect(tested.code, tested.out).toBe(0);
  }, 180_000);

  it('leaves a repository that baton validate accepts', async () => {
    const v = await baton('validate', '.');
    expect(v.code, v.out).toBe(0);
    expect(v.out).toContain('ok: checked 4 framework version(s)');
  }, 120_000);
});

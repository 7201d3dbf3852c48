/**
 * `baton apply` / `baton delete` / `baton plan status` in-process on a copy of repo-template (plus the
 * kafka instances the tests write) against the simulated cluster: the catalog frameworks' lifecycle
 * plans end to end. The stages of one
 * instance run in order (vitest runs a file's tests sequentially).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let repo: string;

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 20, readyDelayMs: 30 } });
  repo = mkdtempSync(join(tmpdir(), 'baton-e2e-repo-'));
  cpSync(join(process.cwd(), 'repo-template'), repo, { recursive: true });
  // The catalog lives once, in frameworks/ (baton init copies it in the same way).
  cpSync(join(process.cwd(), 'frameworks'), join(repo, 'frameworks'), { recursive: true });
});
afterAll(async () => {
  await cluster.stop();
  rmSync(repo, { recursive: true, force: true });
});

async function baton(...args: string[]): Promise<{ code: number; out: string; err: string; json: Record<string, unknown> }> {
  return batonWith([...args, '--kubeconfig', cluster.kubeconfigPath, '-o', 'json']);
}

/** A command that takes no cluster (validate, render), with its default text output. */
async function batonWith(args: string[]): Promise<{ code: number; out: string; err: string; json: Record<string, unknown> }> {
  const io: CliIO & { out: string; err: string } = {
    out: '', err: '', isTTY: false, cwd: repo, exitCode: 0,
    stdout: (t) => { io.out += t; },
    stderr: (t) => { io.err += t; },
  };
  const code = await main(['node', 'baton', ...args], io);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(io.out) as Record<string, unknown>;
  } catch {
    // not JSON: the assertion on `code` will show `err`
  }
  return { code, out: io.out, err: io.err, json };
}

const planOf = (json: Record<string, unknown>): unknown => (json['execution'] as { run?: { plan?: string } } | undefined)?.run?.plan;
const outcomeOf = (json: Record<string, unknown>): unknown => (json['execution'] as { outcome?: string } | undefined)?.outcome;

function edit(file: string, change: (text: string) => string): void {
  const path = join(repo, file);
  writeFileSync(path, change(readFileSync(path, 'utf8')));
}

describe('redis from the catalog: deploy, update, backup, restore, upgrade', () => {
  const file = 'instances/shop/cache.yaml';

  it('GIVEN a new instance WHEN applied THEN deploy runs to COMPLETE', async () => {
    const r = await baton('apply', file);
    expect(r.err).toBe('');
    expect([r.code, r.json['kind'], planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'ran', 'deploy', 'complete']);
    // Kubernetes Events on the applied objects, as the agent records them.
    const events = await cluster.kubectl(['get', 'events', '-n', 'shop', '--field-selector', 'reason=Applied,involvedObject.kind=StatefulSet', '-o', 'jsonpath={.items[*].message}']);
    expect(events.stdout).toMatch(/applied by Baton: shop\/cache plan deploy/);
  });

  it('GIVEN nothing changed WHEN applied again THEN nothing runs', async () => {
    const r = await baton('apply', file);
    expect([r.code, r.json['kind']]).toEqual([0, 'nothing']);
  });

  it('GIVEN a changed value WHEN applied THEN its trigger plan (update) runs', async () => {
    edit(file, (t) => t.replace('MEMORY: 128Mi', 'MEMORY: 192Mi'));
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'update', 'complete']);
  });

  it('runs the backup plan on request', async () => {
    const r = await baton('apply', file, '--plan', 'backup');
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'backup', 'complete']);
  });

  it('runs the restore plan with a one-shot argument', async () => {
    const r = await baton('apply', file, '--plan', 'restore', '--arg', 'BACKUP_NAME=latest.rdb');
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'restore', 'complete']);
    expect((r.json['execution'] as { run: { args: Record<string, string> } }).run.args).toEqual({ BACKUP_NAME: 'latest.rdb' });
  });

  it('GIVEN a higher framework version WHEN applied THEN upgrade runs', async () => {
    edit(file, (t) => t.replace('version: 1.0.0', 'version: 1.1.0'));
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'upgrade', 'complete']);
  });

  it('GIVEN a lower framework version WHEN applied THEN it is refused (exit 1) and nothing runs', async () => {
    edit(file, (t) => t.replace('version: 1.1.0', 'version: 1.0.0'));
    const r = await baton('apply', file);
    expect([r.code, r.json['kind'], (r.json['refusal'] as { code: string }).code]).toEqual([1, 'refused', 'VERSION_DOWNGRADE']);
  });

  it('shows the checkpoint with baton plan status', async () => {
    const r = await baton('plan', 'status', 'shop/cache');
    expect(r.code).toBe(0);
    expect((r.json['active'] as { plan: string; state: { status: string } })).toMatchObject({ plan: 'upgrade', state: { status: 'COMPLETE' } });
    expect(JSON.stringify(r.json)).not.toContain('demo-only-change-me');
  });
});

describe('postgresql from the catalog: deploy, then delete with its cleanup plan', () => {
  const file = 'instances/shop/orders-db.yaml';

  it('deploys', async () => {
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'deploy', 'complete']);
  });

  it('GIVEN a deployed instance WHEN deleted THEN cleanup runs and every owned object and the checkpoint are gone', async () => {
    const r = await baton('delete', file);
    expect(r.code).toBe(0);
    expect(r.json['kind']).toBe('removed');
    expect((r.json['cleanup'] as { outcome: string }).outcome).toBe('complete');
    const status = await baton('plan', 'status', 'shop/orders-db');
    expect(status.code).toBe(1);
    const left = await cluster.kubectl(['get', 'statefulsets,services,configmaps,secrets', '-n', 'shop', '-l', 'app.kubernetes.io/instance=orders-db', '-o', 'name']);
    expect(left.stdout.trim()).toBe('');
  });
});

describe('kafka from the catalog: KRaft deploy, topics, scale, upgrade, removal', () => {
  const file = 'instances/streaming/events.yaml';
  const instance = (version: string, params: string): string => `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: kafka\nversion: ${version}\nparams:\n${params}`;

  it('GIVEN a new kafka instance WHEN validated, rendered and applied THEN deploy completes with controllers, brokers, generated credentials and the topics Job', async () => {
    mkdirSync(join(repo, 'instances/streaming'), { recursive: true });
    writeFileSync(join(repo, file), instance('1.0.0', '  BROKERS: 3\n  METRICS_ENABLED: true\n  TOPICS: [{ name: orders, partitions: 6 }]\n'));
    const valid = await batonWith(['validate', '.']);
    expect([valid.code, valid.err, valid.out]).toEqual([0, '', expect.stringMatching(/^ok: checked \d+ framework version\(s\), 4 instance\(s\)/) as unknown]);
    const rendered = await batonWith(['render', file]);
    expect([rendered.code, rendered.err]).toEqual([0, '']);
    expect(rendered.out).toContain('kind: StatefulSet');
    const r = await baton('apply', file);
    expect(r.err).toBe('');
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'deploy', 'complete']);
    const sts = await cluster.kubectl(['get', 'statefulsets', '-n', 'streaming', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.readyReplicas} {end}']);
    expect(sts.stdout.trim().split(' ').sort()).toEqual(['events-broker=3', 'events-controller=3']);
    const job = await cluster.kubectl(['get', 'job', 'events-topics', '-n', 'streaming', '-o', 'jsonpath={.status.succeeded}']);
    expect(job.stdout).toBe('1');
    // The generated admin password is in the cluster (two Secrets), never in what Baton printed.
    const password = await cluster.kubectl(['get', 'secret', 'baton-generated-events', '-n', 'streaming', '-o', 'jsonpath={.data.ADMIN_PASSWORD}']);
    const plain = Buffer.from(password.stdout, 'base64').toString();
    expect(plain).toMatch(/^[A-Za-z0-9]{32}$/);
    const auth = await cluster.kubectl(['get', 'secret', 'events-auth', '-n', 'streaming', '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(auth.stdout, 'base64').toString()).toBe(plain);
    expect(r.out).not.toContain(plain);
    expect(rendered.out).not.toContain(plain);
  });

  it('GIVEN a new topic WHEN applied THEN only the topics plan runs', async () => {
    edit(file, (t) => t.replace('TOPICS: [{ name: orders, partitions: 6 }]', 'TOPICS: [{ name: orders, partitions: 6 }, { name: audit, config: { cleanup.policy: compact } }]'));
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'topics', 'complete']);
  });

  it('GIVEN more brokers WHEN applied THEN scale drains, grows and rebalances', async () => {
    edit(file, (t) => t.replace('BROKERS: 3', 'BROKERS: 4'));
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'scale', 'complete']);
    const ready = await cluster.kubectl(['get', 'statefulset', 'events-broker', '-n', 'streaming', '-o', 'jsonpath={.status.readyReplicas}']);
    expect(ready.stdout).toBe('4');
  });

  it('GIVEN version 1.1.0 WHEN applied THEN upgrade rolls controllers, then brokers, then checks the cluster', async () => {
    edit(file, (t) => t.replace('version: 1.0.0', 'version: 1.1.0'));
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'upgrade', 'complete']);
    const images = await cluster.kubectl(['get', 'statefulsets', '-n', 'streaming', '-o', 'jsonpath={.items[*].spec.template.spec.containers[0].image}']);
    expect(images.stdout.split(' ')).toEqual(['apache/kafka:3.9.1', 'apache/kafka:3.9.1']);
    const status = await baton('plan', 'status', 'streaming/events');
    expect(status.json['active']).toMatchObject({ plan: 'upgrade', state: { status: 'COMPLETE' } });
  });

  it('GIVEN the instance WHEN deleted THEN its cleanup plan completes and everything it owns, generated values included, goes', async () => {
    const r = await baton('delete', file);
    expect([r.code, r.json['kind'], (r.json['cleanup'] as { outcome: string }).outcome]).toEqual([0, 'removed', 'complete']);
    const left = await cluster.kubectl(['get', 'statefulsets,services,configmaps,secrets,jobs', '-n', 'streaming', '-l', 'app.kubernetes.io/instance=events', '-o', 'name']);
    expect(left.stdout.trim()).toBe('');
    const generated = await cluster.kubectl(['get', 'secret', 'baton-generated-events', '-n', 'streaming', '--ignore-not-found', '-o', 'name']);
    expect(generated.stdout.trim()).toBe('');
  });
});

describe('kafka from the catalog in ZooKeeper mode: its ZooKeeper is a child instance', () => {
  const file = 'instances/streaming/legacy.yaml';

  it('GIVEN MODE zookeeper WHEN applied THEN the zookeeper child deploys first, has its own checkpoint and plan status, and the brokers follow', async () => {
    writeFileSync(join(repo, file), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: kafka\nversion: 1.1.0\nparams:\n  MODE: zookeeper\n  BROKERS: 3\n  ZOOKEEPER_REPLICAS: 3\n');
    const r = await baton('apply', file);
    expect([r.code, planOf(r.json), outcomeOf(r.json)]).toEqual([0, 'deploy', 'complete']);
    const child = await baton('plan', 'status', 'streaming/legacy-zk');
    expect(child.code).toBe(0);
    expect(child.json['active']).toMatchObject({ plan: 'deploy', state: { status: 'COMPLETE' } });
    const sts = await cluster.kubectl(['get', 'statefulsets', '-n', 'streaming', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.readyReplicas} {end}']);
    expect(sts.stdout.trim().split(' ').sort()).toEqual(['legacy-broker=3', 'legacy-zk=3']);
    const parent = await baton('plan', 'status', 'streaming/legacy');
    expect(JSON.stringify(parent.json)).toContain('child streaming/legacy-zk (zookeeper): deploy COMPLETE, healthy');
  });

  it('GIVEN the instance WHEN deleted THEN the child goes after the brokers', async () => {
    const r = await baton('delete', file);
    expect([r.code, r.json['kind']]).toEqual([0, 'removed']);
    const deleted = (r.json['report'] as { deleted: string[] } | undefined)?.deleted ?? [];
    expect(deleted.indexOf('Instance streaming/legacy-zk')).toBeGreaterThan(deleted.findIndex((d) => d.includes('legacy-broker')));
    const left = await cluster.kubectl(['get', 'statefulsets', '-n', 'streaming', '-o', 'name']);
    expect(left.stdout.trim()).toBe('');
    expect((await baton('plan', 'status', 'streaming/legacy-zk')).code).toBe(1);
  });
});

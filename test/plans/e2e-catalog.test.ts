/**
 * `baton apply` / `baton delete` / `baton plan status` in-process on a copy of repo-template against
 * the simulated cluster: the catalog frameworks' lifecycle plans end to end. The stages of one
 * instance run in order (vitest runs a file's tests sequentially).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  const io: CliIO & { out: string; err: string } = {
    out: '', err: '', isTTY: false, cwd: repo, exitCode: 0,
    stdout: (t) => { io.out += t; },
    stderr: (t) => { io.err += t; },
  };
  const code = await main(['node', 'baton', ...args, '--kubeconfig', cluster.kubeconfigPath, '-o', 'json'], io);
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

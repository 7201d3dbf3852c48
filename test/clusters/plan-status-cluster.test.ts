/**
 * `baton plan status` (without --git) reads the checkpoint in the instance's target cluster, resolved
 * as `baton apply` resolves it (docs/clusters.md): the file's `cluster:` through baton.yaml, or
 * `--cluster NAME` for an instance that names none; a contradiction or an undeclared name is a usage
 * error (exit 2). Two simulated clusters, each instance applied with `baton apply` first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startClusters, type ClusterSet } from '../../src/cluster/index.js';
import { API, instance, webFramework } from '../sync/fixtures.js';

function captureIO(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd, exitCode: 0, stdout: (t: string) => { io.out += t; }, stderr: (t: string) => { io.err += t; } };
  return io;
}

let set: ClusterSet;
let repo: string;

const write = (path: string, text: string): void => {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
};

async function baton(...args: string[]): Promise<CliIO & { out: string; err: string }> {
  const io = captureIO(repo);
  io.exitCode = await main(['node', 'baton', ...args, '--kubeconfig', set.kubeconfigPath], io);
  return io;
}

beforeAll(async () => {
  set = await startClusters(2, { controllers: false });
  repo = mkdtempSync(join(tmpdir(), 'baton-status-cluster-'));
  for (const [path, text] of Object.entries(webFramework())) write(path, text);
  write('baton.yaml', [API, 'kind: Repository', 'clusters:', '  - { name: edge, context: baton-sim-2 }', ''].join('\n'));
  write('instances/shop/far.yaml', `${instance({ VALUE: 'far' })}cluster: edge\n`);
  write('instances/shop/home.yaml', instance({ VALUE: 'home' }));
  write('instances/shop/trial.yaml', instance({ VALUE: 'trial' }));
  for (const [file, extra] of [['instances/shop/far.yaml', []], ['instances/shop/home.yaml', []], ['instances/shop/trial.yaml', ['--cluster', 'edge']]] as const) {
    const r = await baton('apply', file, ...extra);
    expect(r.exitCode, r.err).toBe(0);
  }
}, 120_000);
afterAll(async () => {
  await set.stop();
  rmSync(repo, { recursive: true, force: true });
});

describe('baton plan status in the target cluster', () => {
  it('GIVEN an instance whose file says cluster: edge WHEN its status is read by key or by file THEN the checkpoint comes from edge, and the target is named', async () => {
    for (const target of ['shop/far', 'instances/shop/far.yaml']) {
      const r = await baton('plan', 'status', target);
      expect(r.exitCode, r.err).toBe(0);
      expect(r.out).toMatch(/^target: cluster edge \(context baton-sim-2, server http:\/\/127\.0\.0\.1:\d+\)\n/);
      expect(r.out).toMatch(/COMPLETE/);
    }
    const json = await baton('plan', 'status', 'shop/far', '-o', 'json');
    expect(json.exitCode, json.err).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ instance: { namespace: 'shop', name: 'far' } });
    expect(await baton('plan', 'status', 'shop/far', '--cluster', 'edge')).toMatchObject({ exitCode: 0 });
  });

  it('GIVEN an instance without cluster: THEN its status is read in the own cluster, with no target line; --cluster edge reads a trial applied there', async () => {
    const home = await baton('plan', 'status', 'shop/home');
    expect(home.exitCode, home.err).toBe(0);
    expect(home.out).not.toMatch(/^target:/);
    // Not on edge (it was applied in the own cluster), and the trial is only on edge.
    expect((await baton('plan', 'status', 'shop/home', '--cluster', 'edge')).exitCode).toBe(1);
    expect((await baton('plan', 'status', 'shop/trial')).exitCode).toBe(1);
    const trial = await baton('plan', 'status', 'shop/trial', '--cluster', 'edge');
    expect(trial.exitCode, trial.err).toBe(0);
    expect(trial.out).toMatch(/^target: cluster edge/);
  });

  it('GIVEN --cluster contradicting the file, or naming an undeclared cluster THEN a usage error (exit 2) naming both', async () => {
    write('baton.yaml', [API, 'kind: Repository', 'clusters:', '  - { name: edge, context: baton-sim-2 }', '  - { name: lab, context: baton-sim-1 }', ''].join('\n'));
    try {
      const contra = await baton('plan', 'status', 'shop/far', '--cluster', 'lab');
      expect(contra.exitCode).toBe(2);
      expect(contra.err).toMatch(/--cluster lab: instances\/shop\/far\.yaml says cluster: edge, where the agent applies it; drop --cluster \(or pass --cluster edge\)/);
      const unknown = await baton('plan', 'status', 'shop/home', '--cluster', 'nowhere');
      expect(unknown.exitCode).toBe(2);
      expect(unknown.err).toMatch(/--cluster nowhere: baton\.yaml declares clusters edge, lab; expected one of them/);
      expect(contra.out + unknown.out).toBe('');
      // A file naming an undeclared cluster is in no cluster (the agent refuses it): an error, not a read of the own cluster.
      write('instances/shop/typo.yaml', `${instance({ VALUE: 'typo' })}cluster: edgy\n`);
      const typo = await baton('plan', 'status', 'shop/typo');
      expect(typo.exitCode).toBe(1);
      expect(typo.err).toMatch(/instances\/shop\/typo\.yaml says cluster: edgy, which baton\.yaml does not declare \(CLUSTER_UNKNOWN\)/);
    } finally {
      write('baton.yaml', [API, 'kind: Repository', 'clusters:', '  - { name: edge, context: baton-sim-2 }', ''].join('\n'));
    }
  });

  it('GIVEN an instance whose file is gone (no checkout) THEN the key is read in the own cluster as before, or in --cluster', async () => {
    const elsewhere = captureIO(tmpdir());
    elsewhere.exitCode = await main(['node', 'baton', 'plan', 'status', 'shop/home', '--kubeconfig', set.kubeconfigPath], elsewhere);
    expect(elsewhere.exitCode, elsewhere.err).toBe(0);
    const byRepo = await baton('plan', 'status', 'shop/gone', '--cluster', 'edge');
    expect(byRepo.exitCode).toBe(1);
    expect(byRepo.err).toMatch(/instance shop\/gone: no checkpoint in cluster edge/);
  });
});

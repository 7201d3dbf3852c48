/**
 * `baton preview` of a change to baton.yaml alone that re-declares a cluster instances run on
 * (docs/clusters.md, "A cluster's declaration changed"): the instances on it are listed although their
 * files did not change; a declaration reaching another API server (known from a kubeconfig here) is
 * shown refused, CLUSTER_SERVER_CHANGED, as the agent would stop them; the same server (a rotated
 * kubeconfig, another context) is fine; a server not known here is said so.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startClusters, type ClusterSet } from '../../src/cluster/index.js';
import type { PreviewReport } from '../../src/preview/types.js';
import { FixtureRepo } from '../preview/fixture-repo.js';

function captureIO(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

const batonYaml = (edge: string): string => ['apiVersion: baton.dev/v1alpha1', 'kind: Repository', 'clusters:', `  - ${edge}`, ''].join('\n');
const params = { PASSWORD: 'pw-0000', REPLICAS: 1 };

let set: ClusterSet;
let repo: FixtureRepo;
let one: string;
let two: string;
let rotated: string;
let base: string;

beforeAll(async () => {
  set = await startClusters(2, { controllers: false });
  [one, two] = set.clusters.map((c) => c.url.replace(/\/$/, '')) as [string, string];
  repo = new FixtureRepo();
  rotated = join(repo.dir, '..', `rotated-${process.pid}.kubeconfig`);
  writeFileSync(rotated, jsYaml.dump({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'again',
    clusters: [{ name: 'again', cluster: { server: `${two}/` } }], users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'again', context: { cluster: 'again', user: 'u' } }],
  }));
  repo.write('baton.yaml', batonYaml('{ name: edge, context: baton-sim-2 }'));
  repo.instance('prod', 'far', '1.0.0', params);
  repo.write('instances/prod/far.yaml', `${readFileSync(join(repo.dir, 'instances/prod/far.yaml'), 'utf8')}cluster: edge\n`);
  repo.instance('prod', 'home', '1.0.0', params);
  repo.commit('base');
  base = execFileSync('git', ['-C', repo.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
});
afterAll(async () => {
  await set.stop();
  repo.cleanup();
});

async function previewOf(edge: string, format: string): Promise<CliIO & { out: string; err: string }> {
  repo.write('baton.yaml', batonYaml(edge));
  repo.commit(`edge: ${edge}`);
  const io = captureIO(repo.dir);
  io.exitCode = await main(['node', 'baton', 'preview', '--base', base, '--head', 'HEAD', '-o', format, '--kubeconfig', set.kubeconfigPath], io);
  return io;
}

describe('baton preview of a cluster re-declared in baton.yaml', () => {
  it('GIVEN edge pointed at another server THEN its instance is listed, refused CLUSTER_SERVER_CHANGED naming both servers; others are not listed', async () => {
    const io = await previewOf('{ name: edge, context: baton-sim-1 }', 'json');
    expect(io.exitCode).toBe(1);
    const report = JSON.parse(io.out) as PreviewReport;
    expect(report.instances.map((i) => i.instance.name)).toEqual(['far']);
    const far = report.instances[0];
    expect(far?.outcome).toBe('refused');
    expect(far?.outcome === 'refused' && far.code).toBe('CLUSTER_SERVER_CHANGED');
    expect(far?.outcome === 'refused' && far.message).toContain(`baton.yaml: cluster "edge" now reaches server ${one} (${two} before this change), where instance prod/far's objects and checkpoint are not`);
    expect(far?.clusterRedeclared).toEqual({ from: { name: 'edge', context: 'baton-sim-2', server: two }, server: 'changed' });
    expect(report.acceptable).toBe(false);
  });

  it('GIVEN edge declared by another kubeconfig reaching the same server THEN its instance is listed as unchanged, same server, acceptable', async () => {
    const io = await previewOf(`{ name: edge, kubeconfig: ${rotated} }`, 'text');
    expect(io.exitCode, io.out + io.err).toBe(0);
    expect(io.out).toContain(`target: cluster edge (kubeconfig ${rotated}, server ${two})`);
    expect(io.out).toContain(`redeclared in baton.yaml, was cluster edge (context baton-sim-2, server ${two}): the same server`);
    expect(io.out).not.toContain('CLUSTER_SERVER_CHANGED');
  });

  it('GIVEN edge moved to a kubeconfig Secret (server not known here) THEN the preview says the agent stops the instance if the server differs', async () => {
    const io = await previewOf('{ name: edge, secret: { namespace: baton-system, name: edge-kubeconfig } }', 'markdown');
    expect(io.exitCode, io.out + io.err).toBe(0);
    expect(io.out).toMatch(/redeclared in baton\.yaml, was cluster edge \(context baton-sim-2, server [^)]+\): server not known here; the agent stops the instance if it now reaches another API server \(CLUSTER\\?_SERVER\\?_CHANGED\)/);
  });
});

/**
 * Starting and stopping the simulated cluster: `baton cluster start` in-process, persistence across
 * restarts with a data dir, bearer tokens, and TLS with a self-signed certificate.
 */
import { request } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerCluster } from '../../../src/cli/commands/cluster.js';
import type { CliIO } from '../../../src/cli/io.js';
import { startCluster } from '../../../src/cluster/index.js';
import { opensslAvailable } from '../../../src/cluster/server/tls.js';
import { kubectlBinaries, runKubectl } from '../../helpers/cluster.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'baton-lifecycle-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function testIO(): CliIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), isTTY: false, cwd: process.cwd(), exitCode: 0 };
}

/** Runs `baton cluster start ARGS` until `stop` resolves; returns what it printed. */
async function runStart(args: string[], whileRunning: (url: string, io: ReturnType<typeof testIO>) => Promise<void>): Promise<ReturnType<typeof testIO>> {
  const io = testIO();
  let release!: () => void;
  const stopped = new Promise<void>((r) => (release = r));
  const program = new Command('baton').exitOverride();
  registerCluster(program, io, () => stopped);
  const run = program.parseAsync(['node', 'baton', 'cluster', 'start', ...args]);
  await expect.poll(() => io.out.join(''), { timeout: 10_000 }).toContain('export KUBECONFIG=');
  const url = /serving at (\S+)/.exec(io.out.join(''))?.[1] ?? '';
  try {
    await whileRunning(url, io);
  } finally {
    release();
    await run;
  }
  return io;
}

describe('baton cluster start', () => {
  it('prints the URL and the export line, serves until stopped, and keeps state in --data-dir across restarts', async () => {
    const dataDir = tempDir();
    const io = await runStart(['--data-dir', dataDir, '--no-controllers'], async (url) => {
      expect(await (await fetch(`${url}/healthz`)).text()).toBe('ok');
      const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { a: '1' } }),
      });
      expect(res.status).toBe(201);
    });
    expect(io.out.join('')).toContain(`export KUBECONFIG=${join(dataDir, 'kubeconfig')}\n`);
    await runStart(['--data-dir', dataDir, '--no-controllers'], async (url) => {
      const got = (await (await fetch(`${url}/api/v1/namespaces/default/configmaps/kept`)).json()) as { data: unknown };
      expect(got.data).toEqual({ a: '1' });
    });
  });

  it('injects the faults of a --faults file and of --fault specs', async () => {
    const file = join(tempDir(), 'faults.yaml');
    writeFileSync(file, '- {verb: list, resource: secrets, error: 503, retryAfterSeconds: 1}\n');
    await runStart(['--faults', file, '--fault', 'verb=get,resource=configmaps,error=500', '--no-controllers'], async (url) => {
      expect((await fetch(`${url}/api/v1/namespaces/default/secrets`)).status).toBe(503);
      expect((await fetch(`${url}/api/v1/namespaces/default/configmaps/x`)).status).toBe(500);
      expect((await fetch(`${url}/api/v1/namespaces/default/configmaps`)).status).toBe(200);
    });
  });

  it('starts several clusters with --clusters, one kubeconfig with a context each, and each its own state', async () => {
    const dataDir = tempDir();
    const io = await runStart(['--clusters', '2', '--data-dir', dataDir, '--no-controllers'], async (_url, running) => {
      const urls = [...running.out.join('').matchAll(/serving at (\S+) \(context (\S+)\)/g)].map((m) => [m[1], m[2]]);
      expect(urls.map((u) => u[1])).toEqual(['baton-sim-1', 'baton-sim-2']);
      const kubeconfig = readFileSync(join(dataDir, 'kubeconfig'), 'utf8');
      expect(kubeconfig).toContain('current-context: baton-sim-1');
      for (const [url] of urls) expect(kubeconfig).toContain(`server: ${url}`);
      await fetch(`${urls[0]?.[0]}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'only-in-one' } }) });
      expect((await fetch(`${urls[0]?.[0]}/api/v1/namespaces/only-in-one`)).status).toBe(200);
      expect((await fetch(`${urls[1]?.[0]}/api/v1/namespaces/only-in-one`)).status).toBe(404);
    });
    expect(io.out.join('')).toContain(`export KUBECONFIG=${join(dataDir, 'kubeconfig')}\n`);
  });

  it('fails and recovers a node with `baton cluster node`, through the kubeconfig', async () => {
    const dataDir = tempDir();
    await runStart(['--data-dir', dataDir, '--nodes', '2', '--pod-start-delay', '0', '--ready-delay', '0'], async (url) => {
      const node = async (): Promise<{ spec?: { taints?: unknown[] }; status: { conditions: { type: string; status: string }[] } }> => (await fetch(`${url}/api/v1/nodes/sim-node-1`)).json() as never;
      const ready = async (): Promise<string | undefined> => (await node()).status?.conditions?.find((c) => c.type === 'Ready')?.status;
      await expect.poll(ready, { timeout: 10_000 }).toBe('True');
      const cli = testIO();
      const program = new Command('baton').exitOverride();
      registerCluster(program, cli);
      await program.parseAsync(['node', 'baton', 'cluster', 'node', 'fail', 'sim-node-1', '--kubeconfig', join(dataDir, 'kubeconfig')]);
      expect(cli.out.join('')).toContain('node/sim-node-1 failed');
      await expect.poll(ready, { timeout: 10_000 }).toBe('Unknown');
      await program.parseAsync(['node', 'baton', 'cluster', 'node', 'recover', 'sim-node-1', '--kubeconfig', join(dataDir, 'kubeconfig')]);
      await expect.poll(ready, { timeout: 10_000 }).toBe('True');
      expect((await node()).spec?.taints ?? []).toEqual([]);
    });
  });

  it('refuses --token without --tls, because kubectl never sends tokens over plain http', async () => {
    const io = testIO();
    const program = new Command('baton').exitOverride();
    registerCluster(program, io, () => Promise.resolve());
    await program.parseAsync(['node', 'baton', 'cluster', 'start', '--token', 'abc']);
    expect(io.exitCode).toBe(2);
    expect(io.err.join('')).toContain('--token needs --tls');
  });
});

describe('authentication', () => {
  it('answers 401 Unauthorized without the bearer token, and serves /version and health checks to anyone', async () => {
    const c = await startCluster({ controllers: false, token: 's3cret', kubeconfigOut: join(tempDir(), 'kc') });
    try {
      const denied = await fetch(`${c.url}/api/v1/namespaces`);
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      expect((await fetch(`${c.url}/api/v1/namespaces`, { headers: { Authorization: 'Bearer s3cret' } })).status).toBe(200);
      expect((await fetch(`${c.url}/api/v1/namespaces`, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(`${c.url}/version`)).status).toBe(200);
    } finally {
      await c.stop();
    }
  });
});

describe.runIf(opensslAvailable())('TLS with a self-signed certificate', () => {
  it('writes a kubeconfig with the CA and a token that kubectl uses unchanged; controllers connect with the CA', async () => {
    const dir = tempDir();
    const c = await startCluster({ tls: true, nodes: 1, kubeconfigOut: join(dir, 'kubeconfig') });
    try {
      expect(c.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(c.token).not.toBe('');
      expect(c.kubeconfig).toContain('certificate-authority-data:');
      const status = await new Promise<number>((resolve, reject) => {
        request(`${c.url}/api/v1/namespaces`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject).end();
      });
      expect(status).toBe(401);
      if (kubectlBinaries()) {
        const r = await runKubectl(c.kubeconfigPath, join(dir, 'cache'), ['get', 'namespaces', 'default']);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(/^NAME\s+STATUS\s+AGE\ndefault\s+Active/);
        // The simulated controllers registered their node through the https API, trusting the CA.
        await expect.poll(async () => (await runKubectl(c.kubeconfigPath, join(dir, 'cache'), ['get', 'nodes', '-o', 'name'])).stdout, { timeout: 10_000 }).toContain('node/');
      }
    } finally {
      await c.stop();
    }
  });
});

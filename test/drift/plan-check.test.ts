/** `baton plan check`: drift and health of one instance from a checkout, and `--repair`, against the simulated cluster. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { svcFramework, svcInstance } from './svc-framework.js';

let cluster: TestCluster;
let repo: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  repo = mkdtempSync(join(tmpdir(), 'baton-check-repo-'));
  const files = { ...svcFramework(), 'instances/shop/web.yaml': svcInstance({ GREETING: 'secret-hello' }) };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
});
afterAll(async () => {
  await cluster.stop();
  rmSync(repo, { recursive: true, force: true });
});

async function baton(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io: CliIO & { out: string; err: string } = { out: '', err: '', isTTY: false, cwd: repo, exitCode: 0, stdout: (t) => { io.out += t; }, stderr: (t) => { io.err += t; } };
  const exit = await main(['node', 'baton', ...args, '--kubeconfig', cluster.kubeconfigPath], io);
  return { code: exit === 0 ? io.exitCode : exit, out: io.out, err: io.err };
}

describe('baton plan check', () => {
  it('GIVEN an applied instance WHEN nothing changed THEN it says InSync and Healthy (exit 0)', async () => {
    expect((await baton('apply', 'instances/shop/web.yaml')).code).toBe(0);
    const r = await baton('plan', 'check', 'shop/web');
    expect(r.err).toBe('');
    expect(r.out).toBe('instance shop/web: drift InSync (policy repair), health Healthy\n');
    expect(r.code).toBe(0);
  });

  it('GIVEN a deleted Service and an edited ConfigMap WHEN checked THEN both are listed (exit 1); WITH --repair THEN they are re-applied (exit 0)', async () => {
    expect((await cluster.kubectl(['-n', 'shop', 'delete', 'service', 'web'])).code).toBe(0);
    expect((await cluster.kubectl(['-n', 'shop', 'patch', 'configmap', 'web-config', '--type=merge', '-p', '{"data":{"greeting":"bye"}}'])).code).toBe(0);
    const r = await baton('plan', 'check', 'shop/web', '-o', 'json');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { drift: { status: string; objects: { object: string; reason: string; fields?: string[]; managers?: string[] }[] }; health: { status: string } };
    expect(json.drift.status).toBe('Drifted');
    expect(json.drift.objects).toEqual([
      { object: 'ConfigMap shop/web-config', reason: 'changed', fields: ['.data.greeting'], managers: ['kubectl-patch'], action: 'repair' },
      { object: 'Service shop/web', reason: 'missing', action: 'repair' },
    ]);
    expect(json.health.status).toBe('Missing');

    const repaired = await baton('plan', 'check', 'instances/shop/web.yaml', '--repair');
    expect(repaired.out).toContain('repair COMPLETE: re-applied ConfigMap shop/web-config, Service shop/web');
    expect(repaired.code).toBe(0);
    expect((await baton('plan', 'check', 'shop/web')).code).toBe(0);
  });

  it('refuses a target that is neither namespace/instance nor an instance file (exit 2)', async () => {
    const r = await baton('plan', 'check', 'web');
    expect(r.code).toBe(2);
    expect(r.err).toContain('expected namespace/instance');
  });
});

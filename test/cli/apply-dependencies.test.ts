/**
 * `baton apply` honours `dependsOn`: GIVEN app dependsOn db, WHEN app is applied while db is not applied
 * and healthy THEN apply refuses at once (exit 1, nothing applied, the refusal names db and why), or with
 * --wait-for-dependencies waits until db is (bounded), or with --ignore-dependencies runs anyway.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { until } from '../helpers/wait.js';
import { API, webFramework } from '../sync/fixtures.js';

let cluster: TestCluster;
let repo: string;

const inst = (dependsOn = ''): string => `${API}\nkind: Instance\nframework: web\nversion: 1.0.0\n${dependsOn}`;

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 10, readyDelayMs: 10 } });
  repo = mkdtempSync(join(tmpdir(), 'baton-apply-deps-'));
  const files: Record<string, string> = { ...webFramework() };
  for (const ns of ['refuse', 'wait', 'ignore', 'late']) {
    files[`instances/${ns}/db.yaml`] = inst();
    files[`instances/${ns}/app.yaml`] = inst('dependsOn:\n  - name: db\n');
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
});
afterAll(async () => {
  await cluster.stop();
  rmSync(repo, { recursive: true, force: true });
});

type Io = CliIO & { out: string; err: string };
function captureIO(): Io {
  const io: Io = { out: '', err: '', isTTY: false, cwd: repo, exitCode: 0, stdout: (t) => { io.out += t; }, stderr: (t) => { io.err += t; } };
  return io;
}
async function baton(args: string[], io = captureIO()): Promise<{ code: number; out: string; err: string }> {
  const code = await main(['node', 'baton', ...args, '--kubeconfig', cluster.kubeconfigPath], io);
  return { code: code === 0 ? io.exitCode : code, out: io.out, err: io.err };
}
const checkpointOf = async (ns: string, name: string): Promise<string> =>
  (await cluster.kubectl(['get', 'configmap', `baton-checkpoint-${name}`, '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim();

describe('baton apply and dependsOn', () => {
  it('GIVEN db never applied WHEN app is applied THEN it is refused at once naming db and why, exit 1, and nothing of app is applied', async () => {
    const r = await baton(['apply', 'instances/refuse/app.yaml']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('instances/refuse/app.yaml: not applied: it dependsOn instances that are not applied and healthy: refuse/db: ');
    expect(r.err).toContain('--wait-for-dependencies');
    expect(await checkpointOf('refuse', 'app')).toBe('');
    const json = await baton(['apply', 'instances/refuse/app.yaml', '-o', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ kind: 'refused', exitCode: 1, refusal: { code: 'DEPENDENCY_NOT_READY', waitingOn: [{ instance: 'refuse/db' }] } });
  });

  it('GIVEN db applied and healthy WHEN app is applied THEN its plan runs', async () => {
    expect((await baton(['apply', 'instances/refuse/db.yaml'])).code).toBe(0);
    const r = await baton(['apply', 'instances/refuse/app.yaml']);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(await checkpointOf('refuse', 'app')).toBe('configmap/baton-checkpoint-app');
  });

  it('GIVEN --wait-for-dependencies WHEN db gets applied meanwhile THEN app waits (saying on what) and then runs', async () => {
    const io = captureIO();
    const waiting = baton(['apply', 'instances/wait/app.yaml', '--wait-for-dependencies', '2m'], io);
    await until(() => io.out.includes('waiting for wait/db: '), 20_000, 'app waiting for db');
    expect(await checkpointOf('wait', 'app')).toBe('');
    expect((await baton(['apply', 'instances/wait/db.yaml'])).code).toBe(0);
    const r = await waiting;
    expect([r.code, r.err]).toEqual([0, '']);
    expect(await checkpointOf('wait', 'app')).toBe('configmap/baton-checkpoint-app');
  });

  it('GIVEN --wait-for-dependencies WHEN db stays unapplied past it THEN app is refused, saying how long it waited', async () => {
    const r = await baton(['apply', 'instances/late/app.yaml', '--wait-for-dependencies', '1s']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('not applied after waiting 1s');
    expect(await checkpointOf('late', 'app')).toBe('');
  });

  it('GIVEN --ignore-dependencies WHEN db is not applied THEN app runs anyway', async () => {
    const r = await baton(['apply', 'instances/ignore/app.yaml', '--ignore-dependencies']);
    expect([r.code, r.err]).toEqual([0, '']);
  });

  it.each([
    [['--wait-for-dependencies', '1m', '--ignore-dependencies'], 'exclude each other'],
    [['--wait-for-dependencies', 'soon'], 'expected a duration'],
  ])('GIVEN %j THEN a usage error (exit 2)', async (flags, message) => {
    const r = await baton(['apply', 'instances/ignore/app.yaml', ...flags]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });
});

/**
 * Compatibility suite (issue #16): every installed kubectl from 1.27 to 1.33 runs the same table of
 * commands against one simulated cluster with its controllers, each version in its own namespace:
 * the `create` helpers (protobuf bodies from 1.32 on), `auth can-i` and `auth whoami`, `create token`,
 * rollouts, `wait`, `logs` of declared output, `describe svc` (EndpointSlices), `get` in every output
 * format, and the honest error of `exec`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestCluster, kubectlBinaries, startTestCluster } from '../../helpers/cluster.js';

// Many kubectl runs per test: on two shared cores beside other end-to-end files they can take a while.
vi.setConfig({ testTimeout: 120_000 });

const bins = kubectlBinaries();
const ALL = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
// `npm test` runs the newest kubectl (the table is a minute of kubectl processes per version on two
// cores); `npm run test:e2e` (vitest.e2e.config.ts sets BATON_KUBECTL_VERSIONS=older) every older one,
// so CI covers every version once; BATON_KUBECTL_VERSIONS=all runs the whole table here.
const chosen = process.env.BATON_KUBECTL_VERSIONS === 'older' ? ALL.slice(0, -1) : process.env.BATON_KUBECTL_VERSIONS === 'all' ? ALL : [ALL.at(-1) ?? ''];
const versions = chosen.filter((v) => bins && existsSync(join(bins.dir, `kubectl.${v}`)));
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 20, readyDelayMs: 20 }, nodes: 2 });
});
afterAll(async () => {
  await c?.stop();
});

const job = (ns: string): string => `apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: ${ns}}
spec:
  template:
    metadata:
      annotations:
        sim.baton.dev/log: "rows=3\\nstatus=ok\\n"
        sim.baton.dev/termination-message: '{"rows":3}'
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36}]
`;

describe.runIf(versions.length > 0).each(versions)('kubectl %s', (version) => {
  const bin = join(bins?.dir ?? '', `kubectl.${version}`);
  const ns = `v${version.replace('.', '-')}`;
  const k = (args: string[], input?: string) => c.kubectl(args, { bin, timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await k(args, input);
    expect(r.stderr, `kubectl ${version} ${args.join(' ')}`).not.toMatch(/error/i);
    expect(r.code, `kubectl ${version} ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };

  it('creates every kind with the create helpers', async () => {
    const suffix = ns;
    const creates: [string[], string][] = [
      [['create', 'namespace', ns], `namespace/${ns} created`],
      [['create', 'serviceaccount', 'robot', '-n', ns], 'serviceaccount/robot created'],
      [['create', 'configmap', 'settings', '-n', ns, '--from-literal=a=1'], 'configmap/settings created'],
      [['create', 'secret', 'generic', 'pw', '-n', ns, '--from-literal=p=x'], 'secret/pw created'],
      [['create', 'role', 'reader', '--verb=get,list', '--resource=pods', '-n', ns], 'role.rbac.authorization.k8s.io/reader created'],
      [['create', 'rolebinding', 'robot-reader', '--role=reader', `--serviceaccount=${ns}:robot`, '-n', ns], 'rolebinding.rbac.authorization.k8s.io/robot-reader created'],
      [['create', 'clusterrole', `viewer-${suffix}`, '--verb=get', '--resource=nodes'], `clusterrole.rbac.authorization.k8s.io/viewer-${suffix} created`],
      [['create', 'clusterrolebinding', `viewer-${suffix}`, `--clusterrole=viewer-${suffix}`, '--user=alice'], `clusterrolebinding.rbac.authorization.k8s.io/viewer-${suffix} created`],
      [['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '--port=80', '-n', ns], 'deployment.apps/web created'],
      [['create', 'service', 'clusterip', 'web', '--tcp=80:80', '-n', ns], 'service/web created'],
      [['create', 'ingress', 'web', '--rule=web.example.com/*=web:80', '-n', ns], 'ingress.networking.k8s.io/web created'],
      [['create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1', '-n', ns], 'poddisruptionbudget.policy/web created'],
      [['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '-n', ns], 'cronjob.batch/nightly created'],
      [['create', 'priorityclass', `high-${suffix}`, '--value=1000'], `priorityclass.scheduling.k8s.io/high-${suffix} created`],
      [['create', 'quota', 'pods', '--hard=pods=20', '-n', ns], 'resourcequota/pods created'],
    ];
    for (const [args, expected] of creates) expect((await ok(args)).trim()).toBe(expected);
  });

  it('rolls out, waits, and reads the Deployment, Service and its EndpointSlice', async () => {
    expect(await ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=30s'])).toContain('successfully rolled out');
    await ok(['wait', '--for=condition=Available', 'deployment/web', '-n', ns, '--timeout=30s']);
    const slices = JSON.parse(await ok(['get', 'endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=web', '-o', 'json']));
    expect(slices.items[0].endpoints).toHaveLength(2);
    const describe = await ok(['describe', 'service', 'web', '-n', ns]);
    expect(describe).toMatch(/Endpoints:\s+10\.244\.\d+\.\d+:80,10\.244\.\d+\.\d+:80/);
  });

  it('prints tables and every output format', async () => {
    const header = (await ok(['get', 'pods', '-n', ns])).split('\n')[0]?.trim().split(/\s{2,}/);
    expect(header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect((await ok(['get', 'pods', '-n', ns, '-o', 'wide'])).split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE/);
    expect(JSON.parse(await ok(['get', 'deploy', 'web', '-n', ns, '-o', 'json'])).status.readyReplicas).toBe(2);
    expect(await ok(['get', 'deploy', 'web', '-n', ns, '-o', 'yaml'])).toContain('readyReplicas: 2');
    expect((await ok(['get', 'deploy', '-n', ns, '-o', 'name'])).trim()).toBe('deployment.apps/web');
    expect(await ok(['get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).toBe('2');
    expect(await ok(['get', 'deploy', '-n', ns, '-o', 'custom-columns=N:.metadata.name,R:.spec.replicas', '--no-headers'])).toMatch(/^web\s+2\s*$/);
    for (const [kind, columns] of [
      ['pdb', ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']],
      ['ingress', ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']],
      ['rolebinding', ['NAME', 'ROLE', 'AGE']],
      ['serviceaccounts', ['NAME', 'SECRETS', 'AGE']],
      ['endpoints', ['NAME', 'ENDPOINTS', 'AGE']],
    ] as const) {
      expect((await ok(['get', kind, '-n', ns])).split('\n')[0]?.trim().split(/\s{2,}/), `${kind} columns`).toEqual(columns);
    }
  });

  it('explains built-in kinds from the served OpenAPI schemas', async () => {
    expect(await ok(['explain', 'deployment.spec.replicas'])).toMatch(/FIELD:\s+replicas <integer>/);
    expect(await ok(['explain', 'pods.spec.containers'])).toMatch(/FIELD:\s+containers <\[\]Container>/);
  });

  it('answers auth can-i, auth whoami and create token', async () => {
    expect((await ok(['auth', 'can-i', 'create', 'pods', '-n', ns])).trim()).toBe('yes');
    expect(await ok(['auth', 'whoami'])).toMatch(/Username\s+kubernetes-admin/);
    expect((await ok(['create', 'token', 'robot', '-n', ns])).trim().split('.')).toHaveLength(3);
  });

  it('runs a Job to completion and reads its declared output and termination message', async () => {
    await ok(['apply', '-f', '-'], job(ns));
    await ok(['wait', '--for=condition=complete', 'job/report', '-n', ns, '--timeout=30s']);
    expect(await ok(['logs', 'job/report', '-n', ns])).toBe('rows=3\nstatus=ok\n');
    expect(await ok(['get', 'pods', '-n', ns, '-l', 'job-name=report', '-o', 'jsonpath={.items[0].status.containerStatuses[0].state.terminated.message}'])).toBe('{"rows":3}');
  });

  it('reads simulated container output with logs, and says exec is not supported', async () => {
    expect(await ok(['logs', 'deployment/web', '-n', ns])).toContain('[baton-sim] container nginx started (image nginx:1.27)');
    const exec = await k(['exec', 'deployment/web', '-n', ns, '--', 'ls']);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain('exec is not supported by the simulated cluster');
  });
});

/**
 * `baton test`: framework test cases run against the simulated cluster (started by the command),
 * through the CLI in-process. A passing case walks deploy -> update -> removal; failing cases report the
 * step, the expected and the actual outcome or field.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { ROOT } from '../helpers/cli.js';

let repo: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}

const FW = 'frameworks/web/1.0.0';

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-test-cmd-'));
  write('baton.yaml', 'apiVersion: baton.dev/v1alpha1\nkind: Repository\n');
  write(`${FW}/framework.yaml`, `apiVersion: baton.dev/v1alpha1
kind: Framework
name: web
version: 1.0.0
appVersion: "1.27"
tasks:
  - { name: app, kind: Apply, resources: [deployment.yaml.ejs] }
  - { name: migrate, kind: Apply, resources: [job.yaml.ejs] }
plans:
  deploy:
    phases:
      - { name: main, steps: [{ name: app, tasks: [app] }] }
  update:
    phases:
      - { name: main, steps: [{ name: app, tasks: [app] }] }
  migrate:
    phases:
      - { name: main, steps: [{ name: run, tasks: [migrate] }] }
`);
  write(`${FW}/params.yaml`, `- { name: REPLICAS, type: integer, default: 1, minimum: 1 }
- { name: MIGRATION_FAILS, type: boolean, default: false, trigger: migrate }
- { name: TOKEN, type: string, default: tok-secret-9876, sensitive: true }
`);
  write(`${FW}/templates/deployment.yaml.ejs`, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: <%= instance.name %>
  annotations: { token-hash: <%= sha256(params.TOKEN) %> }
spec:
  replicas: <%= params.REPLICAS %>
  selector: { matchLabels: <%- toJson(selectorLabels) %> }
  template:
    metadata: { labels: <%- toJson(selectorLabels) %> }
    spec:
      containers: [{ name: web, image: "nginx:1.27" }]
`);
  write(`${FW}/templates/job.yaml.ejs`, `apiVersion: batch/v1
kind: Job
metadata:
  name: <%= instance.name + '-migrate' %>
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations: <%- toJson(params.MIGRATION_FAILS ? { 'sim.baton.dev/fail': 'job-fail' } : {}) %>
    spec:
      restartPolicy: Never
      containers: [{ name: migrate, image: "busybox:1.36", command: [true] }]
`);
  write(`${FW}/tests/lifecycle.yaml`, `name: deploys, scales and is removed
params: { REPLICAS: 1 }
steps:
  - name: deploy
    assert:
      - apiVersion: apps/v1
        kind: Deployment
        metadata: { name: test, labels: { app.kubernetes.io/managed-by: baton } }
        status: { readyReplicas: 1 }
  - name: scale to 2
    params: { REPLICAS: 2 }
    assert:
      - { apiVersion: apps/v1, kind: Deployment, metadata: { name: test }, status: { readyReplicas: 2, updatedReplicas: 2 } }
  - name: a failing migration ends FATAL_ERROR
    params: { REPLICAS: 2, MIGRATION_FAILS: true }
    expect: FATAL_ERROR
  - name: removal deletes what the instance owns
    remove: true
    expect: REMOVED
    absent: [{ apiVersion: apps/v1, kind: Deployment, name: test }]
`);
  write(`${FW}/tests/wrong.yaml`, `steps:
  - params: { REPLICAS: 1 }
    assert:
      - { apiVersion: apps/v1, kind: Deployment, metadata: { name: test }, spec: { replicas: 5 } }
`);
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function captureIO(): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd: repo, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

describe('baton test', () => {
  it('runs a passing case through deploy, update, a failing plan and removal (exit 0)', async () => {
    const io = captureIO();
    const code = await main(['node', 'baton', 'test', FW, '--case', 'lifecycle'], io);
    expect(io.out + io.err).toContain('deploys, scales and is removed');
    expect(code, io.out + io.err).toBe(0);
    expect(io.out).toMatch(/ok {3}deploy: COMPLETE/);
    expect(io.out).toMatch(/ok {3}a failing migration ends FATAL_ERROR: FATAL_ERROR/);
    expect(io.out).toContain('1 passed, 0 failed');
    expect(io.out).not.toContain('tok-secret-9876');
  }, 120_000);

  it('reports a failed assertion with the object, field, expected and actual value (exit 1)', async () => {
    const io = captureIO();
    const code = await main(['node', 'baton', 'test', FW, '--case', 'wrong', '--assert-timeout', '1', '-o', 'json'], io);
    expect(code).toBe(1);
    const report = JSON.parse(io.out) as { failed: number; cases: { steps: { failures?: string[] }[] }[] };
    expect(report.failed).toBe(1);
    expect(report.cases[0]?.steps[0]?.failures).toEqual(['Deployment baton-test-wrong/test: spec.replicas: expected 5, got 1']);
  }, 60_000);

  it.each([
    ['a case file with an unknown field', 'tests/bad.yaml', 'steps: [{ plan: deploy, bogus: 1 }]\n', 1, /tests\/bad\.yaml:1:\d+: SCHEMA_UNKNOWN_FIELD: unknown field "bogus"/],
    ['a case without steps', 'tests/empty.yaml', 'name: nothing\nsteps: []\n', 1, /SCHEMA_VALUE/],
  ])('refuses %s before starting anything', async (_name, file, text, code, message) => {
    write(`${FW}/${file}`, text);
    try {
      const io = captureIO();
      expect(await main(['node', 'baton', 'test', FW], io)).toBe(code);
      expect(io.err).toMatch(message);
    } finally {
      rmSync(join(repo, FW, file));
    }
  });

  it.each([
    ['a step naming a plan the framework lacks', 'steps: [{ plan: backup }]\n', 'TEST_PLAN_UNKNOWN', /tests\/bad\.yaml:1:\d+/],
    ['an unknown field', 'steps: [{ bogus: 1 }]\n', 'SCHEMA_UNKNOWN_FIELD', /tests\/bad\.yaml:1:\d+/],
    ['a malformed file', 'steps: [\n', 'YAML_SYNTAX', /tests\/bad\.yaml/],
  ])('baton validate reports a test case with %s', async (_name, text, code, where) => {
    write(`${FW}/tests/bad.yaml`, text);
    try {
      const io = captureIO();
      expect(await main(['node', 'baton', 'validate', FW, '-o', 'json'], io)).toBe(1);
      const report = JSON.parse(io.out) as { problems: { code: string; file: string; line: number; column: number }[] };
      const found = report.problems.find((p) => p.code === code);
      expect(found, io.out).toBeDefined();
      expect(`${found?.file}:${found?.line}:${found?.column}`).toMatch(where);
    } finally {
      rmSync(join(repo, FW, 'tests/bad.yaml'));
    }
  });

  it('says when there is nothing to run, and rejects a path outside frameworks/', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'test', FW, '--case', 'nope'], io)).toBe(1);
    expect(io.err).toContain('no test cases found');
    const io2 = captureIO();
    expect(await main(['node', 'baton', 'test', 'instances'], io2)).toBe(1);
  });
});

describe('the catalog test cases', () => {
  it('pass on the simulated cluster (baton test frameworks)', async () => {
    const io = { out: '', err: '', isTTY: false, cwd: ROOT, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
    const code = await main(['node', 'baton', 'test', 'frameworks'], io);
    expect(code, io.out + io.err).toBe(0);
    // Every case file of the catalog (frameworks/<name>/<version>/tests/*.yaml) passes.
    const cases = readdirSync(join(ROOT, 'frameworks')).flatMap((fw) => readdirSync(join(ROOT, 'frameworks', fw), { withFileTypes: true }).filter((v) => v.isDirectory()).flatMap((v) => (existsSync(join(ROOT, 'frameworks', fw, v.name, 'tests')) ? readdirSync(join(ROOT, 'frameworks', fw, v.name, 'tests')).filter((f) => f.endsWith('.yaml')) : [])));
    expect(cases.length).toBeGreaterThanOrEqual(6);
    expect(io.out).toMatch(new RegExp(`^${cases.length} passed, 0 failed$`, 'm'));
  }, 180_000);
});

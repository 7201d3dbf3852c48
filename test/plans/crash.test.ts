/**
 * Crash safety: `baton apply` runs as a child process and is killed with SIGKILL at seeded random
 * points of a plan, several times; each next run resumes the plan, and no step that a killed run
 * reported COMPLETE (reported only after its checkpoint write) is ever started again.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

const STEPS = ['s1', 's2', 's3', 's4', 's5', 's6'];
// Each child pays a tsx start-up of several seconds on a busy 2-core machine: a few kills keep the suite short.
const KILLS = 3;

let cluster: TestCluster;
let repo: string;

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 20, readyDelayMs: 30 } });
  repo = mkdtempSync(join(tmpdir(), 'baton-crash-'));
  const fw = join(repo, 'frameworks/crashy/1.0.0');
  mkdirSync(join(fw, 'templates'), { recursive: true });
  mkdirSync(join(repo, 'instances/crash'), { recursive: true });
  writeFileSync(join(fw, 'framework.yaml'), [
    'apiVersion: baton.dev/v1alpha1', 'kind: Framework', 'name: crashy', 'version: 1.0.0', 'appVersion: "1"', 'tasks:',
    ...STEPS.map((s) => `  - { name: ${s}, kind: Apply, resources: [${s}.yaml.ejs] }`),
    'plans:', '  deploy:', '    phases:', '      - name: first', '        steps:',
    ...STEPS.slice(0, 3).map((s) => `          - { name: ${s}, tasks: [${s}] }`),
    '      - name: second', '        steps:',
    ...STEPS.slice(3).map((s) => `          - { name: ${s}, tasks: [${s}] }`),
    '',
  ].join('\n'));
  writeFileSync(join(fw, 'params.yaml'), '- name: READY_MS\n  type: integer\n  default: 250\n');
  for (const s of STEPS) {
    writeFileSync(join(fw, 'templates', `${s}.yaml.ejs`), [
      'apiVersion: apps/v1', 'kind: Deployment', `metadata: { name: ${s} }`, 'spec:', '  replicas: 1',
      `  selector: { matchLabels: { app: ${s} } }`, '  template:', '    metadata:', `      labels: { app: ${s} }`,
      '      annotations: { sim.baton.dev/ready-delay-ms: "<%= params.READY_MS %>" }',
      '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
    ].join('\n'));
  }
  writeFileSync(join(repo, 'instances/crash/app.yaml'), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: crashy\nversion: 1.0.0\n');
});
afterAll(async () => {
  await cluster.stop();
  rmSync(repo, { recursive: true, force: true });
});

/** mulberry32, seeded: the kill points are random but reproducible. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `baton apply`; with `killAfterMs`, SIGKILLs it that long after the plan started. */
function runChild(killAfterMs?: number): Promise<{ out: string; code: number | null; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'baton-child.ts'), 'apply', join(repo, 'instances/crash/app.yaml'), '--kubeconfig', cluster.kubeconfigPath], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (killAfterMs !== undefined && !killed && /plan deploy (started|resumed)/.test(out)) {
        killed = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    // A run that hangs must fail the test with its output, not time it out silently.
    const guard = setTimeout(() => {
      out += '\n[guard: killed after 60 s]';
      child.kill('SIGKILL');
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ out, code, killed });
    });
  });
}

const started = (out: string): string[] => [...out.matchAll(/^ {4}step (\w+): (retry \d+, )?\d+ objects?$/gm)].map((m) => m[1]!);
const completed = (out: string): string[] => [...out.matchAll(/^ {4}step (\w+): COMPLETE/gm)].map((m) => m[1]!);

describe('crash safety of baton apply', () => {
  it(`GIVEN ${KILLS} SIGKILLs at random points WHEN applied again each time THEN the plan completes and no completed step runs twice`, async () => {
    const random = seeded(7);
    const done = new Set<string>();
    const ran = new Set<string>();
    for (let i = 0; i < KILLS; i++) {
      const run = await runChild(Math.floor(random() * 900));
      for (const s of started(run.out)) expect(done.has(s), `step ${s} started again after it completed (run ${i})\n${run.out}`).toBe(false);
      for (const s of started(run.out)) ran.add(s);
      for (const s of completed(run.out)) done.add(s);
      if (!run.killed) break;
    }
    const last = await runChild();
    for (const s of started(last.out)) expect(done.has(s), `step ${s} started again after it completed\n${last.out}`).toBe(false);
    expect(last.code, last.out).toBe(0);
    expect(last.out).toMatch(/deploy: COMPLETE|nothing to do/);
    for (const s of completed(last.out)) done.add(s);
    for (const s of started(last.out)) ran.add(s);
    // Every step ran. (A kill between a step's checkpoint and its printed COMPLETE line leaves it started
    // but never printed as complete: the next run rightly does not start it again. Seen in CI.)
    expect([...new Set([...done, ...ran])].sort()).toEqual(STEPS);
  }, 300_000);
});

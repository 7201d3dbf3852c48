/** `baton validate`, `baton render` and `baton init` run in-process against fixture repositories. */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { installationRoot } from '../../src/cli/template-repo.js';
import { FIXTURES } from './helpers.js';

function captureIO(cwd = process.cwd()): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    isTTY: false,
    cwd,
    exitCode: 0,
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  };
  return io;
}

const BASIC = join(FIXTURES, 'repos', 'basic');
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
function tempCopy(src: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-render-'));
  temps.push(dir);
  cpSync(src, dir, { recursive: true });
  return dir;
}

describe('baton render', () => {
  it('GIVEN an instance file THEN prints the plan as YAML with phase/step headings, secrets masked', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'render', join(BASIC, 'instances/apps/demo.yaml')], io)).toBe(0);
    expect(io.out).toContain('# phase main (steps serial)');
    expect(io.out).toContain('# step main/config: 2 action(s) in one batch, timeout 900s');
    const docs = loadAll(io.out) as { kind: string; data?: Record<string, string> }[];
    expect(docs.map((d) => d.kind)).toEqual(['Secret', 'ConfigMap', 'Service', 'StatefulSet', 'ServiceMonitor']);
    expect(docs[0]!.data!.password).toBe('***');
    expect(io.out).not.toContain('czNjcjN0LXBhNTU=');
  });

  it('GIVEN -o json and --plan/--arg THEN prints the RenderedPlan value for that plan', async () => {
    const io = captureIO(BASIC);
    expect(await main(['node', 'baton', 'render', 'instances/apps/demo.yaml', '--plan', 'backup', '--arg', 'target=s3://x', '-o', 'json'], io)).toBe(0);
    const plan = JSON.parse(io.out) as { plan: string; phases: { steps: { actions: { action: string }[] }[] }[] };
    expect(plan.plan).toBe('backup');
    expect(plan.phases[0]!.steps[0]!.actions.map((a) => a.action)).toEqual(['delete', 'apply']);
    expect(io.out).toContain('s3://x');
  });

  it('GIVEN an instance that does not render THEN prints located problems and exits 1', async () => {
    const dir = tempCopy(BASIC);
    writeFileSync(join(dir, 'instances/apps/demo.yaml'), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: demo\nversion: 1.0.0\nparams:\n  PASSWORD: abcdefgh\n  REPLICAS: 0\n');
    const io = captureIO();
    expect(await main(['node', 'baton', 'render', join(dir, 'instances/apps/demo.yaml')], io)).toBe(1);
    expect(io.err).toContain('instances/apps/demo.yaml:7:13: error PARAM_MINIMUM: parameter REPLICAS must be at least 1, got 0');
    expect(io.err).toContain('    7 |   REPLICAS: 0');
    expect(io.out).toBe('');
  });
});

describe('baton validate', () => {
  it('GIVEN frameworks/<name> THEN validates every version of that framework (and finds a problem in any of them)', async () => {
    const dir = tempCopy(BASIC);
    cpSync(join(dir, 'frameworks/demo/1.0.0'), join(dir, 'frameworks/demo/1.1.0'), { recursive: true });
    const fw = join(dir, 'frameworks/demo/1.1.0/framework.yaml');
    writeFileSync(fw, readFileSync(fw, 'utf8').replace('version: 1.0.0', 'version: 1.1.0'));
    const ok = captureIO();
    expect(await main(['node', 'baton', 'validate', join(dir, 'frameworks/demo')], ok)).toBe(0);
    expect(ok.out).toContain('ok: checked 2 version(s) of framework demo');
    const tpl = join(dir, 'frameworks/demo/1.1.0/templates/configmap.yaml.ejs');
    writeFileSync(tpl, readFileSync(tpl, 'utf8') + 'extra: &<%= instance.name %> x\n');
    const bad = captureIO();
    expect(await main(['node', 'baton', 'validate', join(dir, 'frameworks/demo')], bad)).toBe(1);
    expect(bad.err).toMatch(/frameworks\/demo\/1\.1\.0\/templates\/configmap\.yaml\.ejs:\d+:\d+: error TEMPLATE_CONTEXT/);
  });

  it('GIVEN a valid repository THEN says ok and exits 0', async () => {
    const io = captureIO(BASIC);
    expect(await main(['node', 'baton', 'validate'], io)).toBe(0);
    expect(io.out).toBe('ok: checked 1 framework version(s), 1 instance(s)\n');
  });

  it('GIVEN several problems THEN reports all of them, each with the offending line, and exits 1', async () => {
    const dir = tempCopy(BASIC);
    writeFileSync(join(dir, 'instances/apps/demo.yaml'), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: demo\nversion: 1.0.0\nparams:\n  PASSWORD: abcdefgh\n  REPLICA: 2\n  MEMORY: lots\n');
    const io = captureIO();
    expect(await main(['node', 'baton', 'validate', dir], io)).toBe(1);
    expect(io.err).toContain('instances/apps/demo.yaml:7:3: error PARAM_UNKNOWN');
    expect(io.err).toContain('instances/apps/demo.yaml:8:11: error PARAM_PATTERN');
    expect(io.err).toContain('      |           ^');
    expect(io.err).toContain('2 errors, 0 warnings');
  });

  it('GIVEN -o json THEN prints problems with code, file, line, column and path for CI', async () => {
    const dir = tempCopy(BASIC);
    mkdirSync(join(dir, 'instances/db'));
    writeFileSync(join(dir, 'instances/db/x.yaml'), 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: nope\nversion: 1.0.0\n');
    const io = captureIO();
    expect(await main(['node', 'baton', 'validate', dir, '-o', 'json'], io)).toBe(1);
    const report = JSON.parse(io.out) as { ok: boolean; problems: unknown[] };
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      { code: 'INSTANCE_FRAMEWORK_UNKNOWN', severity: 'error', file: 'instances/db/x.yaml', line: 3, column: 12, path: ['framework'], message: 'framework "nope" does not exist under frameworks/' },
    ]);
  });

  it.each([
    ['a framework version folder', 'frameworks/demo/1.0.0', 'ok: checked framework demo 1.0.0\n'],
    ['an instance file', 'instances/apps/demo.yaml', 'ok: checked instance instances/apps/demo.yaml\n'],
  ])('GIVEN %s THEN validates only that', async (_name, path, expected) => {
    const io = captureIO(BASIC);
    expect(await main(['node', 'baton', 'validate', path], io)).toBe(0);
    expect(io.out).toBe(expected);
  });
});

describe('baton init', () => {
  it('GIVEN a non-empty folder THEN refuses and changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-init-'));
    temps.push(dir);
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    const io = captureIO();
    expect(await main(['node', 'baton', 'init', dir], io)).toBe(1);
    expect(io.err).toContain('is not empty');
  });

  it('GIVEN an absent folder THEN copies the template and the catalog (from frameworks/, its one copy) and git-inits it', async () => {
    const root = installationRoot();
    expect(root).toBeDefined();
    const dir = join(mkdtempSync(join(tmpdir(), 'baton-init-')), 'repo');
    temps.push(dir);
    const io = captureIO();
    expect(await main(['node', 'baton', 'init', dir], io)).toBe(0);
    expect(existsSync(join(dir, '.git'))).toBe(true);
    // On `main`, the branch the agent watches by default, whatever git's own default is.
    expect(readFileSync(join(dir, '.git/HEAD'), 'utf8').trim()).toBe('ref: refs/heads/main');
    expect(load(String(await import('node:fs').then((fs) => fs.readFileSync(join(dir, 'baton.yaml'), 'utf8'))))).toBeTruthy();
    // The catalog comes from frameworks/ (repo-template/ has no copy of its own), byte for byte.
    expect(existsSync(join(root!, 'repo-template', 'frameworks'))).toBe(false);
    const zk = 'frameworks/zookeeper/1.0.0/templates/statefulset.yaml.ejs';
    expect(readFileSync(join(dir, zk), 'utf8')).toBe(readFileSync(join(root!, zk), 'utf8'));
    const validate = captureIO();
    expect(await main(['node', 'baton', 'validate', dir], validate)).toBe(0);
  });
});

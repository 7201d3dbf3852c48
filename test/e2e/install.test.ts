/**
 * A newcomer's install: `npm pack` the checkout, `npm install -g` the tarball into a temporary prefix,
 * and run the installed `baton` from outside the checkout (no tsx, no devDependencies, no sources).
 * Dependencies come from the npm cache when they are there (--prefer-offline).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'baton-install-'));
const prefix = join(work, 'prefix');
const outside = join(work, 'home');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' };

let tarball = '';

beforeAll(async () => {
  // `npm pack` runs `prepare` (the build), so the tarball always carries a current dist/.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env, maxBuffer: 64 << 20 });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info?.filename ?? '');
  await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', tarball], { cwd: work, env, maxBuffer: 64 << 20 });
  await run('mkdir', ['-p', outside]);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm install -g of the packed tarball', () => {
  it('has a scoped name that does not collide with the unrelated `baton` package on the registry', () => {
    expect(pkg.name).toBe('@baton-gitops/baton');
    expect(tarball.endsWith(`baton-gitops-baton-${pkg.version}.tgz`)).toBe(true);
  });

  it('puts `baton` on the PATH, and `baton --version` prints the package version from outside the checkout', async () => {
    expect(existsSync(join(prefix, 'bin', 'baton'))).toBe(true);
    const { stdout } = await run('baton', ['--version'], { cwd: outside, env });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('installs runtime dependencies only, and ships what init and demo copy', () => {
    const installed = join(prefix, 'lib', 'node_modules', ...pkg.name.split('/'));
    for (const dir of ['dist/cli/run.js', 'frameworks', 'repo-template/baton.yaml', 'schemas', 'bin/baton.js']) {
      expect(existsSync(join(installed, dir)), dir).toBe(true);
    }
    expect(existsSync(join(installed, 'src')), 'sources are not shipped').toBe(false);
    expect(existsSync(join(installed, 'test')), 'tests are not shipped').toBe(false);
    const deps = readdirSync(join(installed, 'node_modules')).concat(readdirSync(join(prefix, 'lib', 'node_modules')));
    for (const dev of ['vitest', 'typescript', 'tsx', 'eslint']) expect(deps, dev).not.toContain(dev);
  });

  it('`baton init my-ops` creates the repository in the current folder, and it validates', async () => {
    const init = await run('baton', ['init', 'my-ops'], { cwd: outside, env });
    expect(init.stdout).toContain(join(outside, 'my-ops'));
    for (const entry of ['baton.yaml', 'frameworks', 'instances', 'README.md']) expect(existsSync(join(outside, 'my-ops', entry)), entry).toBe(true);
    const validate = await run('baton', ['validate'], { cwd: join(outside, 'my-ops'), env });
    expect(validate.stdout).toMatch(/^ok: checked/m);
  }, 120_000);
});

/**
 * baton validate and baton preview with encrypted values, valuesFrom and tenants: with a key they
 * decrypt and check; without one they say what they did not check and still render; tampering and
 * tenant rules are errors a reviewer sees; no decrypted value appears in what they print.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentTarget } from '../../src/cli/commands/preview.js';
import { buildPreview } from '../../src/preview/preview.js';
import { MemoryTree, Renderer, validateRepository } from '../../src/render/index.js';
import { AgeKeyring } from '../../src/secrets/index.js';
import { API, instance, webFramework } from '../sync/fixtures.js';
import { sopsEncrypt } from './sops-encrypt.js';

const SECRET = 'value-only-in-sops-4e1';
let renderer: Renderer;
let keys: AgeKeyring;
let recipient: string;

beforeAll(async () => {
  renderer = new Renderer();
  const identity = await generateIdentity();
  recipient = await identityToRecipient(identity);
  keys = await AgeKeyring.parse(identity, 'test key');
});
afterAll(async () => {
  await renderer.close();
});

const encrypted = (params: Record<string, unknown>, regex = '^VALUE$'): Promise<string> =>
  sopsEncrypt({ apiVersion: 'baton.dev/v1alpha1', kind: 'Instance', framework: 'web', version: '1.0.0', params }, { recipients: [recipient], encryptedRegex: regex });

const repo = (files: Record<string, string>): MemoryTree => new MemoryTree({ ...webFramework(), ...files });
/** The test framework declares a parameter no template reads: that warning is not what these tests are about. */
const ofInstances = <T extends { problems: { code: string }[] }>(r: T): T => ({ ...r, problems: r.problems.filter((p) => p.code !== 'PARAM_UNUSED') });

describe('baton validate', () => {
  it('without a key: warns what it did not check and still renders every plan', async () => {
    const report = ofInstances(await validateRepository(repo({ 'instances/shop/site.yaml': await encrypted({ VALUE: SECRET }) }), renderer));
    expect(report.ok).toBe(true);
    expect(report.problems.map((p) => [p.code, p.severity])).toEqual([['SOPS_NO_KEY', 'warning']]);
    expect(report.problems[0]!.message).toContain('VALUE is encrypted for');
  });

  it('with the key: decrypts and checks the values, naming no secret', async () => {
    const ok = ofInstances(await validateRepository(repo({ 'instances/shop/site.yaml': await encrypted({ VALUE: SECRET }) }), renderer, { kind: 'repository' }, { values: { keys } }));
    expect(ok.problems).toEqual([]);
    const bad = ofInstances(await validateRepository(repo({ 'instances/shop/site.yaml': await encrypted({ VALUE: SECRET, REPLICAS: 0 }, '^(VALUE|REPLICAS)$') }), renderer, { kind: 'repository' }, { values: { keys } }));
    expect(bad.problems.map((p) => p.code)).toEqual(['PARAM_MINIMUM']);
    expect(JSON.stringify(bad)).not.toContain(SECRET);
  });

  it('a tampered file is an error with the key (the MAC)', async () => {
    const tampered = (await encrypted({ VALUE: SECRET, REPLICAS: 2 })).replace('REPLICAS: 2', 'REPLICAS: 5');
    const withKey = ofInstances(await validateRepository(repo({ 'instances/shop/site.yaml': tampered }), renderer, { kind: 'repository' }, { values: { keys } }));
    expect(withKey.problems.map((p) => [p.code, p.file])).toEqual([['SOPS_MAC_MISMATCH', 'instances/shop/site.yaml']]);
    expect(withKey.ok).toBe(false);
  });

  it('valuesFrom: says the cluster is not read; a parameter it sets is rendered with a placeholder', async () => {
    const text = `${instance({})}valuesFrom:\n  - { kind: Secret, name: db, key: v, param: VALUE }\n`;
    const report = ofInstances(await validateRepository(repo({ 'instances/shop/site.yaml': text }), renderer));
    expect(report.ok).toBe(true);
    expect(report.problems.map((p) => p.code)).toEqual(['VALUES_FROM_UNSEEN']);
  });

  it('tenants: an instance outside its tenant and a plan creating a kind it may not are errors', async () => {
    const settings = [API, 'kind: Repository', 'tenants:', '  - { name: shop, instances: ["instances/shop/*.yaml"], namespaces: [shop], frameworks: [web], kinds: [Secret] }', ''].join('\n');
    const report = ofInstances(await validateRepository(repo({ 'baton.yaml': settings, 'instances/shop/site.yaml': instance({}), 'instances/other/x.yaml': instance({}) }), renderer));
    expect(report.problems.map((p) => [p.code, p.file])).toEqual([
      ['TENANT_KIND', 'frameworks/web/1.0.0/templates/main.yaml.ejs'],
      ['TENANT_KIND', 'frameworks/web/1.0.0/templates/marker.yaml.ejs'],
      ['TENANT_NONE', 'instances/other/x.yaml'],
    ]);
  });
});

describe('baton preview', () => {
  const NOW = new Date('2026-03-01T00:00:00Z');
  const preview = async (head: Record<string, string>, values = {}): Promise<Awaited<ReturnType<typeof buildPreview>>> =>
    buildPreview({ base: repo({}), head: repo(head), baseRef: 'main', headRef: 'change', renderer, now: NOW, values });

  it('without a key: the plan and a warning saying the encrypted values were not checked; with it: no warning; never the value', async () => {
    const head = { 'instances/shop/site.yaml': await encrypted({ VALUE: SECRET }) };
    const locked = await preview(head);
    const run = locked.instances[0];
    expect(run?.outcome).toBe('run');
    expect(run?.outcome === 'run' && run.warnings.join('\n')).toContain('VALUE is encrypted for');
    const open = await preview(head, { keys });
    expect(open.instances[0]?.outcome === 'run' && open.instances[0].warnings).toEqual([]);
    expect(JSON.stringify(open)).not.toContain(SECRET);
    expect(JSON.stringify(open)).toContain('***');
  });

  it('a plan breaking a tenant rule is shown refused, with the rule', async () => {
    const settings = [API, 'kind: Repository', 'tenants:', '  - { name: shop, instances: ["instances/shop/*.yaml"], namespaces: [shop], kinds: [Secret] }', ''].join('\n');
    const report = await buildPreview({ base: repo({ 'baton.yaml': settings }), head: repo({ 'baton.yaml': settings, 'instances/shop/site.yaml': instance({}) }), baseRef: 'main', headRef: 'change', renderer, now: NOW });
    const only = report.instances[0];
    expect(only).toMatchObject({ outcome: 'refused', code: 'TENANT_KIND' });
    expect(only?.outcome === 'refused' && only.message).toContain('tenant shop may not create v1 ConfigMap shop/site');
    expect(report.acceptable).toBe(false);
  });

  it('--comment: the pull request comes from the CI environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-event-'));
    const event = join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: 42 } }));
    expect(commentTarget('github', undefined, { GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'acme/ops', GITHUB_EVENT_PATH: event })).toEqual({ provider: 'github', repository: 'acme/ops', pullRequest: 42, token: 't' });
    expect(commentTarget('github', '7', { GITHUB_REPOSITORY: 'acme/ops' })).toBe('set GITHUB_TOKEN');
    expect(commentTarget('gitlab', undefined, { BATON_NOTE_TOKEN: 'x', CI_PROJECT_ID: '5', CI_MERGE_REQUEST_IID: '3', CI_SERVER_URL: 'https://git.example.com' })).toEqual({ provider: 'gitlab', project: '5', mergeRequest: 3, token: 'x', url: 'https://git.example.com' });
    rmSync(dir, { recursive: true, force: true });
  });
});

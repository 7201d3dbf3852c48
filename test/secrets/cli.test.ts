/** `baton validate` and `baton render` with --age-key-file: decrypted and checked with it, warned without it, exit 2 for an unreadable key. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { webFramework } from '../sync/fixtures.js';
import { sopsEncrypt } from './sops-encrypt.js';

const SECRET = 'cli-secret-value-93c';
let dir: string;
let keyFile: string;

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io: CliIO & { out: string; err: string } = { out: '', err: '', isTTY: false, cwd: dir, exitCode: 0, stdout: (t) => { io.out += t; }, stderr: (t) => { io.err += t; } };
  const saved = { file: process.env.SOPS_AGE_KEY_FILE, key: process.env.SOPS_AGE_KEY, xdg: process.env.XDG_CONFIG_HOME };
  delete process.env.SOPS_AGE_KEY_FILE;
  delete process.env.SOPS_AGE_KEY;
  process.env.XDG_CONFIG_HOME = join(dir, 'no-config');
  try {
    const code = await main(['node', 'baton', ...argv], io);
    return { code, out: io.out, err: io.err };
  } finally {
    for (const [k, v] of [['SOPS_AGE_KEY_FILE', saved.file], ['SOPS_AGE_KEY', saved.key], ['XDG_CONFIG_HOME', saved.xdg]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-sops-cli-'));
  const identity = await generateIdentity();
  keyFile = join(dir, 'keys.txt');
  writeFileSync(keyFile, `# test\n${identity}\n`);
  const files: Record<string, string> = {
    ...webFramework(),
    'baton.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Repository\n',
    'instances/shop/site.yaml': await sopsEncrypt({ apiVersion: 'baton.dev/v1alpha1', kind: 'Instance', framework: 'web', version: '1.0.0', params: { VALUE: SECRET } }, { recipients: [await identityToRecipient(identity)], encryptedRegex: '^VALUE$' }),
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--age-key-file', () => {
  it('validate: a warning without a key, clean with it', async () => {
    const without = await run(['validate', '.']);
    expect(without.code).toBe(0);
    expect(without.out).toContain('warning SOPS_NO_KEY: VALUE is encrypted for age1');
    const withKey = await run(['validate', '.', '--age-key-file', keyFile]);
    expect(withKey.code).toBe(0);
    expect(withKey.out).not.toContain('SOPS_NO_KEY');
  });

  it('render: the decrypted value is used and masked in the output', async () => {
    const out = await run(['render', 'instances/shop/site.yaml', '--age-key-file', keyFile]);
    expect(out.code).toBe(0);
    expect(out.out).toContain("value: '***'");
    expect(out.out + out.err).not.toContain(SECRET);
  });

  it('an unreadable key file is a failure (exit 1) naming it', async () => {
    const out = await run(['validate', '.', '--age-key-file', join(dir, 'missing.txt')]);
    expect(out.code).toBe(1);
    expect(out.err).toMatch(/age key file .*missing\.txt cannot be read: ENOENT/);
  });
});

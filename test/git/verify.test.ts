import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/tree.js';
import { writeCommit } from '../../src/git/write.js';
import { SignatureCheckError, VerifyingMirror, sshSigner, verifyCommit, type SignatureTrust } from '../../src/git/verify.js';
import { git, gitSandbox, type GitSandbox } from '../helpers/git-server.js';

const has = (bin: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('commit signature verification with real keys', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let gitdir: string;
  let trustedKey: string;
  let allowedFile: string;
  const commits: Record<string, string> = {};

  const sshKey = (name: string): string => {
    const file = join(sandbox.dir, name);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
    return file;
  };
  const commit = (label: string, args: string[], env: NodeJS.ProcessEnv = sandbox.env): string => {
    writeFileSync(join(repo, `${label}.txt`), label);
    git(env, repo, 'add', `${label}.txt`);
    git(env, repo, ...args, 'commit', '-q', '-m', label);
    return git(env, repo, 'rev-parse', 'HEAD').trim();
  };
  const fingerprint = (pub: string): string => execFileSync('ssh-keygen', ['-l', '-f', pub]).toString().split(' ')[1] ?? '';

  beforeAll(() => {
    sandbox = gitSandbox();
    repo = join(sandbox.dir, 'repo');
    mkdirSync(repo);
    git(sandbox.env, repo, 'init', '-q');
    gitdir = join(repo, '.git');
    trustedKey = sshKey('trusted');
    const strangerKey = sshKey('stranger');
    allowedFile = join(sandbox.dir, 'allowed_signers');
    writeFileSync(allowedFile, `ops@example.com ${readFileSync(`${trustedKey}.pub`, 'utf8')}`);
    const ssh = (key: string): string[] => ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key}`];
    commits.trusted = commit('trusted', [...ssh(trustedKey), '-c', 'commit.gpgsign=true']);
    commits.stranger = commit('stranger', [...ssh(strangerKey), '-c', 'commit.gpgsign=true']);
    commits.unsigned = commit('unsigned', []);
    // A trusted signature over different content: the message was changed after signing.
    const raw = git(sandbox.env, repo, 'cat-file', 'commit', commits.trusted).replace('\ntrusted\n', '\ntampered\n');
    commits.tampered = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: repo, env: sandbox.env, input: raw }).toString().trim();
  });
  afterAll(() => sandbox.cleanup());

  it.each([
    ['a commit signed by a trusted SSH key is verified', 'trusted', { verified: true, format: 'ssh', signer: 'ops@example.com' }],
    ['an unsigned commit is refused as unsigned', 'unsigned', { verified: false, reason: 'unsigned' }],
    ['a commit signed by a key not in the allowed signers is refused as untrusted', 'stranger', { verified: false, reason: 'untrusted' }],
    ['a signature that does not match the content is refused as bad', 'tampered', { verified: false, reason: 'bad' }],
  ])('GIVEN an allowed-signers file: %s', async (_name, label, expected) => {
    const result = await verifyCommit(gitdir, commits[label] ?? '', { allowedSigners: allowedFile });
    expect(result).toMatchObject(expected);
    if (!result.verified) expect(result.message).toContain((commits[label] ?? '').slice(0, 12));
  });

  it('GIVEN a verified commit THEN the key is the trusted key\'s fingerprint', async () => {
    const result = await verifyCommit(gitdir, commits.trusted ?? '', { allowedSigners: allowedFile });
    expect(result).toEqual({ verified: true, format: 'ssh', signer: 'ops@example.com', key: fingerprint(`${trustedKey}.pub`) });
  });

  it('GIVEN a stranger\'s commit THEN the refusal names the untrusted key', async () => {
    const result = await verifyCommit(gitdir, commits.stranger ?? '', { allowedSigners: allowedFile });
    expect(result.verified ? '' : result.message).toMatch(/signed by key SHA256:\S+, which is not in the allowed signers/);
  });

  it('GIVEN the allowed signers as content rather than a path THEN they are used the same way', async () => {
    const content = readFileSync(allowedFile, 'utf8');
    expect(await verifyCommit(gitdir, commits.trusted ?? '', { allowedSigners: content })).toMatchObject({ verified: true });
  });

  it('GIVEN an SSH-signed commit and only an OpenPGP keyring THEN it is untrusted', async () => {
    const result = await verifyCommit(gitdir, commits.trusted ?? '', { gpgKeyring: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n' });
    expect(result).toMatchObject({ verified: false, reason: 'untrusted', message: expect.stringContaining('no allowed signers') as unknown });
  });

  it.each<[string, string, SignatureTrust, RegExp]>([
    ['no trusted keys at all', 'aaaa', {}, /needs trusted keys/],
    ['an allowed-signers path that does not exist', 'aaaa', { allowedSigners: '/nonexistent/allowed_signers' }, /allowed signers: no such file/],
    ['something that is not a commit id', '--output=/tmp/x', { allowedSigners: 'x' }, /not a commit id/],
  ])('GIVEN %s THEN a SignatureCheckError says what is wrong', async (_name, id, trust, message) => {
    const target = id === 'aaaa' ? (commits.trusted ?? '') : id;
    const err = await verifyCommit(gitdir, target, trust).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignatureCheckError);
    expect((err as Error).message).toMatch(message);
  });

  it('GIVEN an SSH signer WHEN Baton writes a status commit with it THEN git verifies the commit', async () => {
    const store = new ObjectStore(gitdir);
    const tree = git(sandbox.env, repo, 'rev-parse', `${commits.unsigned ?? ''}^{tree}`).trim();
    const oid = await writeCommit(store, { tree, parents: [commits.unsigned ?? ''], message: 'status: signed by Baton', author: { name: 'Baton', email: 'baton@localhost' }, sign: sshSigner(trustedKey) });
    expect(await verifyCommit(gitdir, oid, { allowedSigners: allowedFile })).toMatchObject({ verified: true, signer: 'ops@example.com' });
  });

  it('GIVEN a missing signing key THEN the signer is refused up front', () => {
    expect(() => sshSigner(join(sandbox.dir, 'missing-key'))).toThrow(/missing-key: no such file/);
  });

  it('GIVEN a verifying mirror WHEN the branch moves THEN only signed changes are handed to the agent, status-only commits pass', async () => {
    const origin = join(sandbox.dir, 'origin');
    mkdirSync(origin);
    git(sandbox.env, origin, 'init', '-q');
    const signedArgs = ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${trustedKey}`, '-c', 'commit.gpgsign=true'];
    const put = (path: string, args: string[]): string => {
      mkdirSync(join(origin, path, '..'), { recursive: true });
      writeFileSync(join(origin, path), `${path} ${Date.now()}\n`);
      git(sandbox.env, origin, 'add', path);
      git(sandbox.env, origin, ...args, 'commit', '-q', '-m', `change ${path}`);
      return git(sandbox.env, origin, 'rev-parse', 'HEAD').trim();
    };
    const refusals: string[] = [];
    const mirror = new VerifyingMirror({
      dir: join(sandbox.dir, 'mirror'), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env,
      branch: 'main', trust: { allowedSigners: allowedFile }, onRefused: (c, v) => refusals.push(`${c.slice(0, 7)} ${v.reason}`),
    });
    await mirror.init();
    const signed = put('instances/prod/redis.yaml', signedArgs);
    expect(await mirror.fetch('main')).toBe(signed);
    // Baton's own (unsigned) status commit on top of a verified change is accepted.
    const status = put('status/prod/redis.yaml', []);
    expect(await mirror.fetch('main')).toBe(status);
    // An unsigned change to desired state is refused: the agent keeps the last verified commit.
    const unsigned = put('instances/prod/redis.yaml', []);
    expect(await mirror.fetch('main')).toBe(status);
    expect(await mirror.fetch('main')).toBe(status);
    expect(refusals).toEqual([`${unsigned.slice(0, 7)} unsigned`]);
    expect(mirror.lastRefusal?.verdict.message).toContain(unsigned.slice(0, 12));
    // A restarted agent (a fresh mirror) that finds the tip refused gets the newest verified commit below it.
    const restarted = new VerifyingMirror({ dir: join(sandbox.dir, 'mirror-restarted'), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env, branch: 'main', trust: { allowedSigners: allowedFile } });
    await restarted.init();
    expect(await restarted.fetch('main')).toBe(signed);
    expect(restarted.lastRefusal?.commit).toBe(unsigned);
    // A signed fix resumes syncing.
    const fixed = put('instances/prod/redis.yaml', signedArgs);
    expect(await mirror.fetch('main')).toBe(fixed);
    expect(mirror.lastRefusal).toBeUndefined();
    // With no signed commit anywhere below the refused tip, nothing is handed to the agent.
    const bare = join(sandbox.dir, 'unsigned-only');
    mkdirSync(bare);
    git(sandbox.env, bare, 'init', '-q');
    writeFileSync(join(bare, 'a.txt'), 'a\n');
    git(sandbox.env, bare, 'add', 'a.txt');
    git(sandbox.env, bare, 'commit', '-q', '-m', 'unsigned only');
    const none = new VerifyingMirror({ dir: join(sandbox.dir, 'mirror-none'), remote: { url: bare, auth: { kind: 'none' } }, env: sandbox.env, branch: 'main', trust: { allowedSigners: allowedFile } });
    await none.init();
    expect(await none.fetch('main')).toBeUndefined();
    expect(none.lastRefusal?.verdict.reason).toBe('unsigned');
  });

  it('GIVEN no verified commit below a refused tip WHEN the same tip is fetched again THEN the history is not searched again, only when the refused change moves', async () => {
    const origin = join(sandbox.dir, 'unsigned-history');
    mkdirSync(origin);
    git(sandbox.env, origin, 'init', '-q');
    const put = (path: string): string => {
      mkdirSync(join(origin, path, '..'), { recursive: true });
      writeFileSync(join(origin, path), `${path} ${Date.now()}\n`);
      git(sandbox.env, origin, 'add', path);
      git(sandbox.env, origin, 'commit', '-q', '-m', `change ${path}`);
      return git(sandbox.env, origin, 'rev-parse', 'HEAD').trim();
    };
    for (let i = 0; i < 3; i++) put(`instances/prod/app${i}.yaml`);
    const mirror = new VerifyingMirror({ dir: join(sandbox.dir, 'mirror-unsigned-history'), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env, branch: 'main', trust: { allowedSigners: allowedFile } });
    await mirror.init();
    expect(await mirror.fetch('main')).toBeUndefined();
    expect(mirror.ancestorSearches).toBe(1);
    expect(await mirror.fetch('main')).toBeUndefined();
    expect(await mirror.fetch('main')).toBeUndefined();
    expect(mirror.ancestorSearches).toBe(1);
    // A status-only commit on top leaves the refused change (the target) as it was: still no search.
    put('status/prod/app0.yaml');
    expect(await mirror.fetch('main')).toBeUndefined();
    expect(mirror.ancestorSearches).toBe(1);
    // A new refused change is a new target: searched once more.
    const refused = put('instances/prod/app9.yaml');
    expect(await mirror.fetch('main')).toBeUndefined();
    expect(await mirror.fetch('main')).toBeUndefined();
    expect(mirror.ancestorSearches).toBe(2);
    expect(mirror.lastRefusal?.commit).toBe(refused);
  });

  describe.skipIf(!has('gpg'))('OpenPGP signatures (gpg is installed)', () => {
    let keyring: string;
    let signed: string;
    let gnupg: string;

    beforeAll(() => {
      gnupg = join(sandbox.dir, 'gnupg-signer');
      mkdirSync(gnupg, { mode: 0o700 });
      const env = { ...sandbox.env, GNUPGHOME: gnupg };
      execFileSync('gpg', ['--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', 'Release Bot <release@example.com>', 'ed25519', 'sign', 'never'], { env, stdio: 'ignore' });
      keyring = join(sandbox.dir, 'trusted.asc');
      writeFileSync(keyring, execFileSync('gpg', ['--batch', '--armor', '--export', 'release@example.com'], { env }));
      signed = commit('gpg-signed', ['-c', 'gpg.format=openpgp', '-c', 'user.signingkey=release@example.com', '-c', 'commit.gpgsign=true'], env);
    });
    afterAll(() => {
      execFileSync('gpgconf', ['--homedir', gnupg, '--kill', 'all'], { stdio: 'ignore' });
    });

    it('GIVEN the signer\'s public key in the keyring THEN the commit is verified', async () => {
      const result = await verifyCommit(gitdir, signed, { gpgKeyring: keyring });
      expect(result).toMatchObject({ verified: true, format: 'openpgp', signer: 'Release Bot <release@example.com>' });
    });

    it('GIVEN the keyring as armoured content THEN it is used the same way', async () => {
      expect(await verifyCommit(gitdir, signed, { gpgKeyring: readFileSync(keyring, 'utf8') })).toMatchObject({ verified: true });
    });

    it('GIVEN only SSH allowed signers THEN an OpenPGP-signed commit is untrusted', async () => {
      expect(await verifyCommit(gitdir, signed, { allowedSigners: allowedFile })).toMatchObject({ verified: false, reason: 'untrusted' });
    });
  });
});

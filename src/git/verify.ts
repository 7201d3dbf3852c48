/**
 * Commit signature verification (as Flux does): the agent applies a commit only when it is signed by
 * a trusted key. The git binary does the cryptography: SSH signatures against an allowed-signers file
 * (`gpg.format=ssh`, via ssh-keygen), OpenPGP signatures against a keyring imported into a throwaway
 * GNUPGHOME (so only the configured keys count, never the operator's own keyring). Every git run has
 * no system or global config and fixed argument arrays. Also a signer for Baton's own status commits.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatonError, errorMessage } from '../errors.js';
import { GitMirror, type MirrorOptions } from './mirror.js';

export interface SignatureTrust {
  /** SSH allowed-signers: a file path, or the file's content (`principal ssh-ed25519 AAAA...` lines). */
  allowedSigners?: string;
  /** OpenPGP public keys: a file path (armoured or binary), or armoured content. */
  gpgKeyring?: string;
}

export type SignatureFormat = 'ssh' | 'openpgp';

export type Verification =
  | { verified: true; format: SignatureFormat; signer: string; key: string }
  | { verified: false; reason: 'unsigned' | 'untrusted' | 'bad'; message: string };

/** Verification could not run at all (no trust configured, missing file, git or gpg failed). */
export class SignatureCheckError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}, cause?: unknown) {
    super('GIT_SIGNATURE_CHECK', message, context, { cause });
  }
}

interface Run { stdout: string; stderr: string; code: number }

function run(bin: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(bin, args, { env, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') { reject(new Error(err.message, { cause: err })); return; }
      resolve({ stdout, stderr, code: err ? Number(err.code) : 0 });
    });
    // A child that exits without reading stdin must not crash the process with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** Only what git, ssh-keygen and gpg need: nothing from the operator's git or gpg configuration. */
function isolatedEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C', LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', ...extra,
  };
}

/** A path when such a file exists; otherwise the text must look like the content itself. */
function materialise(value: string, dir: string, file: string, looksLikeContent: RegExp, what: string): string {
  if (!value.includes('\n') && existsSync(value)) return value;
  if (!looksLikeContent.test(value)) throw new SignatureCheckError(`${what}: no such file, and not ${what} content either: ${JSON.stringify(value.slice(0, 80))}`, { setting: what });
  const path = join(dir, file);
  writeFileSync(path, value.endsWith('\n') ? value : `${value}\n`);
  return path;
}

const SSH_ARMOR = '-----BEGIN SSH SIGNATURE-----';
const PGP_ARMOR = '-----BEGIN PGP SIGNATURE-----';

/** The signature format from the commit's `gpgsig` header, undefined when unsigned. */
function signatureFormat(rawCommit: string): SignatureFormat | 'other' | undefined {
  const header = rawCommit.split('\n\n')[0] ?? '';
  const sig = /^gpgsig(?:-sha256)? (.*)$/m.exec(header)?.[1];
  if (sig === undefined) return undefined;
  return sig.startsWith(SSH_ARMOR) ? 'ssh' : sig.startsWith(PGP_ARMOR) ? 'openpgp' : 'other';
}

/**
 * Verifies that `commit` (a full or abbreviated hex id) in the repository `gitdir` is signed by a key
 * in `trust`. A refusal is a result (unsigned / untrusted / bad), not an exception.
 */
export async function verifyCommit(gitdir: string, commit: string, trust: SignatureTrust): Promise<Verification> {
  if (!/^[0-9a-f]{4,64}$/i.test(commit)) throw new SignatureCheckError(`not a commit id: ${JSON.stringify(commit)}`, { commit });
  if (trust.allowedSigners === undefined && trust.gpgKeyring === undefined) {
    throw new SignatureCheckError('signature verification needs trusted keys: an allowed-signers file (SSH) or a keyring (OpenPGP)');
  }
  const short = commit.slice(0, 12);
  const dir = mkdtempSync(join(tmpdir(), 'baton-verify-'));
  let gnupgHome: string | undefined;
  try {
    const raw = await run('git', ['--git-dir', gitdir, 'cat-file', 'commit', commit], isolatedEnv(dir));
    if (raw.code !== 0) throw new SignatureCheckError(`cannot read commit ${short}: ${raw.stderr.trim()}`, { commit, gitdir });
    const format = signatureFormat(raw.stdout);
    if (format === undefined) return { verified: false, reason: 'unsigned', message: `commit ${short} is not signed` };
    if (format === 'other') return { verified: false, reason: 'untrusted', message: `commit ${short} has a signature of a kind Baton cannot verify (only SSH and OpenPGP)` };
    const config: string[] = ['-c', `gpg.format=${format}`];
    const extraEnv: Record<string, string> = {};
    if (format === 'ssh') {
      if (trust.allowedSigners === undefined) return { verified: false, reason: 'untrusted', message: `commit ${short} is SSH-signed but no allowed signers are configured` };
      const file = materialise(trust.allowedSigners, dir, 'allowed_signers', /^\S+\s+(\S+\s+)?(ssh-|ecdsa-|sk-)/m, 'allowed signers');
      config.push('-c', `gpg.ssh.allowedSignersFile=${file}`);
    } else {
      if (trust.gpgKeyring === undefined) return { verified: false, reason: 'untrusted', message: `commit ${short} is OpenPGP-signed but no keyring is configured` };
      const keyring = materialise(trust.gpgKeyring, dir, 'keyring.asc', /-----BEGIN PGP PUBLIC KEY BLOCK-----/, 'gpg keyring');
      gnupgHome = join(dir, 'gnupg');
      extraEnv.GNUPGHOME = gnupgHome;
      await importKeyring(keyring, gnupgHome, isolatedEnv(dir, extraEnv));
    }
    const log = await run('git', ['--git-dir', gitdir, ...config, 'log', '-1', '--no-show-signature', '--format=%G?%x00%GK%x00%GS%x00%GF', commit], isolatedEnv(dir, extraEnv));
    if (log.code !== 0) throw new SignatureCheckError(`git could not check the signature of ${short}: ${log.stderr.trim()}`, { commit });
    const [code = '', key = '', signer = '', fingerprint = ''] = log.stdout.trim().split('\0');
    return classify(code, format, short, { key: fingerprint || key, signer });
  } catch (err) {
    if (err instanceof SignatureCheckError) throw err;
    throw new SignatureCheckError(`signature check of ${short} failed: ${errorMessage(err)}`, { commit }, err);
  } finally {
    if (gnupgHome !== undefined) await run('gpgconf', ['--homedir', gnupgHome, '--kill', 'all'], isolatedEnv(dir)).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function importKeyring(keyring: string, home: string, env: NodeJS.ProcessEnv): Promise<void> {
  mkdirSync(home, { mode: 0o700 });
  const imported = await run('gpg', ['--batch', '--quiet', '--no-autostart', '--homedir', home, '--import', keyring], env).catch((err: unknown) => {
    throw new SignatureCheckError(`gpg is needed to verify OpenPGP signatures: ${errorMessage(err)}`);
  });
  if (imported.code !== 0) throw new SignatureCheckError(`gpg keyring ${keyring} could not be imported: ${imported.stderr.trim()}`, { keyring });
}

/** git's %G? letter to a verdict. For OpenPGP, U (unknown validity) is trusted: the keyring is the trust. */
function classify(code: string, format: SignatureFormat, short: string, who: { key: string; signer: string }): Verification {
  const trusted = code === 'G' || (code === 'U' && format === 'openpgp');
  if (trusted) return { verified: true, format, signer: who.signer || who.key, key: who.key };
  const key = who.key ? ` ${who.key}` : '';
  switch (code) {
    case 'B': return { verified: false, reason: 'bad', message: `commit ${short} has a bad signature (the content does not match it)` };
    case 'N': return { verified: false, reason: 'unsigned', message: `commit ${short} is not signed` };
    case 'U': return { verified: false, reason: 'untrusted', message: `commit ${short} is signed by key${key}, which is not in the allowed signers` };
    case 'E': return { verified: false, reason: 'untrusted', message: `commit ${short} is signed by key${key}, which is not in the trusted keyring` };
    case 'X': return { verified: false, reason: 'untrusted', message: `commit ${short} has an expired signature` };
    case 'Y': return { verified: false, reason: 'untrusted', message: `commit ${short} is signed by expired key${key}` };
    case 'R': return { verified: false, reason: 'untrusted', message: `commit ${short} is signed by revoked key${key}` };
    default: return { verified: false, reason: 'bad', message: `commit ${short}: unexpected signature status ${JSON.stringify(code)}` };
  }
}

/**
 * A signer for status commits (`CommitInput.sign` in write.ts): an SSH signature of the commit
 * payload with `ssh-keygen -Y sign -n git`, what `git commit -S` writes with `gpg.format=ssh`.
 * The key must not need a passphrase.
 */
export function sshSigner(privateKeyFile: string): (payload: string) => Promise<string> {
  if (!existsSync(privateKeyFile)) throw new SignatureCheckError(`signing key ${privateKeyFile}: no such file`, { key: privateKeyFile });
  return async (payload) => {
    const home = mkdtempSync(join(tmpdir(), 'baton-sign-'));
    try {
      const out = await run('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', privateKeyFile], isolatedEnv(home), payload);
      if (out.code !== 0 || !out.stdout.includes(SSH_ARMOR)) throw new SignatureCheckError(`signing with ${privateKeyFile} failed: ${out.stderr.trim()}`, { key: privateKeyFile });
      return out.stdout;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
}

/** How many non-status commits below a refused tip a fresh agent checks for the last verified one. */
const ANCESTOR_SEARCH_LIMIT = 25;

export interface VerifyingMirrorOptions extends MirrorOptions {
  /** The branch whose commits must be signed (status branches are Baton's own). */
  branch: string;
  trust: SignatureTrust;
  /**
   * Commits touching only this directory are Baton's status write-back, unsigned by design: the
   * commit verified is the newest one that changes anything else. Default `status`.
   */
  statusDir?: string;
  onRefused?: (commit: string, verdict: Extract<Verification, { verified: false }>) => void;
}

/**
 * A GitMirror whose `fetch` of the watched branch returns only a commit whose signature verifies
 * (the tip itself, or the tip above a verified commit with only status commits on top). A refused tip
 * yields the last verified commit (on a fresh start, the newest verified one below the tip; undefined
 * when there is none), so the agent keeps what it applied and runs no plan for the refused change. The tracking ref still moves, so status pushes stay fast-forward.
 */
export class VerifyingMirror extends GitMirror {
  private readonly verify: VerifyingMirrorOptions;
  private lastVerified: string | undefined;
  private verdict: { target: string; result: Verification } | undefined;
  /** The refused target last searched below: a search finding nothing is not repeated every poll. */
  private searchedBelow: string | undefined;
  /** How many times the history below a refused tip was searched (for tests and metrics). */
  ancestorSearches = 0;
  /** The latest refusal, cleared when a commit verifies (for `--once` reports and health). */
  lastRefusal: { commit: string; verdict: Extract<Verification, { verified: false }> } | undefined;

  constructor(options: VerifyingMirrorOptions) {
    super(options);
    this.verify = options;
  }

  override async fetch(branch: string): Promise<string | undefined> {
    const tip = await super.fetch(branch);
    if (branch !== this.verify.branch || tip === undefined) return tip;
    const target = await this.newestNonStatusCommit(tip);
    const result = this.verdict?.target === target ? this.verdict.result : await verifyCommit(this.dir, target, this.verify.trust);
    const fresh = this.verdict?.target !== target;
    this.verdict = { target, result };
    if (result.verified) {
      this.lastVerified = tip;
      this.lastRefusal = undefined;
      return tip;
    }
    this.lastRefusal = { commit: target, verdict: result };
    if (fresh) this.verify.onRefused?.(target, result);
    // A fresh start (or restart) that finds the tip refused: the last verified commit is further down.
    // Searched once per refused target: when nothing verifies, the answer will not change until the
    // branch moves, and each search may run up to ANCESTOR_SEARCH_LIMIT verification processes.
    if (this.lastVerified === undefined && this.searchedBelow !== target) {
      this.searchedBelow = target;
      this.ancestorSearches++;
      this.lastVerified = await this.newestVerifiedAncestor(target);
    }
    return this.lastVerified;
  }

  /**
   * The newest commit below `refused` (first parent) whose signature verifies, looking at most at
   * `ANCESTOR_SEARCH_LIMIT` commits that change more than status files. Undefined when none does.
   */
  private async newestVerifiedAncestor(refused: string): Promise<string | undefined> {
    let checked = 0;
    for (const c of await this.firstParentHistory(`${refused}^`, ANCESTOR_SEARCH_LIMIT * 4).catch(() => [])) {
      if (c.statusOnly) continue;
      if (++checked > ANCESTOR_SEARCH_LIMIT) return undefined;
      if ((await verifyCommit(this.dir, c.id, this.verify.trust)).verified) return c.id;
    }
    return undefined;
  }

  /**
   * Walks the first-parent history down from `tip` past commits that change only files under the
   * status directory (Baton's write-back); any other commit, empty ones included, is the one to verify.
   */
  private async newestNonStatusCommit(tip: string): Promise<string> {
    return (await this.firstParentHistory(tip, 200)).find((c) => !c.statusOnly)?.id ?? tip;
  }

  /** Up to `limit` commits from `rev` down its first parents, each with whether it touches only status files. */
  private async firstParentHistory(rev: string, limit: number): Promise<{ id: string; statusOnly: boolean }[]> {
    const prefix = `${this.verify.statusDir ?? 'status'}/`;
    const out = await this.read(['log', '--first-parent', '-n', String(limit), '--format=%x00%H', '--name-only', '--no-renames', rev]);
    return out.split('\0').slice(1).map((entry) => {
      const [id = '', ...files] = entry.split('\n').map((l) => l.trim()).filter((l) => l !== '');
      return { id, statusOnly: files.length > 0 && files.every((f) => f.startsWith(prefix)) };
    });
  }
}

/**
 * Where age keys come from, as sops users know them: a key file (`--age-key-file` or
 * $SOPS_AGE_KEY_FILE), the key itself in $SOPS_AGE_KEY, sops' default file
 * (`$XDG_CONFIG_HOME/sops/age/keys.txt`, for commands people run), and for the agent a Kubernetes
 * Secret (`--age-key-secret NAMESPACE/NAME`, $BATON_AGE_KEY_SECRET) whose `*.agekey` or `*.txt`
 * entries hold keys, as Flux's `sops-age` Secret does. Keys are held in memory only.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '../kube/client.js';
import { isRecord } from '../kube/object.js';
import { AgeKeyring } from './age-keyring.js';
import { SecretsError } from './errors.js';

export interface AgeKeySources {
  /** A key file named on the command line (wins over $SOPS_AGE_KEY_FILE). */
  file?: string;
  /** `namespace/name` of a Secret holding keys (the agent). */
  secret?: string;
  /** Also read sops' default key file when it exists (commands people run; not the agent). */
  defaultFile?: boolean;
}

/** sops' default location of age keys on Linux. */
export function defaultKeyFile(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(base, 'sops', 'age', 'keys.txt');
}

/** Keys from files and the environment (no cluster). An empty keyring when none is configured. */
export async function loadLocalAgeKeys(sources: AgeKeySources, env: NodeJS.ProcessEnv): Promise<AgeKeyring> {
  const ring = new AgeKeyring();
  const file = sources.file ?? (env.SOPS_AGE_KEY_FILE !== undefined && env.SOPS_AGE_KEY_FILE !== '' ? env.SOPS_AGE_KEY_FILE : undefined);
  if (file !== undefined) {
    const origin = sources.file !== undefined ? `age key file ${file}` : `$SOPS_AGE_KEY_FILE (${file})`;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new SecretsError('AGE_KEY_INVALID', `${origin} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    await ring.add(text, origin);
  }
  if (env.SOPS_AGE_KEY !== undefined && env.SOPS_AGE_KEY !== '') await ring.add(env.SOPS_AGE_KEY, '$SOPS_AGE_KEY');
  if (sources.defaultFile === true && file === undefined) {
    const path = defaultKeyFile(env);
    if (existsSync(path)) await ring.add(await readFile(path, 'utf8'), path);
  }
  return ring;
}

export function parseSecretRef(text: string, source: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text);
  if (!m) throw new SecretsError('AGE_KEY_INVALID', `${source}: expected NAMESPACE/NAME of a Secret, got ${JSON.stringify(text)}`);
  return { namespace: m[1]!, name: m[3]! };
}

/** Keys from a Secret's `*.agekey` / `*.txt` entries. */
export async function loadSecretAgeKeys(client: KubeClient, ref: { namespace: string; name: string }): Promise<AgeKeyring> {
  const label = `Secret ${ref.namespace}/${ref.name}`;
  const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ref.namespace, name: ref.name });
  if (secret === undefined) throw new SecretsError('AGE_KEY_INVALID', `${label} (age keys) does not exist`);
  const data = isRecord(secret.data) ? secret.data : {};
  const ring = new AgeKeyring();
  const entries = Object.entries(data).filter(([k]) => k.endsWith('.agekey') || k.endsWith('.txt'));
  if (entries.length === 0) throw new SecretsError('AGE_KEY_INVALID', `${label} has no entry ending in .agekey or .txt holding age keys`);
  for (const [key, value] of entries) {
    if (typeof value !== 'string') continue;
    await ring.add(Buffer.from(value, 'base64').toString('utf8'), `${label} key ${key}`);
  }
  return ring;
}

/** Every configured source, the Secret included when a client is given. */
export async function loadAgeKeys(sources: AgeKeySources, env: NodeJS.ProcessEnv, client?: KubeClient): Promise<AgeKeyring> {
  const ring = await loadLocalAgeKeys(sources, env);
  const secret = sources.secret ?? (env.BATON_AGE_KEY_SECRET !== undefined && env.BATON_AGE_KEY_SECRET !== '' ? env.BATON_AGE_KEY_SECRET : undefined);
  if (secret !== undefined && client !== undefined) {
    ring.merge(await loadSecretAgeKeys(client, parseSecretRef(secret, sources.secret !== undefined ? 'flag --age-key-secret' : '$BATON_AGE_KEY_SECRET')));
  }
  return ring;
}

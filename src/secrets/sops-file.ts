/**
 * A SOPS-encrypted YAML or JSON document, read without any key: its `sops` metadata and its leaves in
 * document order, each with the YAML path (for locating problems), the map keys that form its
 * additional data, and whether the file's rules say it is encrypted. The walk follows sops 3.x
 * (sops.go walkBranch/walkSlice/shouldBeEncrypted): keys are stored in clear, list indexes are not
 * part of a value's additional data, null values are skipped, comments never enter the MAC.
 *
 * The tree is walked on the YAML syntax tree, not on a parsed JavaScript object, because the MAC
 * covers the values in document order and JavaScript objects put integer-like keys first.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { z } from 'zod';
import { SecretsError } from './errors.js';
import { compileRepoPattern } from '../render/pattern.js';

export type YamlPath = (string | number)[];

export interface SopsLeaf {
  /** Path in the document, with list indexes (for problems and for rebuilding the value). */
  path: YamlPath;
  /** The map keys leading to it (sops' additional data is these joined by ":"). */
  keys: string[];
  /** The value as stored: an ENC[...] string when encrypted, else the plain scalar. */
  stored: unknown;
  encrypted: boolean;
}

const ageStanza = z.object({ recipient: z.string().min(1), enc: z.string().min(1) });
const list = <T extends z.ZodType>(item: T) => z.array(item).nullish();
const metadataSchema = z.looseObject({
  age: list(ageStanza),
  pgp: list(z.unknown()),
  kms: list(z.unknown()),
  gcp_kms: list(z.unknown()),
  azure_kv: list(z.unknown()),
  hc_vault: list(z.unknown()),
  key_groups: list(z.looseObject({ age: list(ageStanza) })),
  shamir_threshold: z.number().int().nullish(),
  lastmodified: z.string().min(1),
  mac: z.string(),
  unencrypted_suffix: z.string().nullish(),
  encrypted_suffix: z.string().nullish(),
  unencrypted_regex: z.string().nullish(),
  encrypted_regex: z.string().nullish(),
  unencrypted_comment_regex: z.string().nullish(),
  encrypted_comment_regex: z.string().nullish(),
  mac_only_encrypted: z.boolean().nullish(),
  version: z.string().nullish(),
});
export type SopsMetadata = z.output<typeof metadataSchema>;

export interface SopsFile {
  metadata: SopsMetadata;
  /** The age stanzas that can unwrap the data key (from `age` or a single key group). */
  ageStanzas: { recipient: string; enc: string }[];
  leaves: SopsLeaf[];
  /** Rebuilds the document (without `sops`) with each leaf's value replaced by `valueOf(leaf)`. */
  build(valueOf: (leaf: SopsLeaf) => unknown): Record<string, unknown>;
}

/** Whether a parsed document carries SOPS metadata (a top-level `sops` map with `mac` and `lastmodified`). */
export function isSopsDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const sops = (value as Record<string, unknown>).sops;
  return sops !== null && typeof sops === 'object' && !Array.isArray(sops) && 'mac' in sops && 'lastmodified' in sops;
}

/** Reads a SOPS document's structure and metadata; throws SecretsError for what is malformed or unsupported. */
export function readSopsFile(text: string): SopsFile {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new SecretsError('SOPS_INVALID', `the file is not valid YAML: ${doc.errors[0]?.message.split('\n')[0] ?? ''}`);
  const root = doc.contents;
  if (!isMap(root)) throw new SecretsError('SOPS_INVALID', 'a SOPS document must be a map');
  const sopsPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'sops');
  const parsed = metadataSchema.safeParse(sopsPair && isMap(sopsPair.value) ? sopsPair.value.toJS(doc) : undefined);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SecretsError('SOPS_INVALID', `the sops metadata is invalid at sops.${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`, ['sops', ...(issue?.path.map(String) ?? [])]);
  }
  const metadata = parsed.data;
  if (metadata.encrypted_comment_regex || metadata.unencrypted_comment_regex) {
    throw new SecretsError('SOPS_UNSUPPORTED', 'files encrypted with encrypted_comment_regex or unencrypted_comment_regex are not supported: use encrypted_regex or encrypted_suffix', ['sops']);
  }
  const ageStanzas = stanzasOf(metadata);
  const rules = encryptionRules(metadata);
  const leaves: SopsLeaf[] = [];
  walk(root, [], [], true, rules, leaves);
  const build = (valueOf: (leaf: SopsLeaf) => unknown): Record<string, unknown> => {
    const byPath = new Map(leaves.map((l) => [JSON.stringify(l.path), l]));
    const rebuild = (node: unknown, path: YamlPath): unknown => {
      if (isMap(node)) {
        const out: Record<string, unknown> = {};
        for (const pair of node.items) {
          const key = keyOf(pair.key);
          if (path.length === 0 && key === 'sops') continue;
          out[key] = rebuild(pair.value, [...path, key]);
        }
        return out;
      }
      if (isSeq(node)) return node.items.map((item, i) => rebuild(item, [...path, i]));
      const leaf = byPath.get(JSON.stringify(path));
      return leaf ? valueOf(leaf) : null;
    };
    return rebuild(root, []) as Record<string, unknown>;
  };
  return { metadata, ageStanzas, leaves, build };
}

function stanzasOf(metadata: SopsMetadata): { recipient: string; enc: string }[] {
  const groups = metadata.key_groups ?? [];
  if (groups.length > 1) {
    throw new SecretsError('SOPS_UNSUPPORTED', `the data key is split across ${groups.length} key groups (Shamir secret sharing), which Baton does not support: encrypt for age recipients in one group`, ['sops', 'key_groups']);
  }
  const stanzas = [...(metadata.age ?? []), ...(groups[0]?.age ?? [])];
  if (stanzas.length === 0) {
    const others = (['pgp', 'kms', 'gcp_kms', 'azure_kv', 'hc_vault'] as const).filter((k) => (metadata[k]?.length ?? 0) > 0);
    throw new SecretsError('SOPS_UNSUPPORTED', `the file is encrypted only for ${others.join(', ') || 'no'} master keys; Baton decrypts age recipients only (add one with sops updatekeys)`, ['sops']);
  }
  return stanzas;
}

interface Rules {
  unencryptedSuffix: string | undefined;
  encryptedSuffix: string | undefined;
  unencryptedRegex: KeyPattern | undefined;
  encryptedRegex: KeyPattern | undefined;
}

interface KeyPattern {
  test(key: string): boolean;
}

/**
 * sops compiles these with Go's regexp, which is RE2: so does Baton (linear time, so a pattern from a
 * repository cannot freeze the agent). Unanchored, as Go's regexp.MatchString.
 */
function regex(source: string | null | undefined, field: string): KeyPattern | undefined {
  if (!source) return undefined;
  const compiled = compileRepoPattern(source);
  if (!compiled.ok) throw new SecretsError('SOPS_INVALID', `sops.${field} is not a regular expression Baton can read: ${source}: ${compiled.reason}`, ['sops', field]);
  return compiled;
}

function encryptionRules(m: SopsMetadata): Rules {
  return {
    unencryptedSuffix: m.unencrypted_suffix ?? undefined,
    encryptedSuffix: m.encrypted_suffix ?? undefined,
    unencryptedRegex: regex(m.unencrypted_regex, 'unencrypted_regex'),
    encryptedRegex: regex(m.encrypted_regex, 'encrypted_regex'),
  };
}

/** sops' shouldBeEncrypted for a value at `keys` (comment rules are refused earlier). */
function shouldBeEncrypted(keys: readonly string[], r: Rules): boolean {
  let encrypted = true;
  if (r.unencryptedSuffix && keys.some((k) => k.endsWith(r.unencryptedSuffix!))) encrypted = false;
  if (r.encryptedSuffix) encrypted = keys.some((k) => k.endsWith(r.encryptedSuffix!));
  if (r.unencryptedRegex && keys.some((k) => r.unencryptedRegex!.test(k))) encrypted = false;
  if (r.encryptedRegex) encrypted = keys.some((k) => r.encryptedRegex!.test(k));
  return encrypted;
}

function keyOf(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  throw new SecretsError('SOPS_INVALID', 'SOPS documents have plain scalar keys only');
}

function walk(node: unknown, path: YamlPath, keys: string[], top: boolean, rules: Rules, out: SopsLeaf[]): void {
  if (isAlias(node)) throw new SecretsError('SOPS_INVALID', 'YAML aliases are not allowed in a SOPS document', path);
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = keyOf(pair.key);
      if (top && key === 'sops') continue;
      walk(pair.value, [...path, key], [...keys, key], false, rules, out);
    }
    return;
  }
  if (isSeq(node)) {
    node.items.forEach((item, i) => walk(item, [...path, i], keys, false, rules, out));
    return;
  }
  const value = isScalar(node) ? (node as Node & { value: unknown }).value : null;
  // sops leaves null values alone: neither encrypted nor part of the MAC.
  if (value === null || value === undefined) return;
  out.push({ path, keys, stored: value, encrypted: shouldBeEncrypted(keys, rules) });
}

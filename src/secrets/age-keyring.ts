/**
 * The age identities Baton may decrypt with, parsed from key files in the format `age-keygen` writes
 * (one `AGE-SECRET-KEY-1...` per line, `#` comments). Decryption of a SOPS data key goes through
 * age-encryption (typage, by age's author); the keyring only knows which keys it holds and where each
 * came from, so messages can name the source and the public key, never the secret.
 */
/** age-encryption (and its @noble dependencies) is loaded on first use: most runs never decrypt, and it costs ~0.5 s to import. */
const age = (): Promise<typeof import('age-encryption')> => import('age-encryption');
import { SecretsError } from './errors.js';

interface Held {
  identity: string;
  recipient: string;
  source: string;
}

const IDENTITY = /^AGE-SECRET-KEY-(PQ-)?1[0-9A-Z]+$/;

export class AgeKeyring {
  private readonly held: Held[] = [];

  /** Parses keys from text; `source` names where it came from (a file, $SOPS_AGE_KEY, a Secret key). */
  static async parse(text: string, source: string): Promise<AgeKeyring> {
    const ring = new AgeKeyring();
    await ring.add(text, source);
    return ring;
  }

  async add(text: string, source: string): Promise<void> {
    let line = 0;
    for (const raw of text.split(/\r?\n/)) {
      line += 1;
      const entry = raw.trim();
      if (entry === '' || entry.startsWith('#')) continue;
      if (!IDENTITY.test(entry)) {
        // Never echo the line: it may be a mangled secret key.
        throw new SecretsError('AGE_KEY_INVALID', `${source}, line ${line}: expected an age identity (AGE-SECRET-KEY-1...) or a # comment`);
      }
      let recipient: string;
      try {
        recipient = await (await age()).identityToRecipient(entry);
      } catch {
        throw new SecretsError('AGE_KEY_INVALID', `${source}, line ${line}: not a valid age identity`);
      }
      if (!this.held.some((h) => h.identity === entry)) this.held.push({ identity: entry, recipient, source });
    }
  }

  merge(other: AgeKeyring): this {
    for (const h of other.held) if (!this.held.some((x) => x.identity === h.identity)) this.held.push(h);
    return this;
  }

  get size(): number {
    return this.held.length;
  }

  /** Public keys held, for messages. */
  get recipients(): string[] {
    return this.held.map((h) => h.recipient);
  }

  get sources(): string[] {
    return [...new Set(this.held.map((h) => h.source))];
  }

  /**
   * Unwraps the SOPS data key from the stanzas of the recipients the file names. Tries the keys that
   * match a named recipient first, then every key (age does not require the recipient field to be right).
   */
  async unwrap(stanzas: readonly { recipient: string; enc: string }[]): Promise<Uint8Array> {
    if (this.held.length === 0) {
      throw new SecretsError('SOPS_NO_KEY', `the file is encrypted for ${stanzas.map((s) => s.recipient).join(', ')} and no age key was given`, ['sops', 'age']);
    }
    const { Decrypter, armor } = await age();
    const mine = new Set(this.recipients);
    const ordered = [...stanzas].sort((a, b) => Number(mine.has(b.recipient)) - Number(mine.has(a.recipient)));
    let malformed = false;
    for (const stanza of ordered) {
      let blob: Uint8Array;
      try {
        blob = armor.decode(stanza.enc);
      } catch {
        malformed = true;
        continue;
      }
      const decrypter = new Decrypter();
      for (const h of this.held) decrypter.addIdentity(h.identity);
      try {
        const key = await decrypter.decrypt(blob, 'uint8array');
        if (key.length !== 32) throw new SecretsError('SOPS_INVALID', `the data key for ${stanza.recipient} is ${key.length} bytes, expected 32`, ['sops', 'age']);
        return key;
      } catch (err) {
        if (err instanceof SecretsError) throw err;
        // No matching identity for this stanza (or a corrupted one): try the next recipient.
      }
    }
    const named = stanzas.map((s) => s.recipient).join(', ');
    if (malformed && stanzas.every((s) => mine.has(s.recipient))) {
      throw new SecretsError('SOPS_DECRYPT_FAILED', `the encrypted data key for ${named} is damaged`, ['sops', 'age']);
    }
    throw new SecretsError('SOPS_NO_KEY', `the file is encrypted for ${named}; none of the age keys given (${this.recipients.join(', ')} from ${this.sources.join(', ')}) can decrypt it`, ['sops', 'age']);
  }
}

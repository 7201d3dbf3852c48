/** `--age-key-file` for commands people run: that file, else $SOPS_AGE_KEY_FILE, $SOPS_AGE_KEY and sops' default key file. */
import { resolve } from 'node:path';
import { errorMessage } from '../errors.js';
import { loadLocalAgeKeys, type AgeKeyring } from '../secrets/index.js';
import type { CliIO } from './io.js';

export const AGE_KEY_FILE_HELP = 'age keys for SOPS-encrypted values ($SOPS_AGE_KEY_FILE, $SOPS_AGE_KEY, ~/.config/sops/age/keys.txt)';

/** The keys, or undefined after printing why they cannot be read (exit 1: the files are the problem, not the command line). */
export async function cliAgeKeys(io: CliIO, file: string | undefined): Promise<AgeKeyring | undefined> {
  try {
    return await loadLocalAgeKeys({ ...(file !== undefined ? { file: resolve(io.cwd, file) } : {}), defaultFile: true }, process.env);
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}\n`);
    return undefined;
  }
}

/**
 * Which Sprig-named functions Baton's template sandbox provides itself. Translated templates call every
 * function by its Sprig name; a local definition (see gotemplate/shims.ts) is prepended only for the
 * names missing here, so templates shrink as the sandbox grows.
 */
import { ALL_HELPERS } from '../render/sandbox/compile.js';

export function sandboxSprigHelpers(): ReadonlySet<string> {
  return new Set<string>(ALL_HELPERS);
}

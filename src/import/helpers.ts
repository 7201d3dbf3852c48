/**
 * Which Sprig-named functions Baton's template sandbox provides itself. Translated templates call every
 * function by its Sprig name; a local definition (see gotemplate/shims.ts) is prepended only for the
 * names missing here, so templates shrink as the sandbox grows.
 */
import { TEMPLATE_HELPERS } from '../render/sandbox/compile.js';

/** Helpers that exist in the sandbox under a Sprig name but with another argument order or meaning. */
const NOT_SPRIG = new Set<string>(['required', 'trunc']);

export function sandboxSprigHelpers(): ReadonlySet<string> {
  return new Set<string>([...TEMPLATE_HELPERS].filter((h) => !NOT_SPRIG.has(h)));
}

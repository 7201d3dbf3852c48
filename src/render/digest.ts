/**
 * A content hash of one framework version's files (framework.yaml, params.yaml, templates). Plan
 * selection compares it with the applied one to notice a published version being edited in place.
 */
import { createHash } from 'node:crypto';
import type { Framework } from './model.js';

export function frameworkDigest(framework: Framework): string {
  const hash = createHash('sha256');
  const add = (name: string, text: string): void => {
    // Length-prefixed so that moving bytes between files changes the digest.
    hash.update(`${name}\0${text.length}\0`).update(text);
  };
  add('framework.yaml', framework.frameworkSource.text);
  if (framework.paramsSource) add('params.yaml', framework.paramsSource.text);
  for (const name of [...framework.templates.keys()].sort()) add(`templates/${name}`, framework.templates.get(name)?.text ?? '');
  return hash.digest('hex');
}

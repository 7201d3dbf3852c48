/** The files of a catalog framework (`frameworks/NAME/VERSION` of this repository), as a test repository holds them. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const CATALOG = join(import.meta.dirname, '../../frameworks');

/** `{ 'frameworks/redis/1.1.0/framework.yaml': text, ... }`; `framework` edits framework.yaml's text. */
export function catalogFrameworkFiles(name: string, version: string, framework?: (text: string) => string): Record<string, string> {
  const root = join(CATALOG, name, version);
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const text = readFileSync(path, 'utf8');
        files[`frameworks/${name}/${version}/${relative(root, path)}`] = entry === 'framework.yaml' && framework ? framework(text) : text;
      }
    }
  };
  walk(root);
  return files;
}

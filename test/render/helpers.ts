/** Test helpers: fixture folders as in-memory trees, a fast-failing renderer, inline repositories. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryTree, Renderer } from '../../src/render/index.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Every file under `dir` as repository path -> text. */
export function readFolder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full).split(sep).join('/')] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

export function treeOf(...layers: Record<string, string>[]): MemoryTree {
  return new MemoryTree(Object.assign({}, ...layers) as Record<string, string>);
}

/** Short limits so endless loops and memory bombs fail fast in tests. */
export function testRenderer(): Renderer {
  return new Renderer({ timeoutMs: 400, memoryMb: 64 });
}

/** A minimal repository with one framework `web` 1.0.0 and instance `apps/site`; override any file. */
export function miniRepo(files: Record<string, string> = {}): MemoryTree {
  return treeOf(
    {
      'frameworks/web/1.0.0/framework.yaml': [
        'apiVersion: baton.dev/v1alpha1',
        'kind: Framework',
        'name: web',
        'version: 1.0.0',
        'appVersion: "2.4"',
        'tasks:',
        '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }',
        'plans:',
        '  deploy:',
        '    args: [{ name: X, type: string, description: an optional argument the render cache test varies }]',
        '    phases:',
        '      - name: main',
        '        steps:',
        '          - { name: main, tasks: [main] }',
        '',
      ].join('\n'),
      'frameworks/web/1.0.0/params.yaml': '- { name: VALUE, type: string, default: v }\n',
      'frameworks/web/1.0.0/templates/main.yaml.ejs': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n',
      'instances/apps/site.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\n',
    },
    files,
  );
}

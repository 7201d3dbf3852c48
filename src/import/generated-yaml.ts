/** How generated framework.yaml and params.yaml are written: a comment naming the source, then YAML. */
import { stringify } from 'yaml';

export function yamlFile(header: string, value: unknown): string {
  const comment = header
    .split('\n')
    .map((l) => `# ${l}`.trimEnd())
    .join('\n');
  return `${comment}\n${stringify(value, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

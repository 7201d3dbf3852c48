import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildReadme } from '../scripts/readme-parts.js';
import { ROOT } from './helpers/cli.js';

describe('README.md', () => {
  it('is the assembly of docs/*.md (run: npx tsx scripts/build-readme.ts)', () => {
    expect(readFileSync(`${ROOT}/README.md`, 'utf8')).toBe(buildReadme(ROOT));
  });

  it('documents every command the CLI has', async () => {
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const { buildProgram } = await import('../src/cli/main.js');
    const io = { stdout: () => {}, stderr: () => {}, isTTY: false, cwd: ROOT, exitCode: 0 };
    for (const cmd of buildProgram(io).commands) {
      const names = cmd.commands.length > 0 ? cmd.commands.map((c) => `${cmd.name()} ${c.name()}`) : [cmd.name()];
      for (const name of names) expect(readme, name).toContain(`baton ${name}`);
    }
  });
});

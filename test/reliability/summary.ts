/** globalSetup of the reliability suite: collects every suite's figures and prints them as a table. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { FIGURES_FILE_KEY } from './figures.js';

export default function setup(project: TestProject): () => void {
  const file = join(tmpdir(), `baton-reliability-${process.pid}.jsonl`);
  rmSync(file, { force: true });
  // Given to the test files (their workers do not see this process's environment changes).
  project.provide(FIGURES_FILE_KEY, file);
  return () => {
    if (!existsSync(file)) return;
    const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    rmSync(file, { force: true });
    const lines = ['', 'Reliability figures', '| suite | tries | clean | defects |', '|---|---|---|---|'];
    for (const r of rows) lines.push(`| ${String(r.suite)} | ${String(r.tries)} | ${String(r.clean)} | ${String(r.defects)} |`);
    console.log(lines.join('\n'));
  };
}

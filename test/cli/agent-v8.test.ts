import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_V8_FLAGS, agentV8Flags } from '../../src/cli/agent-v8.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * A child process that applies the agent's settings as `baton agent` does (src/cli/run.ts), then keeps
 * a few MiB of objects alive across young-generation collections (which makes V8 grow the young
 * generation with its defaults) and prints the young generation's size in MiB before and after. (tsx's
 * loader has already grown it once when the settings apply; the built CLI applies them earlier.)
 */
function youngGenerationMiB(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): { before: number; after: number } {
  const script = [
    "const { applyAgentV8Settings } = await import('./src/cli/agent-v8.ts');",
    "const v8 = await import('node:v8');",
    "const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;",
    "applyAgentV8Settings(['node', 'baton', 'agent'], process.env, process.execArgv);",
    'const before = young();',
    'const kept = [];',
    "for (let round = 0; round < 60; round++) { const batch = []; for (let i = 0; i < 5000; i++) batch.push({ s: 'x' + i + round, n: [i] }); kept.push(batch); if (kept.length > 20) kept.shift(); }",
    'console.log(before, young());',
  ].join('\n');
  const out = execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  const [before, after] = out.trim().split(' ').map(Number);
  return { before: before ?? NaN, after: after ?? NaN };
}

describe('the V8 heap settings `baton agent` chooses for itself', () => {
  it('GIVEN `baton agent` with no heap flag of the operator THEN the agent sets its young-generation and heap-growing flags', () => {
    expect(agentV8Flags(['node', 'baton', 'agent', '--once'], {}, [])).toEqual(AGENT_V8_FLAGS);
    expect(AGENT_V8_FLAGS).toEqual(['--semi-space-growth-factor=1', '--heap-growing-percent=30']);
  });

  it('GIVEN another command, a heap flag of the operator or BATON_V8_DEFAULTS=1 THEN nothing is changed', () => {
    expect(agentV8Flags(['node', 'baton', 'render', 'agent'], {}, [])).toEqual([]);
    expect(agentV8Flags(['node', 'baton', 'agent'], { NODE_OPTIONS: '--max-old-space-size=300' }, [])).toEqual([]);
    expect(agentV8Flags(['node', 'baton', 'agent'], { NODE_OPTIONS: '--enable-source-maps --max_semi_space_size=4' }, [])).toEqual([]);
    expect(agentV8Flags(['node', 'baton', 'agent'], {}, ['--max-heap-size=200'])).toEqual([]);
    expect(agentV8Flags(['node', 'baton', 'agent'], { BATON_V8_DEFAULTS: '1' }, [])).toEqual([]);
    // An unrelated NODE_OPTIONS flag keeps the agent's settings.
    expect(agentV8Flags(['node', 'baton', 'agent'], { NODE_OPTIONS: '--enable-source-maps' }, [])).toEqual(AGENT_V8_FLAGS);
  });

  it('GIVEN the settings applied in-process (no restart) WHEN objects survive young collections THEN the young generation keeps its size, where with V8 defaults it grows', () => {
    const agent = youngGenerationMiB({});
    expect(agent.after).toBe(agent.before);
    const defaults = youngGenerationMiB({ BATON_V8_DEFAULTS: '1' });
    expect(defaults.after).toBeGreaterThan(defaults.before);
    // The operator's own setting wins.
    const operator = youngGenerationMiB({}, ['--max-semi-space-size=8']);
    expect(operator.after).toBeGreaterThan(operator.before);
  }, 60_000);
});

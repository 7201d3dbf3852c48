/** repo-template/baton.yaml says truthfully what it sets: every "Default:" comment is Baton's real default. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_STEP_TIMEOUT_SECONDS } from '../../src/render/repository.js';
import { DEFAULT_INTERVAL_MS } from '../../src/sync/settings.js';
import { ROOT } from '../helpers/cli.js';

const text = readFileSync(join(ROOT, 'repo-template/baton.yaml'), 'utf8');
const settings = parse(text) as { agent: { interval: string; author: { email: string }; concurrency: number }; defaults: { stepTimeout: string } };

/** The "Default: ..." comment just above a key. */
function statedDefault(key: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^\\s*${key}:`).test(l));
  const comment = lines.slice(0, at).reverse().find((l) => /#\s*Default:/.test(l));
  return /Default: ([^.]+(?:\.\d+)?[^.]*)/.exec(comment ?? '')?.[1] ?? '';
}

describe('repo-template/baton.yaml', () => {
  it('states the real defaults, and says where it sets something else', () => {
    expect(statedDefault('interval')).toBe(`${DEFAULT_INTERVAL_MS / 1000}s`);
    expect(settings.agent.interval).not.toBe(`${DEFAULT_INTERVAL_MS / 1000}s`);
    expect(text).toContain('faster than the default');
    expect(statedDefault('author')).toBe('name Baton, email baton@localhost');
    expect(statedDefault('concurrency')).toBe('4 (the same value, spelled out)');
    expect(settings.agent.concurrency).toBe(4);
    expect(statedDefault('stepTimeout')).toBe('10m (the same value, spelled out)');
    expect(DEFAULT_STEP_TIMEOUT_SECONDS).toBe(600);
  });
});

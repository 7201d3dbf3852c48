/** The published JSON Schemas are generated from the zod schemas and must not be stale. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateJsonSchemas } from '../../src/render/json-schema.js';

describe('schemas/*.json', () => {
  it.each(Object.entries(generateJsonSchemas()))('%s matches the zod schema (run: npx tsx scripts/gen-schemas.ts)', (name, text) => {
    const committed = readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8');
    expect(committed).toBe(text);
  });

  it('every file kind has a schema an editor can reference with $schema', () => {
    expect(Object.keys(generateJsonSchemas()).sort()).toEqual(['framework.json', 'instance.json', 'params.json', 'repository.json', 'test-case.json']);
  });
});

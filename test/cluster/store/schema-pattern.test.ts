/**
 * Issue #11 item 6 in the simulated cluster: a CRD schema `pattern` comes from a repository (a framework
 * ships the CRD) and is evaluated with RE2 like the real API server (Go's regexp), in linear time.
 */
import { describe, expect, it } from 'vitest';
import { checkAgainstSchema } from '../../../src/cluster/store/validate/schema.js';

const schema = { type: 'object', properties: { spec: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } } } };

describe('CRD schema patterns', () => {
  it('GIVEN a catastrophic pattern and 40 a\'s and a "!" THEN the value is refused at once', () => {
    const result = checkAgainstSchema(schema, { spec: { name: `${'a'.repeat(40)}!` } });
    expect(result.causes).toEqual([expect.objectContaining({ field: 'spec.name', message: expect.stringContaining("should match '^(a+)+$'") })]);
    expect(checkAgainstSchema(schema, { spec: { name: 'aaaa' } }).causes).toEqual([]);
  });
});

/** Parameter resolution: every type, every constraint, defaults, required, unknown keys. */
import { describe, expect, it } from 'vitest';
import { resolveParams, type ParamDecl } from '../../src/render/index.js';

const decl = (d: Partial<ParamDecl> & { name: string }): ParamDecl => ({ type: 'string', ...d });

describe('resolveParams', () => {
  it.each([
    ['a string stays a string', decl({ name: 'P', type: 'string' }), 'text', 'text'],
    ['an integer stays a number', decl({ name: 'P', type: 'integer' }), 3, 3],
    ['a number accepts a fraction', decl({ name: 'P', type: 'number' }), 0.5, 0.5],
    ['a number accepts an integer', decl({ name: 'P', type: 'number' }), 2, 2],
    ['a boolean stays a boolean', decl({ name: 'P', type: 'boolean' }), false, false],
    ['an array stays an array', decl({ name: 'P', type: 'array' }), [1, 'a'], [1, 'a']],
    ['an object stays an object', decl({ name: 'P', type: 'object' }), { a: { b: 1 } }, { a: { b: 1 } }],
    ['a value inside the enum is accepted', decl({ name: 'P', enum: ['a', 'b'] }), 'b', 'b'],
    ['a value inside minimum/maximum is accepted', decl({ name: 'P', type: 'integer', minimum: 1, maximum: 3 }), 3, 3],
    ['a value matching the pattern is accepted', decl({ name: 'P', pattern: '^[0-9]+Gi$' }), '10Gi', '10Gi'],
  ])('GIVEN %s THEN it reaches templates with its real type', (_name, d, value, expected) => {
    const r = resolveParams([d], { P: value });
    expect(r.problems).toEqual([]);
    expect(r.values.P).toStrictEqual(expected);
  });

  it.each([
    ['a string where an integer is declared', decl({ name: 'P', type: 'integer' }), '3', 'PARAM_TYPE'],
    ['a fraction where an integer is declared', decl({ name: 'P', type: 'integer' }), 1.5, 'PARAM_TYPE'],
    ['a number where a string is declared', decl({ name: 'P', type: 'string' }), 1.0, 'PARAM_TYPE'],
    ['a string where a boolean is declared', decl({ name: 'P', type: 'boolean' }), 'true', 'PARAM_TYPE'],
    ['an object where an array is declared', decl({ name: 'P', type: 'array' }), { a: 1 }, 'PARAM_TYPE'],
    ['an array where an object is declared', decl({ name: 'P', type: 'object' }), [1], 'PARAM_TYPE'],
    ['a value outside the enum', decl({ name: 'P', enum: ['a', 'b'] }), 'c', 'PARAM_ENUM'],
    ['a value below the minimum', decl({ name: 'P', type: 'integer', minimum: 1 }), 0, 'PARAM_MINIMUM'],
    ['a value above the maximum', decl({ name: 'P', type: 'number', maximum: 1 }), 1.5, 'PARAM_MAXIMUM'],
    ['a value not matching the pattern', decl({ name: 'P', pattern: '^[0-9]+Gi$' }), '10G', 'PARAM_PATTERN'],
  ])('GIVEN %s THEN it is refused with %s', (_name, d, value, code) => {
    const r = resolveParams([d], { P: value });
    expect(r.problems.map((p) => p.code)).toEqual([code]);
    expect(r.problems[0]!.message).toContain('parameter P');
  });

  it('GIVEN no value THEN the default applies', () => {
    expect(resolveParams([decl({ name: 'P', type: 'integer', default: 3 })], {}).values).toEqual({ P: 3 });
  });

  it('GIVEN a parameter without default THEN it is required (as in KUDO)', () => {
    const r = resolveParams([decl({ name: 'P' })], {});
    expect(r.problems.map((p) => [p.code, p.message])).toEqual([['PARAM_REQUIRED', 'parameter P is required: set it under params']]);
  });

  it.each([
    ['required: false, no default and no value', decl({ name: 'P', required: false }), {}],
    ['required: false, no default and an explicit null', decl({ name: 'P', required: false }), { P: null }],
    ['a default and an explicit null', decl({ name: 'P', default: 'd' }), { P: null }],
    ['an integer with minimum/maximum and no value', decl({ name: 'P', type: 'integer', required: false, minimum: 1, maximum: 3 }), {}],
    ['an enum and an explicit null', decl({ name: 'P', required: false, enum: ['a', 'b'] }), { P: null }],
    ['a pattern and no value', decl({ name: 'P', required: false, pattern: '^[0-9]+Gi$' }), {}],
    ['an object type and an explicit null', decl({ name: 'P', type: 'object', required: false }), { P: null }],
    ['a sensitive one and no value (nothing to mask)', decl({ name: 'P', required: false, sensitive: true }), {}],
  ])('GIVEN an optional parameter with %s THEN it reaches templates as null, with no type or constraint problem', (_name, d, values) => {
    const r = resolveParams([d], values);
    expect(r.problems).toEqual([]);
    expect(r.values).toStrictEqual({ P: null });
    expect(r.sensitiveValues).toEqual([]);
  });

  it.each([
    ['no default and no value', decl({ name: 'P' }), {}],
    ['no default and an explicit null', decl({ name: 'P' }), { P: null }],
    ['required: true, a default and an explicit null', decl({ name: 'P', required: true, default: 'd' }), { P: null }],
    ['required: true and no value or default', decl({ name: 'P', type: 'integer', required: true, minimum: 1 }), {}],
  ])('GIVEN a required parameter with %s THEN it is refused as PARAM_REQUIRED only', (_name, d, values) => {
    const r = resolveParams([d], values);
    expect(r.problems.map((p) => [p.code, p.message])).toEqual([['PARAM_REQUIRED', 'parameter P is required: set it under params']]);
  });

  it('GIVEN optional parameters alongside set ones THEN every declared parameter is present, and unknown keys are still errors', () => {
    const r = resolveParams([decl({ name: 'A', default: 'a' }), decl({ name: 'B', required: false }), decl({ name: 'C', type: 'integer', required: false })], { C: 2, D: null });
    expect(r.values).toStrictEqual({ A: 'a', B: null, C: 2 });
    expect(r.problems.map((p) => [p.code, p.message])).toEqual([['PARAM_UNKNOWN', 'unknown parameter D: the framework does not declare it']]);
  });

  it('GIVEN an optional parameter with a value of the wrong type THEN it is still refused', () => {
    const r = resolveParams([decl({ name: 'P', type: 'integer', required: false, enum: [1, 2] })], { P: 'x' });
    expect(r.problems.map((p) => p.code)).toEqual(['PARAM_TYPE']);
  });

  it('GIVEN an unknown key THEN it is an error naming it, with a hint for a near miss', () => {
    const r = resolveParams([decl({ name: 'REPLICAS', default: '1' })], { replicas: 2, OTHER: 1 });
    expect(r.problems.map((p) => [p.code, p.message])).toEqual([
      ['PARAM_UNKNOWN', 'unknown parameter OTHER: the framework does not declare it'],
      ['PARAM_UNKNOWN', 'unknown parameter replicas: the framework does not declare it (did you mean REPLICAS?)'],
    ]);
  });

  it('GIVEN a sensitive value that breaks a rule THEN the message does not contain it', () => {
    const r = resolveParams([decl({ name: 'PASSWORD', sensitive: true, enum: ['x'] })], { PASSWORD: 'hunter2-long' });
    expect(r.problems[0]!.code).toBe('PARAM_ENUM');
    expect(r.problems[0]!.message).not.toContain('hunter2');
    expect(r.sensitiveValues).toEqual(['hunter2-long']);
  });
});

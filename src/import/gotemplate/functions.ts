/**
 * Go template built-ins and Sprig functions: how each call translates to JavaScript, its argument count
 * and its result type. Calls keep Sprig's names and argument order (the piped value last); Go's `default`
 * becomes `dflt` (a reserved word in JavaScript). Functions missing here are reported as unknown.
 */
export type VType = 'string' | 'int' | 'float' | 'bool' | 'list' | 'map' | 'any' | 'nil';

/** A translated expression: its JavaScript and what it is known to be. */
export interface Val {
  js: string;
  t: VType;
  /** Set when the value is KUDO's view of a parameter (KUDO passed scalars to templates as strings). */
  param?: { name: string; optional: boolean };
  /** The template's root data, resolved field by field at translation time. */
  root?: true;
  /** The parameters object (`.Params`): fields are parameters. */
  params?: true;
  /** Set for string literals, so comparisons and printf can use the value. */
  literal?: string;
  /** A map whose members are known at translation time (`.Pipes`): the member, or why there is none. */
  members?: (name: string) => Val | string;
}

export interface FunctionSpec {
  min: number;
  /** Undefined: any number. */
  max?: number;
  result: VType;
  /** Builds the call; `js` are the arguments' JavaScript in order (piped value last). */
  emit?: (args: Val[], js: string[]) => string;
  /** The JavaScript functions the emitted code calls (shims or sandbox helpers). */
  uses?: string[];
}

const call = (name: string) => (_a: Val[], js: string[]) => `${name}(${js.join(', ')})`;

function spec(min: number, max: number | undefined, result: VType, uses?: string[], emit?: FunctionSpec['emit']): FunctionSpec {
  return { min, ...(max !== undefined ? { max } : {}), result, ...(uses ? { uses } : {}), ...(emit ? { emit } : {}) };
}

/** A JavaScript condition for a value (Go's truth). */
export function truthJs(v: Val): string {
  return v.t === 'bool' ? v.js : `goTruth(${v.js})`;
}

/** Comparisons: KUDO parameters compare as the strings KUDO passed, so `eq .Params.ON "true"` keeps working. */
function comparable(args: Val[], js: string[]): string[] {
  const stringly = args.some((a) => a.param !== undefined && a.t !== 'string' && a.t !== 'list' && a.t !== 'map');
  return stringly ? js.map((j, i) => (args[i]!.t === 'string' && args[i]!.param === undefined ? j : `String(${j})`)) : js;
}

function compare(op: string) {
  return (args: Val[], js: string[]): string => {
    const [a, b] = comparable(args, js);
    return `(${a} ${op} ${b})`;
  };
}

export const FUNCTIONS: Record<string, FunctionSpec> = {
  // Go built-ins
  and: spec(1, undefined, 'any', ['goTruth'], (_a, js) => js.slice(0, -1).reduceRight((rest, x) => `(!goTruth(${x}) ? ${x} : ${rest})`, js[js.length - 1]!)),
  or: spec(1, undefined, 'any', ['goTruth'], (_a, js) => js.slice(0, -1).reduceRight((rest, x) => `(goTruth(${x}) ? ${x} : ${rest})`, js[js.length - 1]!)),
  not: spec(1, 1, 'bool', ['goTruth'], (a) => `!${truthJs(a[0]!)}`),
  eq: spec(2, undefined, 'bool', [], (a, js) => {
    const c = comparable(a, js);
    return `(${c.slice(1).map((x) => `${c[0]} === ${x}`).join(' || ')})`;
  }),
  ne: spec(2, 2, 'bool', [], compare('!==')),
  lt: spec(2, 2, 'bool', [], compare('<')),
  le: spec(2, 2, 'bool', [], compare('<=')),
  gt: spec(2, 2, 'bool', [], compare('>')),
  ge: spec(2, 2, 'bool', [], compare('>=')),
  len: spec(1, 1, 'int', ['goLen'], call('goLen')),
  index: spec(1, undefined, 'any', ['goIndex'], call('goIndex')),
  print: spec(0, undefined, 'string', ['goSprint'], call('goSprint')),
  println: spec(0, undefined, 'string', ['goPrint'], (_a, js) => `(${js.length ? js.map((j) => `goPrint(${j})`).join(" + ' ' + ") : "''"} + '\\n')`),
  printf: spec(1, undefined, 'string', ['printf'], call('printf')),
  // Sprig: defaults and flow
  default: spec(2, 2, 'any', ['dflt'], call('dflt')),
  empty: spec(1, 1, 'bool', ['empty'], call('empty')),
  coalesce: spec(1, undefined, 'any', ['coalesce'], call('coalesce')),
  ternary: spec(3, 3, 'any', ['ternary'], call('ternary')),
  required: spec(2, 2, 'any', ['required'], call('required')),
  fail: spec(1, 1, 'nil', [], (_a, js) => `(() => { throw new Error(String(${js[0]})); })()`),
  // Sprig: strings
  quote: spec(1, undefined, 'string', ['quote'], (_a, js) => (js.length === 1 ? `quote(${js[0]})` : js.map((j) => `quote(${j})`).join(" + ' ' + "))),
  squote: spec(1, undefined, 'string', ['sprigSquote'], call('sprigSquote')),
  trim: spec(1, 1, 'string', ['trim'], call('trim')),
  trimAll: spec(2, 2, 'string', ['trimAll'], call('trimAll')),
  trimSuffix: spec(2, 2, 'string', ['trimSuffix'], call('trimSuffix')),
  trimPrefix: spec(2, 2, 'string', ['trimPrefix'], call('trimPrefix')),
  lower: spec(1, 1, 'string', ['lower'], call('lower')),
  upper: spec(1, 1, 'string', ['upper'], call('upper')),
  title: spec(1, 1, 'string', ['title'], call('title')),
  replace: spec(3, 3, 'string', ['replace'], call('replace')),
  contains: spec(2, 2, 'bool', ['contains'], call('contains')),
  hasPrefix: spec(2, 2, 'bool', ['hasPrefix'], call('hasPrefix')),
  hasSuffix: spec(2, 2, 'bool', ['hasSuffix'], call('hasSuffix')),
  repeat: spec(2, 2, 'string', ['repeat'], call('repeat')),
  substr: spec(3, 3, 'string', ['substr'], call('substr')),
  trunc: spec(2, 2, 'string', ['trunc'], call('trunc')),
  split: spec(2, 2, 'map', ['sprigSplit'], call('sprigSplit')),
  splitList: spec(2, 2, 'list', ['splitList'], call('splitList')),
  join: spec(2, 2, 'string', ['join'], call('join')),
  toString: spec(1, 1, 'string', ['toString'], call('toString')),
  // Sprig: lists and dicts
  list: spec(0, undefined, 'list', ['list'], call('list')),
  dict: spec(0, undefined, 'map', ['dict'], call('dict')),
  get: spec(2, 2, 'any', ['get'], call('get')),
  set: spec(3, 3, 'map', ['set'], call('set')),
  hasKey: spec(2, 2, 'bool', ['hasKey'], call('hasKey')),
  keys: spec(1, undefined, 'list', ['keys'], call('keys')),
  values: spec(1, 1, 'list', ['values'], call('values')),
  pick: spec(1, undefined, 'map', ['pick'], call('pick')),
  omit: spec(1, undefined, 'map', ['omit'], call('omit')),
  merge: spec(1, undefined, 'map', ['merge'], call('merge')),
  first: spec(1, 1, 'any', ['first'], call('first')),
  last: spec(1, 1, 'any', ['last'], call('last')),
  has: spec(2, 2, 'bool', ['has'], call('has')),
  uniq: spec(1, 1, 'list', ['uniq'], call('uniq')),
  compact: spec(1, 1, 'list', ['compact'], call('compact')),
  until: spec(1, 1, 'list', ['until'], call('until')),
  // Sprig: numbers
  int: spec(1, 1, 'int', ['int'], call('int')),
  int64: spec(1, 1, 'int', ['int'], call('int')),
  float64: spec(1, 1, 'float', ['float64'], call('float64')),
  atoi: spec(1, 1, 'int', ['atoi'], call('atoi')),
  add: spec(1, undefined, 'int', ['add'], call('add')),
  add1: spec(1, 1, 'int', ['add1'], call('add1')),
  sub: spec(2, 2, 'int', ['sub'], call('sub')),
  mul: spec(1, undefined, 'int', ['mul'], call('mul')),
  div: spec(2, 2, 'int', ['div'], call('div')),
  mod: spec(2, 2, 'int', ['mod'], call('mod')),
  max: spec(1, undefined, 'int', ['max'], call('max')),
  min: spec(1, undefined, 'int', ['min'], call('min')),
  // Sprig: encoding and YAML
  b64enc: spec(1, 1, 'string', ['b64enc'], (_a, js) => `b64enc(String(${js[0]}))`),
  b64dec: spec(1, 1, 'string', ['b64dec'], call('b64dec')),
  sha256sum: spec(1, 1, 'string', ['sha256sum'], call('sha256sum')),
  toYaml: spec(1, 1, 'string', ['toYaml'], call('toYaml')),
  toJson: spec(1, 1, 'string', ['toJson'], call('toJson')),
  fromJson: spec(1, 1, 'any', ['fromJson'], call('fromJson')),
  fromYaml: spec(1, 1, 'any', ['fromYaml'], call('fromYaml')),
  indent: spec(2, 2, 'string', ['indent'], call('indent')),
  nindent: spec(2, 2, 'string', ['nindent'], call('nindent')),
  semverCompare: spec(2, 2, 'bool', ['semverCompare'], call('semverCompare')),
  semver: spec(1, 1, 'map', ['semver'], call('semver')),
};

/** Functions whose output is YAML or text by construction: printed raw (`<%-`), as Go inserts text. */
export const RAW_FUNCTIONS = new Set(['toYaml', 'toJson', 'indent', 'nindent']);

/** Sprig functions deliberately not translated: non-deterministic or reaching outside the template. */
export const REFUSED_FUNCTIONS: Record<string, string> = {
  now: 'reads the clock; Baton renders deterministically',
  date: 'reads the clock; Baton renders deterministically',
  randAlphaNum: 'is random; Baton renders deterministically (generate the value once and keep it in a sensitive parameter)',
  randAlpha: 'is random; Baton renders deterministically',
  randNumeric: 'is random; Baton renders deterministically',
  randAscii: 'is random; Baton renders deterministically',
  uuidv4: 'is random; Baton renders deterministically',
  genCA: 'generates keys at render time; Baton renders deterministically (use cert-manager or a Secret)',
  genSelfSignedCert: 'generates keys at render time; Baton renders deterministically',
  genSignedCert: 'generates keys at render time; Baton renders deterministically',
  genPrivateKey: 'generates keys at render time; Baton renders deterministically',
  env: 'reads the environment; templates are isolated',
  expandenv: 'reads the environment; templates are isolated',
  lookup: 'reads the cluster at render time; Baton renders from Git only',
  call: 'calls a Go method; there is no Go code in Baton',
  html: 'escapes for HTML; not useful in manifests',
  js: 'escapes for JavaScript; not useful in manifests',
  urlquery: 'escapes for URLs; not translated',
  slice: 'slices Go values; not translated',
};

/**
 * Go templates translated to EJS and rendered by Baton's real pipeline: each case is a KUDO template with
 * parameters and the object Go would have produced (written by hand from Go's and Sprig's semantics).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Renderer } from '../../src/render/index.js';
import { importKudo } from '../../src/import/index.js';
import { errorsOf, kudoPackage, objectsOf, renderImported } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());

const P = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });

function cm(data: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\ndata:\n${data}`;
}

async function render(template: string, params: Record<string, unknown>[] = [], values: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = importKudo(kudoPackage(template, params));
  expect(errorsOf(result)).toEqual([]);
  const [obj] = objectsOf(await renderImported(renderer, result, values));
  return obj as unknown as Record<string, unknown>;
}

describe('translated Go templates render what Go rendered', () => {
  it.each([
    ['KUDO variables', cm('  a: {{ .Name }}/{{ .Namespace }}\n  b: {{ .OperatorName }}-{{ .OperatorVersion }}-{{ .AppVersion }}\n  c: {{ .PlanName }}.{{ .PhaseName }}.{{ .StepName }}\n'), [], {}, { a: 'demo/ns1', b: 'probe-1.0.0-2.3.4', c: 'deploy.main.everything' }],
    ['trim markers and pipelines', cm('  a: {{ " x " | trim | upper }}\n  {{- /* a comment */}}\n  b: {{ "A-" | lower | trimSuffix "-" }}\n'), [], {}, { a: 'X', b: 'a' }],
    ['text around a value builds one string', cm('  a: pre-{{ .Params.S }}-post\n  b: "q {{ .Params.S }}\\t!"\n  c: \'it\'\'s {{ .Params.S }}\'\n'), [P('S', { default: 'v' })], {}, { a: 'pre-v-post', b: 'q v\t!', c: "it's v" }],
    ['quote makes a string, typed parameters keep their type', cm('  a: {{ .Params.N | quote }}\n  b: {{ .Params.N | squote }}\n'), [P('N', { default: '3' })], {}, { a: '3', b: '3' }],
    ['if / else if / else', cm('  a: {{ if eq .Params.N "1" }}one{{ else if gt (int .Params.N) 4 }}many{{ else }}some{{ end }}\n'), [P('N', { default: '5' })], {}, { a: 'many' }],
    ['boolean strings compare as KUDO compared them', cm('  a: {{ if eq .Params.ON "true" }}on{{ else }}off{{ end }}\n'), [P('ON', { default: 'false' })], { ON: true }, { a: 'on' }],
    ['range with $i, $v over a list, else when empty', cm('  a: |\n    {{- range $i, $v := .Params.L }}\n    {{ $i }}={{ $v }}\n    {{- end }}\n  b: {{ range .Params.E }}x{{ else }}empty{{ end }}\n'), [P('L', { type: 'array', default: ['p', 'q'] }), P('E', { type: 'array', default: [] })], {}, { a: '0=p\n1=q\n', b: 'empty' }],
    ['range over a map in key order', cm('  a: {{ range $k, $v := .Params.M }}{{ $k }}:{{ $v }};{{ end }}\n'), [P('M', { type: 'map', default: { z: 1, a: 2 } })], {}, { a: 'a:2;z:1;' }],
    ['with and else', cm('  a: {{ with .Params.S }}got {{ . }}{{ else }}none{{ end }}\n  b: {{ with $x := .Params.T }}{{ $x }}{{ else }}none{{ end }}\n'), [P('S', { default: 's' }), P('T', { default: '' })], {}, { a: 'got s', b: 'none' }],
    ['define, template, include and $', cm('  a: {{ include "greet" . }}\n  b: {{ template "greet" . }}\n{{- define "greet" }}hi {{ .Name }} {{ $.Params.S }}{{ end }}\n'), [P('S', { default: 's' })], {}, { a: 'hi demo s', b: 'hi demo s' }],
    ['variables and assignment', cm('{{- $x := "a" }}{{ $x = printf "%s%s" $x "b" }}\n  a: {{ $x }}\n'), [], {}, { a: 'ab' }],
    ['logic and comparisons', cm('  a: {{ and true "x" }}\n  b: {{ or "" "y" }}\n  c: {{ not false }}\n  d: {{ if and (ne 1 2) (le 2 2) (ge 3 3) (lt 1 2) }}yes{{ end }}\n'), [], {}, { a: 'x', b: 'y', c: true, d: 'yes' }],
    ['len, index and printf', cm('  a: {{ len .Params.L }}\n  b: {{ index .Params.L 1 }}\n  c: {{ index .Params.M "k" }}\n  d: {{ printf "%s-%03d-%v-%q" "x" 7 true "y" }}\n'), [P('L', { type: 'array', default: ['p', 'q'] }), P('M', { type: 'map', default: { k: 'v' } })], {}, { a: 2, b: 'q', c: 'v', d: 'x-007-true-"y"' }],
    ['Sprig strings', cm('  a: {{ "hello world" | title }}\n  b: {{ replace "o" "0" "foo" }}\n  c: {{ contains "ll" "hello" }}\n  d: {{ hasPrefix "he" "hello" }}-{{ hasSuffix "lo" "hello" }}\n  e: {{ repeat 3 "ab" }}\n  f: {{ substr 1 3 "hello" }}\n  g: {{ trunc 3 "hello" }}\n  h: {{ trimAll "$" "$$5$" }}\n  i: {{ trimPrefix "x-" "x-y" }}\n'), [], {}, { a: 'Hello World', b: 'f00', c: true, d: 'true-true', e: 'ababab', f: 'el', g: 'hel', h: '5', i: 'y' }],
    ['Sprig lists and dicts', cm('  a: {{ list "b" "a" "b" | uniq | join "," }}\n  b: {{ splitList "," "x,y" | last }}\n  c: {{ (dict "k" "v" "n" 1) | toJson }}\n  d: {{ get (dict "k" "v") "k" }}\n  e: {{ keys (dict "k" 1) | first }}\n  f: {{ has "a" (list "a") }}\n  g: {{ compact (list "" "z") | join "" }}\n  h: {{ hasKey (dict "k" 1) "k" }}\n  i: {{ merge (dict "a" 1) (dict "a" 2 "b" 3) | toJson }}\n  j: {{ (split "," "p,q")._1 }}\n'), [], {}, { a: 'b,a', b: 'y', c: { k: 'v', n: 1 }, d: 'v', e: 'k', f: true, g: 'z', h: true, i: { a: 1, b: 3 }, j: 'q' }],
    ['Sprig math', cm('  a: {{ add 1 2 3 }}\n  b: {{ sub 10 4 }}\n  c: {{ mul 2 3 }}\n  d: {{ div 7 2 }}\n  e: {{ mod 7 2 }}\n  f: {{ max 1 5 3 }}\n  g: {{ min 4 2 }}\n  h: {{ add1 .Params.N }}\n  i: {{ until 3 | len }}\n  j: {{ float64 "1.5" }}\n  k: {{ atoi "42" }}\n'), [P('N', { default: '3' })], {}, { a: 6, b: 6, c: 6, d: 3, e: 1, f: 5, g: 2, h: 4, i: 3, j: 1.5, k: 42 }],
    ['Sprig encoding and YAML', `${cm('  a: {{ b64enc "hi" }}\n  b: {{ b64dec "aGk=" }}\n  c: {{ sha256sum "x" | trunc 8 }}\n')}  d: |\n{{ toYaml .Params.M | indent 4 }}\n`, [P('M', { type: 'map', default: { k: 'v' } })], {}, { a: 'aGk=', b: 'hi', c: '2d711642', d: 'k: v\n' }],
    ['defaults', cm('  a: {{ .Params.E | default "d" }}\n  b: {{ coalesce "" .Params.E "c" }}\n  c: {{ ternary "y" "n" true }}\n  d: {{ empty .Params.E }}\n  e: {{ required "needed" .Params.S }}\n'), [P('E', { default: '' }), P('S', { default: 's' })], {}, { a: 'd', b: 'c', c: 'y', d: true, e: 's' }],
    ['toYaml | nindent builds structure', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\n  labels: {{- toYaml .Params.L | nindent 4 }}\ndata: {{ toJson .Params.D }}\n', [P('L', { type: 'map', default: { a: 'b' } }), P('D', { type: 'map', default: { k: 'v' } })], {}, undefined],
  ])('%s', async (_name, template, params, values, expected) => {
    const obj = await render(template, params, values);
    if (expected) expect(obj.data).toEqual(expected);
    else expect(obj).toMatchObject({ metadata: { name: 'demo', labels: { a: 'b' } }, data: { k: 'v' } });
  });

  it('prints whole values with their types: integers stay integers, text around them makes strings', async () => {
    const obj = await render('apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: {{ .Name }}\nspec:\n  replicas: {{ .Params.N }}\n  serviceName: {{ .Name }}-{{ .Params.N }}\n  template:\n    spec:\n      containers:\n        - name: c\n          image: "img:{{ .Params.N }}"\n          ports: [{ containerPort: {{ .Params.PORT }} }]\n', [P('N', { default: '3' }), P('PORT', { default: '8080' })]);
    expect(obj).toMatchObject({ spec: { replicas: 3, serviceName: 'demo-3', template: { spec: { containers: [{ image: 'img:3', ports: [{ containerPort: 8080 }] }] } } } });
  });

  it('keeps a multi-line value inside its block scalar (Baton indents its further lines)', async () => {
    const obj = await render(cm('  a: |\n    x={{ .Params.S }}\n  b: y\n'), [P('S', { default: 'v' })], { S: '1\nkind: Secret' });
    expect(obj.data).toEqual({ a: 'x=1\nkind: Secret\n', b: 'y' });
  });

  it('keeps a value that injects YAML structure inside its scalar (quoted by <%= %>)', async () => {
    const obj = await render(cm('  a: {{ .Params.S }}\n'), [P('S', { default: 'x' })], { S: 'x\nkind: Secret' });
    expect(obj).toMatchObject({ kind: 'ConfigMap', data: { a: 'x\nkind: Secret' } });
  });
});

describe('what cannot be translated is a located error', () => {
  it.each([
    ['an unknown function', cm('  a: {{ frobnicate .Name }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_UNKNOWN_FUNCTION'],
    ['a function Baton refuses (random)', cm('  a: {{ randAlphaNum 8 }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_FUNCTION_REFUSED'],
    ['a wrong number of arguments', cm('  a: {{ trimSuffix "-" }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_ARGUMENTS'],
    ['an undeclared parameter', cm('  a: {{ .Params.NOPE }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_UNKNOWN_PARAMETER'],
    ['an unknown KUDO variable', cm('  a: {{ .Nmae }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_UNKNOWN_VARIABLE'],
    ['a .Pipes key no Pipe task declares', cm('  a: {{ .Pipes.ca }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_UNKNOWN_VARIABLE'],
    ['an undefined variable', cm('  a: {{ $nope }}\n'), 'templates/t.yaml:6:9 IMPORT_TEMPLATE_UNDEFINED_VARIABLE'],
    ['a template that is not defined in the file', cm('  a: {{ template "other" . }}\n'), 'templates/t.yaml:6:6 IMPORT_TEMPLATE_UNKNOWN_TEMPLATE'],
    ['a syntax error', cm('  a: {{ if .Name }}\n'), 'templates/t.yaml:6:6 IMPORT_TEMPLATE_SYNTAX'],
    ['a control action that crosses YAML values', cm('  a: x{{ if .Name }}y\n  b: {{ .Name }}{{ end }}z\n'), 'templates/t.yaml:6:7 IMPORT_TEMPLATE_CONTROL_IN_SCALAR'],
  ])('%s', (_name, template, expected) => {
    const result = importKudo(kudoPackage(template));
    expect(errorsOf(result)).toEqual([expected]);
  });
});

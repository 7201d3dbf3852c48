/**
 * The Go text/template lexer and parser: the subset KUDO operators use, positions on every node, and
 * syntax errors with the offset of the offending token.
 */
import { describe, expect, it } from 'vitest';
import { parseTemplate, TemplateSyntaxError } from '../../src/import/gotemplate/parser.js';
import type { Node } from '../../src/import/gotemplate/ast.js';

function kinds(nodes: Node[]): string[] {
  return nodes.map((n) => n.type);
}

describe('parsing Go templates', () => {
  it('applies the trim markers {{- and -}} to the neighbouring text, as Go does', () => {
    const t = parseTemplate('a  \n  {{- .X -}}  \n  b {{ .Y }} c');
    expect(t.root.map((n) => (n.type === 'text' ? n.text : n.type))).toEqual(['a', 'action', 'b ', 'action', ' c']);
  });

  it('keeps the offset of every node', () => {
    const src = 'x: {{ .Params.A | quote }}\n{{ if eq .B "c" }}y{{ end }}';
    const t = parseTemplate(src);
    const action = t.root[1]!;
    expect(action.type === 'action' && action.pos).toBe(3);
    const ifNode = t.root[3]!;
    expect(ifNode.type).toBe('if');
    if (ifNode.type === 'if') {
      expect(ifNode.pos).toBe(src.indexOf('{{ if'));
      const cmd = ifNode.pipe.cmds[0]!;
      expect(cmd.args.map((a) => [a.type, a.pos])).toEqual([
        ['identifier', src.indexOf('eq')],
        ['field', src.indexOf('.B')],
        ['string', src.indexOf('"c"')],
      ]);
    }
  });

  it('reads pipelines, parenthesized pipelines, field chains and literals', () => {
    const t = parseTemplate('{{ (index .Params "M").key | default 3 | printf "%d" }}{{ $x := 0x1F }}{{ $.Name }}{{ true }}{{ nil }}{{ `raw` }}{{ 1.5 }}');
    const a = t.root[0]!;
    if (a.type !== 'action') throw new Error('not an action');
    expect(a.pipe.cmds).toHaveLength(3);
    expect(a.pipe.cmds[0]!.args[0]).toMatchObject({ type: 'chain', idents: ['key'], node: { type: 'pipe' } });
    const decl = t.root[1]!;
    expect(decl.type === 'action' && decl.pipe.decl.map((d) => d.name)).toEqual(['$x']);
    expect(decl.type === 'action' && decl.pipe.cmds[0]!.args[0]).toMatchObject({ type: 'number', value: 31, isInt: true });
    expect(t.root[2]).toMatchObject({ type: 'action', pipe: { cmds: [{ args: [{ type: 'variable', name: '$', idents: ['Name'] }] }] } });
    expect(kinds(t.root)).toEqual(['action', 'action', 'action', 'action', 'action', 'action', 'action']);
  });

  it('nests if / else if / else, range with $i, $v, with, define and template', () => {
    const t = parseTemplate('{{ if .A }}1{{ else if .B }}2{{ else }}3{{ end }}{{ range $i, $v := .L }}{{ $v }}{{ else }}none{{ end }}{{ with .W }}{{ . }}{{ end }}{{ define "d" }}D{{ end }}{{ template "d" . }}{{/* comment */}}');
    expect(kinds(t.root)).toEqual(['if', 'range', 'with', 'template']);
    const i = t.root[0]!;
    expect(i.type === 'if' && i.elseIf).toBe(true);
    expect(i.type === 'if' && i.elseList?.[0]?.type).toBe('if');
    const r = t.root[1]!;
    expect(r.type === 'range' && r.pipe.decl.map((d) => d.name)).toEqual(['$i', '$v']);
    expect(r.type === 'range' && r.elseList?.length).toBe(1);
    expect([...t.defines.keys()]).toEqual(['d']);
  });

  it.each([
    ['an unclosed action', 'a: {{ .X', 3, /unclosed action/],
    ['if without end', 'x\n{{ if .A }}y', 2, /without \{\{end\}\}/],
    ['an end without a block', '{{ end }}', 0, /unexpected \{\{end\}\}/],
    ['an unterminated string', 'a: {{ "x }}', 6, /unterminated quoted string/],
    ['an unexpected character', 'a: {{ .X ; }}', 9, /unexpected character/],
    ['an unclosed parenthesis', 'a: {{ (len .X }}', 6, /unclosed left paren/],
    ['a missing template name', '{{ template .X }}', 12, /quoted template name/],
    ['a value in else', '{{ if .A }}{{ else .B }}{{ end }}', 19, /after else/],
  ])('reports %s at its offset', (_name, src, offset, message) => {
    let err: unknown;
    try {
      parseTemplate(src);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateSyntaxError);
    expect((err as TemplateSyntaxError).offset).toBe(offset);
    expect((err as Error).message).toMatch(message);
  });
});

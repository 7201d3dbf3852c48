/**
 * Translates a parsed Go text/template into an EJS template for Baton. Output actions become `<%= %>`
 * tags that print whole YAML scalars (built inside the tag when Go inserted text into a larger scalar),
 * or raw `<%- %>` text where Go's output is YAML or text by construction (toYaml/indent, block scalars,
 * whole lines). Control structures become scriptlets; `define`d templates become local functions.
 * Everything that cannot be translated is a located finding; the translation never drops text silently.
 */
import type { Arg, Command, Node, ParsedTemplate, Pipeline } from './ast.js';
import { FUNCTIONS, RAW_FUNCTIONS, REFUSED_FUNCTIONS, truthJs, type Val, type VType } from './functions.js';
import { shimPreamble } from './shims.js';
import { CONTROL, OUTPUT, outputExtents, type Extent } from './yaml-context.js';
import { locate, type FindingLog } from '../report.js';

/** How the root data of the source system (`.Name`, `.Params.X`) maps to Baton's template variables. */
export interface RootModel {
  /** A field of the root (`.Name`); undefined when it does not exist. */
  field(name: string): Val | undefined;
  /** A parameter (`.Params.X`); undefined when it is not declared. */
  param(name: string): Val | undefined;
  /** The root as one JavaScript object, for `.`/`$` passed as a value (to a `template`, `toYaml`). */
  rootObject(): string;
  /** Findings for fields that exist in the source system but have no Baton counterpart (`.Pipes`). */
  untranslatable(name: string): string | undefined;
}

export interface TranslateOptions {
  /** The template's path for findings, relative to the package. */
  file: string;
  source: string;
  parsed: ParsedTemplate;
  model: RootModel;
  /** Helpers Baton's sandbox provides with Sprig semantics; other functions get a local definition. */
  helpers: ReadonlySet<string>;
  log: FindingLog;
  /** First line of the output (an EJS comment naming the source). */
  header: string;
}

type Item =
  | { k: 'text'; text: string; pos: number }
  | { k: 'out'; pos: number; val: Val; raw: boolean; scalar: Val }
  | { k: 'ctrl'; pos: number; code: string; delta: -1 | 0 | 1; mid: boolean };

interface Scope {
  dot: Val;
  dollar: Val;
  vars: Map<string, Val>[];
}

const ROOT: Val = { js: '$root', t: 'map', root: true };
const UNDEFINED: Val = { js: 'undefined', t: 'any' };

export function translateTemplate(opts: TranslateOptions): string {
  return new Translator(opts).run();
}

class Translator {
  private readonly uses = new Set<string>();
  private needRoot = false;
  private tmp = 0;
  private readonly defineNames = new Map<string, string>();
  private rawInBlock = 0;
  private blockText = 0;

  constructor(private readonly o: TranslateOptions) {
    let n = 0;
    for (const name of o.parsed.defines.keys()) this.defineNames.set(name, `__tpl${n++}_${name.replace(/[^A-Za-z0-9_$]/g, '_')}`);
  }

  run(): string {
    const defines: string[] = [];
    for (const [name, def] of this.o.parsed.defines) {
      const dot: Val = { js: '__dot', t: 'any' };
      const items = this.flatten(def.list, { dot, dollar: dot, vars: [new Map<string, Val>()] });
      defines.push(`function ${this.defineNames.get(name)!}(__dot) { let __s = ''; ${this.builder(items)} return __s; }`);
    }
    const body = this.emit(this.flatten(this.o.parsed.root, { dot: ROOT, dollar: ROOT, vars: [new Map<string, Val>()] }));
    if (this.blockText > 0) {
      this.o.log.mapped('IMPORT_TEMPLATE_BLOCK_TEXT', { file: this.o.file, line: 0, column: 0 }, `${this.blockText} value(s) inside block scalars or comments are inserted as text, as Go inserts them (Baton indents further lines of a multi-line value to the block, so a value cannot end it)`);
    }
    if (this.rawInBlock > 0) {
      this.o.log.mapped('IMPORT_TEMPLATE_RAW', { file: this.o.file, line: 0, column: 0 }, `${this.rawInBlock} value(s) outside any YAML value are printed raw (<%- %>), as Go inserts text; baton validate warns about them (TEMPLATE_RAW_OUTPUT)`);
    }
    const pre = [this.o.header, ...shimPreamble(this.uses, this.o.helpers).map((l) => `<% ${l} -%>`)];
    if (this.needRoot) pre.push(`<% const $root = ${this.o.model.rootObject()}; -%>`);
    for (const d of defines) pre.push(`<% ${d} -%>`);
    return `${pre.join('\n')}\n${body}`;
  }

  private at(pos: number) {
    return locate(this.o.file, this.o.source, pos);
  }
  private error(pos: number, code: string, message: string): void {
    this.o.log.error(code, this.at(pos), message);
  }

  // ---------------------------------------------------------------- expressions

  private use(v: Val): string {
    if (v.root || v.params) this.needRoot = true;
    return v.js;
  }

  private lookup(scope: Scope, name: string, pos: number): Val {
    if (name === '$') return scope.dollar;
    for (let i = scope.vars.length - 1; i >= 0; i--) {
      const v = scope.vars[i]!.get(name);
      if (v) return v;
    }
    this.error(pos, 'IMPORT_TEMPLATE_UNDEFINED_VARIABLE', `undefined variable ${name}`);
    return UNDEFINED;
  }

  private fieldOf(base: Val, idents: string[], pos: number): Val {
    let v = base;
    for (const id of idents) {
      if (v.root) {
        const why = this.o.model.untranslatable(id);
        if (why !== undefined) {
          this.error(pos, 'IMPORT_TEMPLATE_UNTRANSLATABLE', why);
          return UNDEFINED;
        }
        const f = this.o.model.field(id);
        if (!f) {
          this.error(pos, 'IMPORT_TEMPLATE_UNKNOWN_VARIABLE', `unknown variable .${id}`);
          return UNDEFINED;
        }
        v = f;
      } else if (v.members) {
        const m = v.members(id);
        if (typeof m === 'string') {
          this.error(pos, 'IMPORT_TEMPLATE_UNKNOWN_VARIABLE', m);
          return UNDEFINED;
        }
        v = m;
      } else if (v.params) {
        const p = this.o.model.param(id);
        if (!p) {
          this.error(pos, 'IMPORT_TEMPLATE_UNKNOWN_PARAMETER', `parameter ${id} is not declared in params.yaml`);
          return UNDEFINED;
        }
        v = p;
      } else {
        v = { js: `${this.use(v)}${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(id) ? `.${id}` : `[${JSON.stringify(id)}]`}`, t: 'any' };
      }
    }
    return v;
  }

  private evalPipe(p: Pipeline, scope: Scope): Val {
    let v: Val | undefined;
    for (const cmd of p.cmds) v = this.evalCmd(cmd, scope, v);
    return v ?? UNDEFINED;
  }

  private evalCmd(cmd: Command, scope: Scope, piped: Val | undefined): Val {
    const [head, ...rest] = cmd.args;
    if (!head) return UNDEFINED;
    if (head.type === 'identifier') return this.callFn(head.name, head.pos, rest, scope, piped);
    if (rest.length > 0 || piped) {
      this.error(cmd.pos, 'IMPORT_TEMPLATE_SYNTAX', `can't give an argument to a non-function ${describe(head)}`);
      return UNDEFINED;
    }
    return this.evalArg(head, scope);
  }

  private evalArg(a: Arg, scope: Scope): Val {
    switch (a.type) {
      case 'field':
        return this.fieldOf(scope.dot, a.idents, a.pos);
      case 'variable':
        return this.fieldOf(this.lookup(scope, a.name, a.pos), a.idents, a.pos);
      case 'dot':
        return scope.dot;
      case 'identifier':
        return this.callFn(a.name, a.pos, [], scope, undefined);
      case 'string':
        return { js: JSON.stringify(a.value), t: 'string', literal: a.value };
      case 'number':
        return { js: String(a.value), t: a.isInt ? 'int' : 'float' };
      case 'bool':
        return { js: String(a.value), t: 'bool' };
      case 'nil':
        return { js: 'null', t: 'nil' };
      case 'chain':
        return this.fieldOf(this.evalArg(a.node, scope), a.idents, a.pos);
      case 'pipe': {
        const v = this.evalPipe(a.pipe, scope);
        return { ...v, js: `(${v.js})` };
      }
    }
  }

  private callFn(name: string, pos: number, argNodes: Arg[], scope: Scope, piped: Val | undefined): Val {
    if (name === 'include') return this.include(pos, argNodes, scope, piped);
    const refused = REFUSED_FUNCTIONS[name];
    if (refused !== undefined) {
      this.error(pos, 'IMPORT_TEMPLATE_FUNCTION_REFUSED', `function ${name} ${refused}`);
      return UNDEFINED;
    }
    const spec = FUNCTIONS[name];
    if (!spec) {
      this.error(pos, 'IMPORT_TEMPLATE_UNKNOWN_FUNCTION', `function ${JSON.stringify(name)} is not defined (not a Go template built-in or a supported Sprig function)`);
      return UNDEFINED;
    }
    const args = argNodes.map((a) => this.evalArg(a, scope));
    if (piped) args.push(piped);
    if (args.length < spec.min || (spec.max !== undefined && args.length > spec.max)) {
      const want = spec.max === undefined ? `at least ${spec.min}` : spec.min === spec.max ? `${spec.min}` : `${spec.min} to ${spec.max}`;
      this.error(pos, 'IMPORT_TEMPLATE_ARGUMENTS', `wrong number of arguments for ${name}: want ${want}, got ${args.length}`);
      return UNDEFINED;
    }
    for (const u of spec.uses ?? []) this.uses.add(u);
    const js = args.map((a) => this.use(a));
    const t: VType = name === 'default' && args[0]!.t === args[1]!.t ? args[0]!.t : spec.result;
    return { js: spec.emit ? spec.emit(args, js) : `${name}(${js.join(', ')})`, t };
  }

  private include(pos: number, argNodes: Arg[], scope: Scope, piped: Val | undefined): Val {
    const args = argNodes.map((a) => this.evalArg(a, scope));
    if (piped) args.push(piped);
    const name = args[0]?.literal;
    if (args.length < 1 || args.length > 2 || name === undefined) {
      this.error(pos, 'IMPORT_TEMPLATE_ARGUMENTS', 'include takes a quoted template name and one argument');
      return UNDEFINED;
    }
    return this.callDefine(name, args[1], pos);
  }

  private callDefine(name: string, arg: Val | undefined, pos: number): Val {
    const fn = this.defineNames.get(name);
    if (!fn) {
      this.error(pos, 'IMPORT_TEMPLATE_UNKNOWN_TEMPLATE', `no template ${JSON.stringify(name)} is defined in this file (KUDO parses each template file on its own)`);
      return UNDEFINED;
    }
    return { js: `${fn}(${arg ? this.use(arg) : 'null'})`, t: 'string' };
  }

  /** The text Go prints for a value. */
  private textOf(v: Val): string {
    if (v.t === 'string') return v.param?.optional ? `(${v.js} ?? '')` : v.js;
    if (v.t === 'int' || v.t === 'float' || v.t === 'bool') return v.param?.optional ? `String(${v.js} ?? '')` : `String(${v.js})`;
    this.uses.add('goPrint');
    return `goPrint(${this.use(v)})`;
  }

  /** The value a whole YAML scalar gets from an action's text (typed parameters keep their type). */
  private scalarOf(v: Val): string {
    if (v.t === 'nil') return 'null';
    return this.use(v);
  }

  // ---------------------------------------------------------------- flattening

  private flatten(nodes: Node[], scope: Scope): Item[] {
    const items: Item[] = [];
    for (const n of nodes) this.flattenNode(n, scope, items);
    return items;
  }

  private declare(scope: Scope, name: string, v: Val): string {
    const top = scope.vars[scope.vars.length - 1]!;
    const redeclared = top.has(name);
    top.set(name, { js: name, t: v.t });
    return redeclared ? `${name} = ${this.use(v)};` : `let ${name} = ${this.use(v)};`;
  }

  private flattenNode(n: Node, scope: Scope, items: Item[]): void {
    switch (n.type) {
      case 'text':
        items.push({ k: 'text', text: n.text, pos: n.pos });
        return;
      case 'action': {
        const v = this.evalPipe(n.pipe, scope);
        if (n.pipe.decl.length > 0) {
          const name = n.pipe.decl[0]!.name;
          const code = n.pipe.isAssign ? `${this.lookup(scope, name, n.pos).js} = ${this.use(v)};` : this.declare(scope, name, v);
          items.push({ k: 'ctrl', pos: n.pos, code, delta: 0, mid: false });
          return;
        }
        const last = n.pipe.cmds[n.pipe.cmds.length - 1]!;
        const fn = last.args[0]?.type === 'identifier' ? last.args[0].name : undefined;
        const raw = fn !== undefined && RAW_FUNCTIONS.has(fn);
        items.push({ k: 'out', pos: n.pos, val: v, raw, scalar: this.quotedScalar(n.pipe, scope) ?? v });
        return;
      }
      case 'if':
        this.flattenIf(n.pipe, n.list, n.elseList, n.elseIf, n.pos, scope, items, false);
        return;
      case 'range':
        this.flattenRange(n, scope, items);
        return;
      case 'with':
        this.flattenWith(n, scope, items);
        return;
      case 'template': {
        const arg = n.pipe ? this.evalPipe(n.pipe, scope) : undefined;
        const val = this.callDefine(n.name, arg, n.pos);
        items.push({ k: 'out', pos: n.pos, val, raw: false, scalar: val });
        return;
      }
      case 'break':
      case 'continue':
        items.push({ k: 'ctrl', pos: n.pos, code: `${n.type};`, delta: 0, mid: false });
        return;
    }
  }

  /** For `x | quote` as a whole scalar, the scalar is the string x (the quotes were YAML syntax). */
  private quotedScalar(p: Pipeline, scope: Scope): Val | undefined {
    const last = p.cmds[p.cmds.length - 1]!;
    const head = last.args[0];
    if (head?.type !== 'identifier' || (head.name !== 'quote' && head.name !== 'squote')) return undefined;
    let inner: Val | undefined;
    if (p.cmds.length > 1 && last.args.length === 1) inner = this.evalPipe({ ...p, cmds: p.cmds.slice(0, -1) }, scope);
    else if (p.cmds.length === 1 && last.args.length === 2) inner = this.evalArg(last.args[1]!, scope);
    return inner ? { js: this.textOf(inner), t: 'string' } : undefined;
  }

  private child(scope: Scope, dot?: Val): Scope {
    return { dot: dot ?? scope.dot, dollar: scope.dollar, vars: [...scope.vars, new Map<string, Val>()] };
  }

  private flattenIf(pipe: Pipeline, list: Node[], elseList: Node[] | undefined, elseIf: boolean, pos: number, scope: Scope, items: Item[], chained: boolean): void {
    const value = this.evalPipe(pipe, scope);
    if (value.param && value.t === 'bool') {
      this.o.log.mapped('IMPORT_TEMPLATE_BOOLEAN_CONDITION', this.at(pos), `the condition tests boolean parameter ${value.param.name}; KUDO tested its text, which was true unless empty (even "false")`);
    }
    const cond = truthJs(value);
    if (cond.startsWith('goTruth(')) this.uses.add('goTruth');
    items.push({ k: 'ctrl', pos, code: chained ? `} else if (${cond}) {` : `if (${cond}) {`, delta: chained ? 0 : 1, mid: chained });
    for (const n of list) this.flattenNode(n, this.child(scope), items);
    if (elseList) {
      const nested = elseList[0];
      if (elseIf && nested?.type === 'if') {
        this.flattenIf(nested.pipe, nested.list, nested.elseList, nested.elseIf, nested.pos, scope, items, true);
        if (!chained) items.push({ k: 'ctrl', pos, code: '}', delta: -1, mid: false });
        return;
      }
      items.push({ k: 'ctrl', pos, code: '} else {', delta: 0, mid: true });
      for (const n of elseList) this.flattenNode(n, this.child(scope), items);
    }
    if (!chained) items.push({ k: 'ctrl', pos, code: '}', delta: -1, mid: false });
  }

  private flattenRange(n: Extract<Node, { type: 'range' }>, scope: Scope, items: Item[]): void {
    const v = this.evalPipe(n.pipe, scope);
    this.uses.add('goRange');
    const id = this.tmp++;
    const inner = this.child(scope);
    const top = inner.vars[inner.vars.length - 1]!;
    let key = `__k${id}`;
    let elem = `__v${id}`;
    if (n.pipe.decl.length === 2) {
      key = n.pipe.decl[0]!.name;
      elem = n.pipe.decl[1]!.name;
      top.set(key, { js: key, t: 'any' });
      top.set(elem, { js: elem, t: 'any' });
    } else if (n.pipe.decl.length === 1) {
      elem = n.pipe.decl[0]!.name;
      top.set(elem, { js: elem, t: 'any' });
    }
    inner.dot = { js: elem, t: 'any' };
    const list = `__r${id}`;
    if (n.elseList) {
      items.push({ k: 'ctrl', pos: n.pos, code: `{ const ${list} = goRange(${this.use(v)}); for (const [${key}, ${elem}] of ${list}) {`, delta: 1, mid: false });
      for (const c of n.list) this.flattenNode(c, inner, items);
      items.push({ k: 'ctrl', pos: n.pos, code: `} if (${list}.length === 0) {`, delta: 0, mid: true });
      for (const c of n.elseList) this.flattenNode(c, this.child(scope), items);
      items.push({ k: 'ctrl', pos: n.pos, code: '} }', delta: -1, mid: false });
      return;
    }
    items.push({ k: 'ctrl', pos: n.pos, code: `for (const [${key}, ${elem}] of goRange(${this.use(v)})) {`, delta: 1, mid: false });
    for (const c of n.list) this.flattenNode(c, inner, items);
    items.push({ k: 'ctrl', pos: n.pos, code: '}', delta: -1, mid: false });
  }

  private flattenWith(n: Extract<Node, { type: 'with' }>, scope: Scope, items: Item[]): void {
    const v = this.evalPipe(n.pipe, scope);
    this.uses.add('goTruth');
    const name = n.pipe.decl[0]?.name ?? `__w${this.tmp++}`;
    const inner = this.child(scope, { js: name, t: v.t });
    inner.vars[inner.vars.length - 1]!.set(name, { js: name, t: v.t });
    items.push({ k: 'ctrl', pos: n.pos, code: `{ const ${name} = ${this.use(v)}; if (goTruth(${name})) {`, delta: 1, mid: false });
    for (const c of n.list) this.flattenNode(c, inner, items);
    if (n.elseList) {
      items.push({ k: 'ctrl', pos: n.pos, code: '} else {', delta: 0, mid: true });
      for (const c of n.elseList) this.flattenNode(c, this.child(scope), items);
    }
    items.push({ k: 'ctrl', pos: n.pos, code: '} }', delta: -1, mid: false });
  }

  // ---------------------------------------------------------------- emitting

  /** JavaScript statements appending the items' text to `__s` (defines, and scalars holding control flow). */
  private builder(items: Item[]): string {
    return items
      .map((it) => {
        if (it.k === 'text') return `__s += ${JSON.stringify(it.text)};`;
        if (it.k === 'out') return `__s += ${this.textOf(it.val)};`;
        return it.code;
      })
      .join(' ');
  }

  /** The EJS body: text kept, control as scriptlets, each output by its YAML context. */
  private emit(items: Item[]): string {
    const starts: number[] = [];
    let skel = '';
    for (const it of items) {
      starts.push(skel.length);
      skel += it.k === 'text' ? it.text : it.k === 'out' ? OUTPUT : CONTROL;
    }
    this.indexControls(items, starts);
    const pieces = (from: number, to: number): Item[] => {
      const out: Item[] = [];
      items.forEach((it, i) => {
        const s = starts[i]!;
        const e = s + (it.k === 'text' ? it.text.length : 1);
        if (e <= from || s >= to) return;
        if (it.k !== 'text') out.push(it);
        else out.push({ ...it, text: it.text.slice(Math.max(from, s) - s, Math.min(to, e) - s) });
      });
      return out;
    };
    let out = '';
    let cursor = 0;
    for (const e of this.balanced(outputExtents(skel), skel)) {
      out += this.plain(pieces(cursor, e.start));
      out += this.extent(e, pieces(e.start, e.end));
      cursor = e.end;
    }
    out += this.plain(pieces(cursor, skel.length));
    return out;
  }

  /** Extents whose control flow is complete: adjacent control markers join the extent when that balances it. */
  private balanced(extents: Extent[], skel: string): Extent[] {
    const depthOk = (s: number, e: number): boolean => {
      let depth = 0;
      for (let i = s; i < e; i++) {
        if (skel[i] !== CONTROL) continue;
        const it = this.ctrlAt(skel, i);
        if (!it) continue;
        if (it.mid && depth === 0) return false;
        depth += it.delta;
        if (depth < 0) return false;
      }
      return depth === 0;
    };
    const isLoop = (i: number): boolean => this.ctrlAt(skel, i)?.code.startsWith('for (') === true || this.ctrlAt(skel, i)?.code.startsWith('{ const __r') === true;
    return extents.map((x) => {
      let s = x.start;
      let e = x.end;
      while (s > 0 && skel[s - 1] === CONTROL) s--;
      while (e < skel.length && skel[e] === CONTROL) e++;
      // The widest balanced extent with its neighbouring control actions: needed when the value is
      // inside a loop on the same line (each iteration adds to the one value, as Go's text does).
      let wide: Extent | undefined;
      for (let a = s; a <= x.start && !wide; a++) for (let b = e; b >= x.end && !wide; b--) if (depthOk(a, b)) wide = { ...x, start: a, end: b };
      const loops = wide !== undefined && [...skel.slice(wide.start, wide.end)].some((c, i) => c === CONTROL && isLoop(wide.start + i));
      if (depthOk(x.start, x.end) && !loops) return x;
      return wide ?? { ...x, context: 'line' as const, unbalanced: true };
    });
  }

  private ctrlIndex?: Map<number, Extract<Item, { k: 'ctrl' }>>;
  private ctrlAt(_skel: string, offset: number): Extract<Item, { k: 'ctrl' }> | undefined {
    return this.ctrlIndex?.get(offset);
  }

  private plain(pieces: Item[]): string {
    return pieces
      .map((p) => {
        if (p.k === 'text') return escapeEjs(p.text);
        if (p.k === 'ctrl') return `<% ${p.code} %>`;
        this.rawInBlock++;
        return `<%- ${p.raw ? this.use(p.val) : this.textOf(p.val)} %>`;
      })
      .join('');
  }

  private extent(e: Extent & { unbalanced?: boolean }, pieces: Item[]): string {
    if (e.unbalanced) {
      const first = pieces.find((p) => p.k === 'ctrl');
      this.error(first?.pos ?? 0, 'IMPORT_TEMPLATE_CONTROL_IN_SCALAR', 'a control action starts in one YAML value and ends in another; rewrite it so if/range/with wrap whole values or lines');
    }
    const raw = e.context === 'block' || e.context === 'comment' || e.context === 'line' || pieces.some((p) => p.k === 'out' && p.raw);
    if (raw) {
      if (e.context === 'line' && !pieces.some((p) => p.k === 'out' && p.raw)) {
        const first = pieces.find((p) => p.k === 'out');
        if (first) this.o.log.mapped('IMPORT_TEMPLATE_RAW_LINE', this.at(first.pos), 'a value that stands alone on its line is printed as raw text (<%- %>): as in Go, its text becomes YAML structure');
        return pieces.map((p) => (p.k === 'text' ? escapeEjs(p.text) : p.k === 'ctrl' ? `<% ${p.code} %>` : `<%- ${this.textOf(p.val)} %>`)).join('');
      }
      // Block scalar and comment text: <%= %> inserts the text as Go does, and Baton's contextual escaping
      // keeps a multi-line value inside its block (or comment).
      if (e.context === 'block' || e.context === 'comment') {
        this.blockText++;
        return pieces.map((p) => (p.k === 'text' ? escapeEjs(p.text) : p.k === 'ctrl' ? `<% ${p.code} %>` : p.raw ? `<%- ${this.use(p.val)} %>` : `<%= ${this.textOf(p.val)} %>`)).join('');
      }
      return pieces.map((p) => (p.k === 'text' ? escapeEjs(p.text) : p.k === 'ctrl' ? `<% ${p.code} %>` : `<%- ${p.raw ? this.use(p.val) : this.textOf(p.val)} %>`)).join('');
    }
    const parts = unquote(pieces, e.context);
    const outs = parts.filter((p) => p.k === 'out');
    const hasCtrl = parts.some((p) => p.k === 'ctrl');
    const texts = parts.filter((p): p is Extract<Item, { k: 'text' }> => p.k === 'text' && p.text !== '');
    if (!hasCtrl && outs.length === 1 && texts.length === 0) {
      const only = outs[0] as Extract<Item, { k: 'out' }>;
      return `<%= ${e.context === 'plain' ? this.scalarOf(only.scalar) : this.textOf(only.val)} %>`;
    }
    let expr: string;
    if (hasCtrl) expr = `(() => { let __s = ''; ${this.builder(parts)} return __s; })()`;
    else expr = parts.filter((p) => p.k !== 'text' || p.text !== '').map((p) => (p.k === 'text' ? JSON.stringify(p.text) : p.k === 'out' ? this.textOf(p.val) : "''")).join(' + ');
    const maybeNumber = texts.some((t) => /[0-9]/.test(t.text)) || outs.some((p) => p.k === 'out' && p.val.t !== 'string');
    if (e.context === 'plain' && maybeNumber && texts.every((t) => /^[-+0-9.eE]*$/.test(t.text))) {
      this.uses.add('yamlPlain');
      expr = `yamlPlain(${expr})`;
    }
    return `<%= ${expr} %>`;
  }

  /** Builds the control index before emitting (needs the flattened items). */
  private indexControls(items: Item[], starts: number[]): void {
    this.ctrlIndex = new Map();
    items.forEach((it, i) => {
      if (it.k === 'ctrl') this.ctrlIndex!.set(starts[i]!, it);
    });
  }
}

function describe(a: Arg): string {
  switch (a.type) {
    case 'field':
      return `.${a.idents.join('.')}`;
    case 'variable':
      return a.name;
    case 'string':
      return JSON.stringify(a.value);
    case 'number':
      return a.text;
    case 'bool':
    case 'chain':
    case 'dot':
    case 'identifier':
    case 'nil':
    case 'pipe':
      return a.type;
  }
}

function escapeEjs(text: string): string {
  return text.replace(/<%/g, '<%%').replace(/%>/g, '%%>');
}

/** The parts of a quoted scalar without its quotes, literal text unescaped as YAML reads it. */
function unquote(pieces: Item[], context: Extent['context']): Item[] {
  if (context !== 'double' && context !== 'single') return pieces;
  const parts = pieces.map((p) => ({ ...p }));
  const first = parts.find((p) => p.k === 'text');
  const last = [...parts].reverse().find((p) => p.k === 'text');
  if (first && first.k === 'text') first.text = first.text.replace(/^["']/, '');
  if (last && last.k === 'text') last.text = last.text.replace(/["']$/, '');
  return parts.map((p) => (p.k === 'text' ? { ...p, text: context === 'double' ? unescapeDouble(p.text) : p.text.replace(/''/g, "'") } : p));
}

const YAML_ESCAPES: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029' };

function unescapeDouble(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (m, e: string) => {
    if (YAML_ESCAPES[e] !== undefined) return YAML_ESCAPES[e];
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    return m;
  });
}

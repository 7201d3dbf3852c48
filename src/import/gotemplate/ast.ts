/**
 * The syntax tree of the Go text/template subset Baton imports. Every node keeps `pos`, the character
 * offset of its source in the template file, so translation problems can name file, line and column.
 */
export type Node = TextNode | ActionNode | IfNode | RangeNode | WithNode | TemplateNode | BreakNode;

export interface TextNode {
  type: 'text';
  pos: number;
  text: string;
}

/** `{{ pipeline }}`: prints the pipeline's value unless the pipeline declares or assigns a variable. */
export interface ActionNode {
  type: 'action';
  pos: number;
  pipe: Pipeline;
}

/** `if` / `else if` chains are nested: an `else if` is an IfNode alone in `elseList`. */
export interface IfNode {
  type: 'if';
  pos: number;
  pipe: Pipeline;
  list: Node[];
  elseList: Node[] | undefined;
  /** True when `elseList` came from `{{ else if }}` (so the chain can be printed flat). */
  elseIf: boolean;
}

export interface RangeNode {
  type: 'range';
  pos: number;
  pipe: Pipeline;
  list: Node[];
  elseList: Node[] | undefined;
}

export interface WithNode {
  type: 'with';
  pos: number;
  pipe: Pipeline;
  list: Node[];
  elseList: Node[] | undefined;
}

/** `{{ template "name" pipeline }}`. */
export interface TemplateNode {
  type: 'template';
  pos: number;
  name: string;
  pipe: Pipeline | undefined;
}

/** `{{ break }}` / `{{ continue }}` inside a range. */
export interface BreakNode {
  type: 'break' | 'continue';
  pos: number;
}

export interface Pipeline {
  pos: number;
  /** Variables declared (`:=`) or assigned (`=`) by this pipeline. */
  decl: VariableNode[];
  isAssign: boolean;
  cmds: Command[];
}

export interface Command {
  pos: number;
  args: Arg[];
}

export type Arg = FieldNode | VariableNode | DotNode | IdentifierNode | StringNode | NumberNode | BoolNode | NilNode | ChainNode | PipeArg;

/** `.A.B` on the current dot. */
export interface FieldNode {
  type: 'field';
  pos: number;
  idents: string[];
}

/** `$`, `$x`, `$x.A.B`. `name` includes the `$`. */
export interface VariableNode {
  type: 'variable';
  pos: number;
  name: string;
  idents: string[];
}

export interface DotNode {
  type: 'dot';
  pos: number;
}

/** A function name. */
export interface IdentifierNode {
  type: 'identifier';
  pos: number;
  name: string;
}

export interface StringNode {
  type: 'string';
  pos: number;
  value: string;
}

export interface NumberNode {
  type: 'number';
  pos: number;
  text: string;
  value: number;
  isInt: boolean;
}

export interface BoolNode {
  type: 'bool';
  pos: number;
  value: boolean;
}

export interface NilNode {
  type: 'nil';
  pos: number;
}

/** `(pipeline).A.B`. */
export interface ChainNode {
  type: 'chain';
  pos: number;
  node: Arg;
  idents: string[];
}

/** A parenthesized pipeline used as an argument. */
export interface PipeArg {
  type: 'pipe';
  pos: number;
  pipe: Pipeline;
}

/** A parsed file: its top-level nodes and its `define`d templates. */
export interface ParsedTemplate {
  root: Node[];
  defines: Map<string, { pos: number; list: Node[] }>;
}

/**
 * The template sandbox: helpers, YAML-safe output, isolation (no process, no files, no code generation,
 * no host objects), determinism, and limits (time, memory) that the host survives.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileTemplate, TEMPLATE_LOCALS } from '../../src/render/sandbox/compile.js';
import type { RenderOutput } from '../../src/render/sandbox/renderer.js';
import { testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

const base = {
  instance: { name: 'site', namespace: 'apps' },
  framework: { name: 'web', version: '1.0.0', appVersion: '2.4' },
  params: { NAME: 'x\nkind: Secret', COUNT: 3, ON: true, LIST: ['a', 'b'], MAP: { k: 'v', 'odd key': 'yes' }, EMPTY: '' },
  labels: { 'app.kubernetes.io/managed-by': 'baton' },
  selectorLabels: { 'app.kubernetes.io/name': 'web' },
};

/** Renders template text (and optional partials) and returns the sandbox output for it. */
async function render(text: string, partials: Record<string, string> = {}): Promise<RenderOutput> {
  const all = { 'main.yaml.ejs': text, ...partials };
  const compiled = Object.entries(all).map(([name, t]) => {
    const c = compileTemplate({ name, file: `t/${name}`, text: t, id: `${name}:${t}` });
    if (!c.ok) throw new Error(c.problem.message);
    return c.compiled;
  });
  const [out] = await renderer.run({
    base,
    renders: [{ key: compiled[0]!.key, file: 't/main.yaml.ejs', plan: { name: 'deploy', phase: 'p', step: 's', args: { target: 'x' } } }],
    partials: Object.fromEntries(compiled.map((c) => [c.name, c.key])),
    defines: compiled,
  });
  return out!;
}

async function value(text: string, partials: Record<string, string> = {}): Promise<unknown> {
  const out = await render(text, partials);
  if (!out.ok) throw new Error(`${out.kind}: ${out.message}`);
  return out.docs[0]?.value;
}

describe('template output escaping', () => {
  it.each([
    ['a string with a newline and a key stays one string', 'v: <%= params.NAME %>', { v: 'x\nkind: Secret' }],
    ['a number stays a number', 'v: <%= params.COUNT %>', { v: 3 }],
    ['a boolean stays a boolean', 'v: <%= params.ON %>', { v: true }],
    ['a list becomes a flow list', 'v: <%= params.LIST %>', { v: ['a', 'b'] }],
    ['an object becomes a flow mapping', 'v: <%= params.MAP %>', { v: { k: 'v', 'odd key': 'yes' } }],
    ['null stays null', 'v: <%= null %>', { v: null }],
    ['a string that looks like YAML syntax stays a string', 'v: <%= "- a\\n- b: [c]" %>', { v: '- a\n- b: [c]' }],
    ['a string that looks like a boolean stays a string', 'v: <%= "yes" %>', { v: 'yes' }],
  ])('<%%= with %s', async (_name, text, expected) => {
    expect(await value(text)).toEqual(expected);
  });

  const PRINTED_UNDEFINED = 'the expression printed undefined (a misspelt property?); print null explicitly or use fallback()';
  it.each([
    ['undefined itself', 'a: 1\nv: <%= undefined %>'],
    ['a misspelt instance property', 'a: 1\nv: <%= instance.nme %>'],
    ['a misspelt plan property', 'a: 1\nv: <%= plan.phse %>'],
    ['a plan argument that was not given', 'a: 1\nv: <%= plan.args.missing %>'],
  ])('GIVEN <%%= printing %s THEN rendering fails naming the file and line', async (_name, text) => {
    expect(await render(text)).toEqual({ ok: false, kind: 'undefined', file: 't/main.yaml.ejs', line: 2, column: 4, message: PRINTED_UNDEFINED });
  });

  it('GIVEN a partial printing undefined THEN the failure names the partial and its line', async () => {
    const out = await render('v:<%- nindent(2, include("_part")) %>', { '_part.yaml.ejs': 'name: <%= instance.name %>\nextra: <%= locals.extra %>' });
    expect(out).toEqual({ ok: false, kind: 'undefined', file: 't/_part.yaml.ejs', line: 2, column: 8, message: PRINTED_UNDEFINED });
  });

  it.each([
    ['a fallback', 'v: <%= fallback(plan.args.missing, "d") %>', { v: 'd' }],
    ['an || default', 'v: <%= plan.args.missing || "d" %>', { v: 'd' }],
    ['a raw tag (nothing is printed)', 'v: x<%- undefined %>', { v: 'x' }],
    ['toYaml of undefined', 'v: <%- toYaml(undefined) %>', { v: null }],
    ['toYaml of an object with an undefined member (the member is left out)', 'v:<%- nindent(2, toYaml({ a: 1, b: undefined })) %>', { v: { a: 1 } }],
    ['toYaml of a list with an undefined item (null)', 'v:<%- nindent(2, toYaml([1, undefined])) %>', { v: [1, null] }],
    ['toJson of undefined', 'v: <%- toJson(undefined) %>', { v: null }],
    ['quote of undefined', 'v: <%- quote(plan.args.missing) %>', { v: '' }],
  ])('GIVEN undefined handled by %s THEN it renders as before', async (_name, text, expected) => {
    expect(await value(text)).toEqual(expected);
  });

  it('GIVEN required() of undefined THEN it throws its own message, not the printed-undefined one', async () => {
    expect(await render('a: 1\nv: <%= required("missing must be set", plan.args.missing) %>')).toMatchObject({ ok: false, kind: 'runtime', line: 2, message: 'missing must be set' });
  });
});

describe('helpers', () => {
  it.each([
    ['toYaml of a nested value is block YAML', 'v:<%- nindent(2, toYaml({ a: [1, { b: "on" }], "c d": {} })) %>', { v: { a: [1, { b: 'on' }], 'c d': {} } }],
    ['toJson prints JSON', 'v: <%= toJson(params.MAP) %>', { v: '{"k":"v","odd key":"yes"}' }],
    ['indent indents every line', 'v: |\n<%- indent(2, "a\\nb") %>', { v: 'a\nb\n' }],
    ['quote makes a double-quoted string', 'v: <%- quote(params.COUNT) %>', { v: '3' }],
    ['b64enc encodes UTF-8', 'v: <%= b64enc("héllo") %>', { v: 'aMOpbGxv' }],
    ['b64dec decodes what b64enc encodes', 'v: <%= b64dec(b64enc("ünïcode ✓")) %>', { v: 'ünïcode ✓' }],
    ['sha256 is the standard digest', 'v: <%= sha256("abc") %>', { v: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' }],
    ['trunc cuts to n characters', 'v: <%= trunc(3, "abcdef") %>', { v: 'abc' }],
    ['dnsName joins, lowercases and trims to a DNS label', 'v: <%= dnsName("My", "App_1", "", "x".repeat(70)) %>', { v: `my-app-1-${'x'.repeat(54)}` }],
    ['fallback replaces undefined', 'v: <%= fallback(plan.args.missing, "d") %>', { v: 'd' }],
    ['plan.args carries one-shot arguments', 'v: <%= plan.args.target %>', { v: 'x' }],
    ['instance, framework and plan are in scope', 'v: <%= [instance.namespace, framework.appVersion, plan.name, plan.step] %>', { v: ['apps', '2.4', 'deploy', 's'] }],
    ['params can be listed, tested and serialised', 'v: <%= [Object.keys(params).length, "COUNT" in params, "NOPE" in params, JSON.parse(toJson(params)).COUNT] %>', { v: [6, true, false, 3] }],
    ['selectorLabels holds the stable labels', 'v: <%= selectorLabels %>', { v: { 'app.kubernetes.io/name': 'web' } }],
  ])('%s', async (_name, text, expected) => {
    expect(await value(text)).toEqual(expected);
  });

  it('include renders a partial with the same locals plus extra ones', async () => {
    expect(await value('v:<%- nindent(2, include("_part", { extra: 7 })) %>', { '_part.yaml.ejs': 'name: <%= instance.name %>\nextra: <%= locals.extra %>' })).toEqual({
      v: { name: 'site', extra: 7 },
    });
  });

  it('required throws with its message when the value is empty', async () => {
    const out = await render('a: 1\nv: <%= required("EMPTY must be set", params.EMPTY) %>');
    expect(out).toMatchObject({ ok: false, kind: 'runtime', line: 2, message: 'EMPTY must be set' });
  });

  it('exposes exactly the documented locals', () => {
    expect([...TEMPLATE_LOCALS]).toEqual(['instance', 'framework', 'params', 'plan', 'labels', 'selectorLabels', 'pipes']);
  });
});

describe('isolation', () => {
  it.each([
    ['process is not defined', '<%= typeof process %>', 'undefined'],
    ['require is not defined', '<%= typeof require %>', 'undefined'],
    ['Buffer is not defined', '<%= typeof Buffer %>', 'undefined'],
    ['fetch is not defined', '<%= typeof fetch %>', 'undefined'],
    ['Date is removed', '<%= typeof Date %>', 'undefined'],
    ['globalThis has no Node objects', '<%= ["process", "require", "module", "Buffer", "setTimeout", "console", "global"].filter((n) => n in globalThis) %>', []],
  ])('%s', async (_name, text, expected) => {
    expect(await value(`v: ${text}`)).toEqual({ v: expected });
  });

  it.each([
    ['the Function constructor of a local', 'instance.constructor.constructor("return process")()'],
    ['the Function constructor of a helper', 'toYaml.constructor("return process")()'],
    ['the constructor of an async function', '(async function () {}).constructor("return process")()'],
    ['eval', 'eval("process")'],
    ['Math.random', 'Math.random()'],
  ])('the classic escape through %s fails', async (_name, expr) => {
    const out = await render(`v: <%= ${expr} %>`);
    expect(out.ok).toBe(false);
  });

  it('a template cannot change what the next render sees (intrinsics are frozen)', async () => {
    const out = await render('<% Array.prototype.map = function () { return ["pwned"] } %>v: 1');
    expect(out).toMatchObject({ ok: false, kind: 'runtime' });
    expect(await value('v: <%= [1, 2].map((x) => x * 2) %>')).toEqual({ v: [2, 4] });
  });

  it('globals a template creates are gone for the next render', async () => {
    await value('<% globalThis.leftover = 1 %>v: 1');
    expect(await value('v: <%= typeof leftover %>')).toEqual({ v: 'undefined' });
  });

  /** Two instances' jobs in ONE batch (as the agent sends them): the second must see nothing of the first. */
  async function batchOfTwo(first: string, second: string, secondParams: Record<string, unknown> = base.params): Promise<RenderOutput[]> {
    const compiled = [['a.yaml.ejs', first], ['b.yaml.ejs', second]].map(([name, t]) => {
      const c = compileTemplate({ name: name!, file: `t/${name!}`, text: t!, id: `${name!}:${t!}` });
      if (!c.ok) throw new Error(c.problem.message);
      return c.compiled;
    });
    const plan = (): { name: string; phase: string; step: string; args: Record<string, string> } => ({ name: 'deploy', phase: 'p', step: 's', args: {} });
    const partials = Object.fromEntries(compiled.map((c) => [c.name, c.key]));
    const [a, b] = await Promise.all([
      renderer.run({ base, renders: [{ key: compiled[0]!.key, file: 't/a.yaml.ejs', plan: plan() }, { key: compiled[1]!.key, file: 't/b.yaml.ejs', plan: plan() }], partials, defines: compiled }),
      renderer.run({ base: { ...base, instance: { name: 'other', namespace: 'apps' }, params: secondParams }, renders: [{ key: compiled[1]!.key, file: 't/b.yaml.ejs', plan: plan() }], partials, defines: compiled }),
    ]);
    return [...a, ...b];
  }

  it('a global one instance sets is gone before the next instance of the same batch renders', async () => {
    const [, sameJob, otherJob] = await batchOfTwo('<% globalThis.stolen = params.NAME %>v: 1', 'v: <%= typeof stolen === "undefined" ? "clean" : stolen %>');
    expect(sameJob).toMatchObject({ ok: true, docs: [{ value: { v: 'clean' } }] });
    expect(otherJob).toMatchObject({ ok: true, docs: [{ value: { v: 'clean' } }] });
  });

  it.each([
    ['Object.defineProperty', 'Object.defineProperty(globalThis, "stuck", { value: 1 })'],
    ['Object.defineProperties', 'Object.defineProperties(globalThis, { stuck: { value: 1 } })'],
    ['Reflect.defineProperty', 'Reflect.defineProperty(globalThis, "stuck", { value: 1 })'],
  ])('a global that could not be deleted again (%s) is refused', async (_name, expr) => {
    const [first, , other] = await batchOfTwo(`<% ${expr} %>v: 1`, 'v: <%= typeof stuck %>');
    expect(first).toMatchObject({ ok: false, kind: 'runtime', message: expect.stringContaining('templates may not define globals') });
    expect(other).toMatchObject({ ok: true, docs: [{ value: { v: 'undefined' } }] });
  });

  it.each([
    ['a nested parameter value', '<% params.LIST.push("injected") %>', 'v: <%= params.LIST %>', { v: ['a', 'b'] }],
    ['the instance', '<% instance.name = "hijacked" %>', 'v: <%= instance.name %>', { v: 'site' }],
    ['the labels', '<% labels.extra = "x" %>', 'v: <%= Object.keys(labels).length %>', { v: 1 }],
    ['the plan', '<% plan.args.target = "y" %>', 'v: <%= plan.name %>', { v: 'deploy' }],
  ])('a template cannot change %s for the next template of the same instance', async (_name, change, read, expected) => {
    const [first, second] = await batchOfTwo(`${change}v: 1`, read);
    expect(first).toMatchObject({ ok: false, kind: 'runtime' });
    expect(second).toMatchObject({ ok: true, docs: [{ value: expected }] });
  });

  it.each([
    ['the <%= escape function', '<% escapeFn.stolen = params.NAME %>', 'v: <%= typeof escapeFn.stolen %>'],
    ['the prototype of params', '<% Object.getPrototypeOf(params).stolen = params.NAME %>', 'v: <%= typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(params), "stolen") %>'],
    ['the prototype of the template error', '<% try { params.NOPE } catch (e) { Object.getPrototypeOf(e).stolen = params.NAME } %>', 'v: <%= (function () { try { params.NOPE } catch (e) { return typeof e.stolen } })() %>'],
    ['the prototype of the global object', '<% Object.getPrototypeOf(globalThis).stolen = params.NAME %>', 'v: <%= typeof stolen %>'],
    ['a swapped prototype of the global object', '<% globalThis.__proto__ = { stolen: params.NAME } %>', 'v: <%= typeof stolen %>'],
  ])('nothing a template puts on %s reaches another instance', async (_name, write, read) => {
    const [, , other] = await batchOfTwo(`${write}v: 1`, read);
    expect(other).toMatchObject({ ok: true, docs: [{ value: { v: 'undefined' } }] });
  });

  it('nothing a template puts on its rethrow function reaches the next instance rendering the same template', async () => {
    const same = '<% var seen = typeof rethrow.stolen; try { rethrow.stolen = params.NAME } catch (e) { /* frozen */ } %>v: <%= seen %>';
    const [, first, second] = await batchOfTwo('v: 1', same);
    expect(first).toMatchObject({ ok: true, docs: [{ value: { v: 'undefined' } }] });
    expect(second).toMatchObject({ ok: true, docs: [{ value: { v: 'undefined' } }] });
  });

  it('an include may pass a local that shadows a read-only one (labels, instance, params)', async () => {
    expect(await value('v: <%- include("part", { labels: { extra: "yes" } }) %>', { 'part.ejs': '<%= labels.extra %>' })).toEqual({ v: 'yes' });
  });

  it('changing a read-only input fails with a hint to copy it first', async () => {
    const out = await render('v: <%= params.LIST.sort() %>');
    expect(out).toMatchObject({ ok: false, kind: 'runtime', message: expect.stringContaining('template inputs are read-only: copy before changing') });
    expect(await value('v: <%= params.LIST.slice().sort().reverse() %>')).toEqual({ v: ['b', 'a'] });
  });

  it('an endless loop is stopped and the sandbox keeps working', async () => {
    expect(await render('<% for (;;) {} %>')).toMatchObject({ ok: false, kind: 'timeout', file: 't/main.yaml.ejs' });
    expect(await value('v: 1')).toEqual({ v: 1 });
  });

  it('an endless loop hidden in a promise callback is stopped too', async () => {
    expect(await render('<% Promise.resolve().then(() => { for (;;) {} }) %>v: 1')).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('a memory bomb kills only the worker; the host respawns it', async () => {
    const out = await render('<% const a = []; for (;;) a.push(new Array(1e6).fill(1)) %>');
    expect(out.ok ? 'ok' : out.kind).toMatch(/memory|timeout/);
    expect(await value('v: 2')).toEqual({ v: 2 });
  });
});

describe('determinism', () => {
  it('the same inputs render byte-identical output', async () => {
    const text = 'v:<%- nindent(2, toYaml({ m: params.MAP, l: params.LIST, h: sha256(toJson(params)) })) %>';
    const a = JSON.stringify(await value(text));
    const b = JSON.stringify(await value(text));
    expect(a).toBe(b);
  });
});

describe('runDeferred: outputs parsed when taken', () => {
  const job = (text: string): Parameters<typeof renderer.run>[0] => {
    const c = compileTemplate({ name: 'd.yaml.ejs', file: 't/d.yaml.ejs', text, id: `d:${text}` });
    if (!c.ok) throw new Error(c.problem.message);
    return { base, renders: [{ key: c.compiled.key, file: 't/d.yaml.ejs', plan: { name: 'deploy', phase: 'p', step: 's', args: {} } }], partials: { 'd.yaml.ejs': c.compiled.key }, defines: [c.compiled] };
  };

  it('gives the same outputs as run(), once; a second take is an internal failure, not the outputs again', async () => {
    const text = 'kind: ConfigMap\nname: <%= instance.name %>\n---\nn: <%= params.COUNT %>';
    const take = await renderer.runDeferred(job(text));
    const outputs = take();
    expect(outputs).toEqual(await renderer.run(job(text)));
    expect(outputs).toEqual([{ ok: true, docs: [{ index: 0, value: { kind: 'ConfigMap', name: 'site' } }, { index: 1, value: { n: 3 } }] }]);
    expect(take()).toEqual([{ ok: false, kind: 'internal', file: '', line: 0, message: 'the outputs of this job were taken already' }]);
  });

  it('a failed render is delivered the same way, located', async () => {
    const [out] = (await renderer.runDeferred(job('a: 1\nv: <%= undefined %>')))();
    expect(out).toMatchObject({ ok: false, kind: 'undefined', file: 't/d.yaml.ejs', line: 2 });
  });

  it('an empty job and a closed renderer answer at once', async () => {
    expect((await renderer.runDeferred({ ...job('a: 1'), renders: [] }))()).toEqual([]);
    const closed = testRenderer();
    await closed.close();
    expect((await closed.runDeferred(job('a: 1')))()).toEqual([{ ok: false, kind: 'internal', file: 't/d.yaml.ejs', line: 0, message: 'the renderer is closed' }]);
  });
});

describe('reply encoding', () => {
  it('a job mixing non-ASCII documents and a failure comes back render by render, exactly', async () => {
    const texts = ['a: "é ✓ 𝄞 \\u2028"\n---\nb: [x, "ü"]', 'v: <%= undefined %>', 'c: <%= params.NAME %>'];
    const compiled = texts.map((text, i) => {
      const c = compileTemplate({ name: `e${i}.yaml.ejs`, file: `t/e${i}.yaml.ejs`, text, id: `e${i}:${text}` });
      if (!c.ok) throw new Error(c.problem.message);
      return c.compiled;
    });
    const outputs = await renderer.run({
      base,
      renders: compiled.map((c) => ({ key: c.key, file: c.file, plan: { name: 'deploy', phase: 'p', step: 's', args: {} } })),
      partials: Object.fromEntries(compiled.map((c) => [c.name, c.key])),
      defines: compiled,
    });
    expect(outputs[0]).toEqual({ ok: true, docs: [{ index: 0, value: { a: 'é ✓ 𝄞 \u2028' } }, { index: 1, value: { b: ['x', 'ü'] } }] });
    expect(outputs[1]).toMatchObject({ ok: false, kind: 'undefined', file: 't/e1.yaml.ejs', line: 1 });
    expect(outputs[2]).toEqual({ ok: true, docs: [{ index: 0, value: { c: 'x\nkind: Secret' } }] });
  });

  it('a batch whose reply outgrows its first buffer (many jobs, large multi-byte outputs) comes back job by job, exactly', async () => {
    // Every value 3-4 bytes per character in UTF-8: 40 jobs of ~60 kB each are ~7 MB of reply in one batch.
    const text = 'big: <%= params.BIG %>\nn: <%= params.N %>\n';
    const c = compileTemplate({ name: 'big.yaml.ejs', file: 't/big.yaml.ejs', text, id: `big:${text}` });
    if (!c.ok) throw new Error(c.problem.message);
    const jobs = Array.from({ length: 40 }, (_, n) => ({
      base: { ...base, params: { BIG: `${n}✓𝄞日本`.repeat(3000), N: n } },
      renders: [{ key: c.compiled.key, file: c.compiled.file, plan: { name: 'deploy', phase: 'p', step: 's', args: {} } }],
      partials: { [c.compiled.name]: c.compiled.key },
      defines: [c.compiled],
    }));
    const outputs = await Promise.all(jobs.map((job) => renderer.run(job)));
    outputs.forEach((out, n) => expect(out).toEqual([{ ok: true, docs: [{ index: 0, value: { big: `${n}✓𝄞日本`.repeat(3000), n } }] }]));
  });
});

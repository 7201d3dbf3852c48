/**
 * Issue #11 item 8: memory a template takes is bounded wherever it lives, and the host survives every
 * way of exhausting it. ArrayBuffers live outside the V8 heap (no constructor is left); one huge
 * allocation used to abort the whole process from a worker thread (the sandbox is a child process now);
 * a value too large for the output is reported as such at once, not as an endless loop.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import type { RenderOutput } from '../../src/render/sandbox/renderer.js';
import { Renderer } from '../../src/render/index.js';
import { testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

async function render(text: string): Promise<RenderOutput> {
  const c = compileTemplate({ name: 'm.yaml.ejs', file: 't/m.yaml.ejs', text, id: `limits:${text}` });
  if (!c.ok) throw new Error(c.problem.message);
  const [out] = await renderer.run({
    base: { instance: { name: 'a', namespace: 'b' }, framework: { name: 'w', version: '1.0.0', appVersion: '1' }, params: {}, labels: {}, selectorLabels: {} },
    renders: [{ key: c.compiled.key, file: 't/m.yaml.ejs', plan: { name: 'deploy', phase: 'p', step: 's', args: {} } }],
    partials: {},
    defines: [c.compiled],
  });
  return out!;
}

describe('sandbox memory', () => {
  it('GIVEN memory outside the V8 heap (ArrayBuffer, typed arrays, DataView) THEN no template can allocate any', async () => {
    const names = ['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Uint8Array', 'Int32Array', 'Float64Array', 'BigInt64Array', 'Uint8ClampedArray'];
    expect(await render(`v: <%= [${names.map((n) => `typeof ${n}`).join(', ')}] %>`)).toMatchObject({ ok: true, docs: [{ value: { v: names.map(() => 'undefined') } }] });
    expect(await render('<% new Uint8Array(3 * 1024 ** 3) %>v: 1')).toMatchObject({ ok: false, kind: 'undefined', message: 'Uint8Array is not defined' });
  });

  it.each([
    ['one huge array filled at once', '<% new Array(2 ** 28).fill(0) %>v: 1'],
    ['a string split into 300 million one-character strings', '<% "x".repeat(3e8).split("") %>v: 1'],
  ])('GIVEN %s THEN only the sandbox process dies (memory or a stall), the host reports it and renders on', async (_name, text) => {
    const out = await render(text);
    expect(out.ok ? 'rendered' : out.kind).toMatch(/^(memory|timeout)$/);
    expect(await render('v: 2')).toMatchObject({ ok: true, docs: [{ value: { v: 2 } }] });
  }, 30_000);

  it.each([
    ['printed with <%=', 'v: <%= "x".repeat(50 * 1024 * 1024) %>', 'the printed value is 50.0 MiB'],
    ['given to toYaml', 'v:<%- nindent(2, toYaml({ a: "x".repeat(50 * 1024 * 1024) })) %>', 'a value given to toYaml is 50.0 MiB'],
    ['given to sha256', 'v: <%= sha256("x".repeat(50 * 1024 * 1024)) %>', 'the value given to sha256 is 50.0 MiB'],
    ['given to b64enc', 'v: <%= b64enc("x".repeat(50 * 1024 * 1024)) %>', 'the value given to b64enc is 50.0 MiB'],
  ])('GIVEN a 50 MB value %s THEN it is reported as too large at once, with its size and the line', async (_name, text, message) => {
    const out = await render(text);
    expect(out).toMatchObject({ ok: false, kind: 'output', file: 't/m.yaml.ejs', line: 1 });
    expect(out.ok ? '' : out.message).toContain(message);
    expect(out.ok ? '' : out.message).toContain('at most 4 MiB');
  });
});

describe('sandbox start-up', () => {
  it('GIVEN a sandbox process slow to start (a loaded machine) THEN its first batch is not taken for a stall', async () => {
    // The stall limit is 2 x 100 ms + 3 s; the process spends 4.5 s starting before it reads its setup.
    const slow = new Renderer({ timeoutMs: 100, execArgv: ['--import', 'data:text/javascript,Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4500)'] });
    try {
      const c = compileTemplate({ name: 'm.yaml.ejs', file: 't/m.yaml.ejs', text: 'v: <%= 1 + 1 %>', id: 'startup' });
      if (!c.ok) throw new Error(c.problem.message);
      const [out] = await slow.run({
        base: { instance: { name: 'a', namespace: 'b' }, framework: { name: 'w', version: '1.0.0', appVersion: '1' }, params: {}, labels: {}, selectorLabels: {} },
        renders: [{ key: c.compiled.key, file: 't/m.yaml.ejs', plan: { name: 'deploy', phase: 'p', step: 's', args: {} } }],
        partials: {},
        defines: [c.compiled],
      });
      expect(out).toMatchObject({ ok: true, docs: [{ value: { v: 2 } }] });
    } finally {
      await slow.close();
    }
  }, 60_000);
});

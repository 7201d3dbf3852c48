/**
 * The sandbox's replies on stdout: GIVEN frames cut into chunks anywhere (inside the length, inside a
 * multi-byte character, several frames in one chunk) THEN each frame comes out whole, once, in order.
 */
import { describe, expect, it } from 'vitest';
import { FrameReader, sections } from '../../src/render/sandbox/frames.js';

function frame(json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

describe('sandbox reply frames', () => {
  const texts = ['{"id":1}', JSON.stringify({ id: 2, text: 'é✓ 日本 \u{1F600}'.repeat(50) }), '{}', JSON.stringify({ id: 3, big: 'x'.repeat(200_000) })];
  const stream = Buffer.concat(texts.map(frame));

  it.each([1, 2, 3, 5, 7, 64, 65_536, stream.length])('GIVEN chunks of %i bytes THEN every frame comes out whole and in order', (size) => {
    const out: string[] = [];
    const reader = new FrameReader((body) => out.push(body.toString("utf8")));
    for (let i = 0; i < stream.length; i += size) reader.push(stream.subarray(i, i + size));
    expect(out).toEqual(texts);
  });

  it('GIVEN a frame not complete yet THEN nothing comes out until its last byte arrives', () => {
    const out: string[] = [];
    const reader = new FrameReader((body) => out.push(body.toString("utf8")));
    const one = frame('{"id":9}');
    reader.push(one.subarray(0, one.length - 1));
    expect(out).toEqual([]);
    reader.push(one.subarray(one.length - 1));
    expect(out).toEqual(['{"id":9}']);
  });

  it('GIVEN a body of sections THEN each decodes to its own text; a length past the end is refused', () => {
    const texts = ['{"id":1}', '[{"ok":true}]', '[]', JSON.stringify('é✓')];
    const parts = texts.map((t) => Buffer.from(t, 'utf8'));
    const head = Buffer.alloc(4 + 4 * parts.length);
    head.writeUInt32LE(parts.length, 0);
    parts.forEach((p, i) => head.writeUInt32LE(p.length, 4 + 4 * i));
    const body = Buffer.concat([head, ...parts]);
    expect(sections(body).map((s) => s())).toEqual(texts);
    expect(() => sections(body.subarray(0, body.length - 1))).toThrow(RangeError);
  });
});

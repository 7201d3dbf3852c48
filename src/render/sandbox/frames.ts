/**
 * Splits the sandbox's stdout into frames: a 4-byte little-endian length, then that many bytes. Chunks are
 * kept in a list and joined once per frame (the IPC channel's reader joined the buffer again for every chunk
 * of a large message). A frame's body holds sections of JSON text: a 4-byte count, the byte length of each
 * section, then the sections (see `sections`).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly onFrame: (body: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size >= 4) {
      const length = (this.chunks[0]!.length >= 4 ? this.chunks[0]! : this.join()).readUInt32LE(0);
      if (this.size < 4 + length) return;
      // The whole frame is in the first chunk now.
      const first = this.chunks[0]!.length >= 4 + length ? this.chunks[0]! : this.join();
      const body = first.subarray(4, 4 + length);
      if (first.length > 4 + length) this.chunks[0] = first.subarray(4 + length);
      else this.chunks.shift();
      this.size -= 4 + length;
      this.onFrame(body);
    }
  }

  private join(): Buffer {
    const all = Buffer.concat(this.chunks, this.size);
    this.chunks = [all];
    return all;
  }
}

/** The sections of a frame's body, each as a function that decodes its UTF-8 JSON text when called. */
export function sections(body: Buffer): (() => string)[] {
  const count = body.readUInt32LE(0);
  const out: (() => string)[] = [];
  let at = 4 + 4 * count;
  for (let i = 0; i < count; i++) {
    const start = at;
    const end = (at += body.readUInt32LE(4 + 4 * i));
    if (end > body.length) throw new RangeError('a section goes past the end of its frame');
    out.push(() => body.toString('utf8', start, end));
  }
  return out;
}

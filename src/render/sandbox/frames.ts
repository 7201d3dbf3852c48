/**
 * Splits the sandbox's stdout into replies: each frame is a 4-byte little-endian length, then that many
 * bytes of JSON in UTF-8. Chunks are kept in a list and joined once per frame (the IPC channel's reader
 * joined the buffer again for every chunk of a large message).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly onFrame: (json: string) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size >= 4) {
      const length = (this.chunks[0]!.length >= 4 ? this.chunks[0]! : this.join()).readUInt32LE(0);
      if (this.size < 4 + length) return;
      // The whole frame is in the first chunk now.
      const first = this.chunks[0]!.length >= 4 + length ? this.chunks[0]! : this.join();
      const json = first.toString('utf8', 4, 4 + length);
      if (first.length > 4 + length) this.chunks[0] = first.subarray(4 + length);
      else this.chunks.shift();
      this.size -= 4 + length;
      this.onFrame(json);
    }
  }

  private join(): Buffer {
    const all = Buffer.concat(this.chunks, this.size);
    this.chunks = [all];
    return all;
  }
}

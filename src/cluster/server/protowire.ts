/**
 * The protobuf wire format, by hand: enough to read Kubernetes request bodies and to write the
 * gnostic OpenAPI v2 document kubectl 1.27/1.28 ask for. No schema compiler, no dependency.
 */
export type WireField =
  | { field: number; wire: 'varint'; value: bigint }
  | { field: number; wire: 'bytes'; value: Uint8Array }
  | { field: number; wire: 'fixed64'; value: Uint8Array }
  | { field: number; wire: 'fixed32'; value: Uint8Array };

export class ProtoDecodeError extends Error {}

/** Splits one message into its fields, in order. Unknown fields are the caller's to ignore. */
export function readFields(buf: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new ProtoDecodeError('truncated varint');
      const byte = buf[pos++] ?? 0;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new ProtoDecodeError('varint too long');
    }
  };
  const take = (n: number): Uint8Array => {
    if (pos + n > buf.length) throw new ProtoDecodeError('truncated field');
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    switch (Number(key & 7n)) {
      case 0: fields.push({ field, wire: 'varint', value: varint() }); break;
      case 1: fields.push({ field, wire: 'fixed64', value: take(8) }); break;
      case 2: fields.push({ field, wire: 'bytes', value: take(Number(varint())) }); break;
      case 5: fields.push({ field, wire: 'fixed32', value: take(4) }); break;
      default: throw new ProtoDecodeError(`unsupported wire type ${Number(key & 7n)} for field ${field}`);
    }
  }
  return fields;
}

/** Appends fields to a growing buffer; `message` nests a sub-writer as a length-delimited field. */
export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  private varint(value: number | bigint): void {
    let v = BigInt(value);
    const out: number[] = [];
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private key(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  uint(field: number, value: number | bigint): this {
    this.key(field, 0);
    this.varint(value);
    return this;
  }

  bool(field: number, value: boolean): this {
    return value ? this.uint(field, 1) : this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.key(field, 2);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return value === undefined || value === '' ? this : this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const sub = new ProtoWriter();
    build(sub);
    return this.bytes(field, sub.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let pos = 0;
    for (const c of this.chunks) {
      out.set(c, pos);
      pos += c.length;
    }
    return out;
  }
}

/**
 * Kubernetes resource quantities (`100m`, `128Mi`, `1G`, `2`, `1e3`): parsed to numbers in base units
 * for sums and comparisons, and printed back in the canonical form kubectl shows (`500m`, `256Mi`).
 */
const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The value in base units, or undefined when the text is not a quantity. */
export function parseQuantity(text: unknown): number | undefined {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/.exec(text.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2] !== undefined) return base * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return base * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** Canonical text: CPU-like values in millis when fractional, byte-like values with the largest exact binary suffix. */
export function formatQuantity(value: number, resource: string): string {
  if (resource.endsWith('cpu') || !Number.isInteger(value)) {
    if (Number.isInteger(value)) return String(value);
    return `${Math.round(value * 1000)}m`;
  }
  if (/memory|storage/.test(resource) && value !== 0) {
    for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
      const unit = BINARY[suffix] ?? 1;
      if (value % unit === 0) return `${value / unit}${suffix}`;
    }
  }
  return String(value);
}

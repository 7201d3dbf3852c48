/** The JSON Schema documents generated from the zod schemas (one per file kind), as committed in schemas/. */
import { z } from 'zod';
import { fileSchemas } from './schemas.js';

export const SCHEMA_BASE_URL = 'https://baton.dev/schemas/';

/** File name -> JSON text (2-space indented, trailing newline). */
export function generateJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [kind, schema] of Object.entries(fileSchemas)) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
    const doc = { ...json, $id: `${SCHEMA_BASE_URL}${kind}.json`, title: `Baton ${kind} file` };
    out[`${kind}.json`] = `${JSON.stringify(doc, null, 2)}\n`;
  }
  return out;
}

/**
 * Writes schemas/*.json from the zod schemas in src/render/schemas.ts (the one definition of each file
 * format). Run: `npx tsx scripts/gen-schemas.ts`. test/render/schemas.test.ts fails when they are stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateJsonSchemas, SCHEMA_BASE_URL } from '../src/render/json-schema.js';
import { statusJsonSchema } from '../src/sync/status-schema.js';

const dir = fileURLToPath(new URL('../schemas/', import.meta.url));
mkdirSync(dir, { recursive: true });
// The status file is written by the agent, not by people: its schema lives with it (src/sync/).
for (const [name, text] of Object.entries({ ...generateJsonSchemas(), 'status.json': statusJsonSchema(SCHEMA_BASE_URL) })) {
  writeFileSync(join(dir, name), text);
  console.log(`wrote schemas/${name}`);
}

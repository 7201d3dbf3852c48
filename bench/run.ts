/**
 * `npm run bench -- NAME [--n N] [...]`: runs bench/NAME.ts. Each bench module exports
 * `run(args: string[]): Promise<Record<string, unknown>>`; its figures print as the last line, one JSON object.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface BenchModule { run(args: string[]): Promise<Record<string, unknown>> }

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_')).map((f) => f.slice(0, -3));
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- NAME [--n N]\nbenchmarks: ${available.join(', ') || '(none)'}`);
  process.exit(2);
}
const mod = (await import(join(here, `${name}.ts`))) as BenchModule;
const figures = await mod.run(args);
console.log(JSON.stringify({ bench: name, ...figures }));

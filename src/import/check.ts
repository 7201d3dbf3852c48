/**
 * Checks an import as `baton validate` would, before anything is written: the generated framework is put
 * in an in-memory repository and validated (schemas, references, every plan rendered with defaults).
 * Validation errors become `error` findings; warnings become notes, located in the generated files.
 */
import { MemoryTree, validateFramework, type Renderer } from '../render/index.js';
import type { ImportResult } from './report.js';
import { targetFolder } from './write.js';

export async function checkImport(result: ImportResult, renderer: Renderer): Promise<void> {
  if (result.framework.name === '' || result.files.length === 0) return;
  const dir = targetFolder(result);
  const tree = new MemoryTree(Object.fromEntries(result.files.map((f) => [`${dir}/${f.path}`, f.content])));
  const problems = await validateFramework(tree, result.framework.name, result.framework.version, renderer);
  for (const p of problems) {
    result.findings.push({
      level: p.severity === 'error' ? 'error' : 'mapped',
      code: `VALIDATE_${p.code}`,
      at: { file: p.file, line: p.line, column: p.column },
      message: `baton validate: ${p.message}`,
    });
  }
}

/**
 * Importers: KUDO operators and DC/OS SDK services become Baton frameworks. One entry point; the
 * importers compute from in-memory packages, `checkImport` validates the result as `baton validate`
 * would, `writeImport` writes it all or nothing.
 */
export type { Finding, FindingLevel, GeneratedFile, ImportResult, SourceLocation } from './report.js';
export { hasImportErrors, sortFindings } from './report.js';
export type { PackageFiles } from './package-files.js';
export { readPackageDir } from './package-files.js';
export { importKudo } from './kudo/index.js';
export { importDcos, type DcosImportOptions } from './dcos/index.js';
export { checkImport } from './check.js';
export { ImportRefusedError, existingVersions, refusal, targetFolder, writeImport } from './write.js';
export { formatImportJson, formatImportMarkdown, formatImportText, type ImportOutcome } from './format.js';

/**
 * The public surface of the renderer: load a repository through a FileTree, resolve parameters, render a
 * plan into the RenderedPlan value, validate, format problems, mask sensitive values. Everything else in
 * src/render/ is internal.
 */
export type { FileTree, TreeEntry } from './tree.js';
export type { LayoutFile, RepositoryLayout } from './layout.js';
export { scanLayout } from './layout.js';
export type { InstanceObjects, RenderedObjectRef } from './object-owners.js';
export { appliedObjectsOf, ownershipProblems } from './object-owners.js';
export { DirectoryTree, MemoryTree, readText } from './tree.js';
export type { Problem, Severity } from './problems.js';
export { RenderProblemsError, hasErrors, looksBinary, printable, problemLocation, sortProblems } from './problems.js';
export type { Framework, Instance, Loaded, RepositorySettings, TemplateFile } from './model.js';
export {
  DEFAULT_STEP_TIMEOUT_SECONDS,
  frameworkDir,
  instancePathParts,
  listFrameworks,
  listInstances,
  loadFramework,
  loadInstance,
  loadSettings,
} from './repository.js';
export { FRAMEWORK_CACHE_ENTRIES, FrameworkCache } from './framework-cache.js';
export type { ClusterDecl, DecommissionDecl, FrameworkDecl, InstanceDecl, RecoveryDecl, ParamDecl, PlanDecl, RepositoryDecl, RequestDecl, ScheduleDecl, SyncSettingsDecl, TaskDecl } from './schemas.js';
export { API_VERSION, requestSchema, REQUEST_ACTIONS, REQUEST_FIELDS } from './schemas.js';
export type { RequestAction, RequestField, RequestItemDecl } from './schemas.js';
export type { ParamValues, ResolvedParams } from './params.js';
export { isRequired, resolveParams } from './params.js';
export type { RenderPlanInput, RenderResult } from './plan.js';
export { NAMESPACE_TASK, renderPlan } from './plan.js';
export type { InstanceRenderResult, RenderInstanceOptions } from './instance-render.js';
export { loadInstanceFramework, loadInstanceOnce, renderInstancePlan } from './instance-render.js';
export type { RendererOptions } from './sandbox/renderer.js';
export { Renderer } from './sandbox/renderer.js';
export { RenderCache, renderKey } from './render-cache.js';
export { MASK, maskSensitive, maskText, maskerFor, encodedForms, type Masker, type MaskOptions } from './mask.js';
export { isClusterScoped, kindRank, orderBatch } from './kinds.js';
export * from './labels.js';
export { compareSemver, isDnsLabel, isSemver, latestVersion, parseDuration } from './versions.js';
export type { BatchAction, ReadinessRule, RenderedPhase, RenderedPlan, RenderedStep, Strategy } from './types.js';
export type { ValidateScope, ValidationReport } from './validate.js';
export { validateFramework, validateInstance, validateRepository } from './validate.js';
export { frameworkProblems } from './framework-checks.js';
export { DEFAULT_RECOVERY_PLAN } from './lifecycle-checks.js';
export type { FormatOptions } from './format.js';
export { formatProblem, formatProblems } from './format.js';
export { scheduleProblems, isValidTimezone } from './schedules.js';
export { fileSchemas } from './schemas.js';
export type { TestCase, LoadedCases } from './test-cases.js';
export { loadTestCases, testCaseProblems } from './test-cases.js';
export type { TestCaseDecl, TestStepDecl } from './schemas.js';

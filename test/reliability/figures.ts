/**
 * The figures of a reliability suite: how many tries, how many were clean, and the defects found
 * (each a sentence naming what went wrong). Every suite reports through `reportFigures`, which prints
 * one line `RELIABILITY {"suite":...,"tries":N,"clean":N,"defects":N}` and appends it to the file the
 * summary (summary.ts) prints as a table at the end. A new suite (bad inputs, sandbox escapes,
 * secret probes...) needs nothing else: count, collect defects, report, assert none.
 */
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    batonReliabilityFigures: string;
  }
}

export interface Figures {
  suite: string;
  tries: number;
  clean: number;
  defects: readonly string[];
  /** Extra figures worth a column (seconds, runs checked...). */
  extra?: Record<string, number | string>;
}

/** Where the summary collects the lines (provided by summary.ts for the run). */
export const FIGURES_FILE_KEY = 'batonReliabilityFigures';

export function reportFigures(figures: Figures): void {
  const line = { suite: figures.suite, tries: figures.tries, clean: figures.clean, defects: figures.defects.length, ...(figures.extra ?? {}) };
  const text = `RELIABILITY ${JSON.stringify(line)}`;
  console.log(figures.defects.length === 0 ? text : `${text}\n${figures.defects.map((d) => `  defect: ${d}`).join('\n')}`);
  const file = inject(FIGURES_FILE_KEY);
  if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** Counts tries and collects defects for one suite. */
export class Tally {
  tries = 0;
  clean = 0;
  readonly defects: string[] = [];

  /** One try: its defects (none means clean). */
  record(defects: readonly string[]): void {
    this.tries++;
    if (defects.length === 0) this.clean++;
    this.defects.push(...defects);
  }

  report(suite: string, extra?: Figures['extra']): void {
    reportFigures({ suite, tries: this.tries, clean: this.clean, defects: this.defects, ...(extra ? { extra } : {}) });
  }
}

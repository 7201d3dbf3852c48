/**
 * Figures for the suites whose tries are vitest test cases (bad input, sandbox escapes, secret leaks):
 * `run` wraps one try (clean when its body completes; the failure is kept as a defect and rethrown so the
 * test fails too), `print` reports through `reportFigures` once at the end, so these suites appear in the
 * summary table of `npm run test:reliability` like the others.
 */
import { errorMessage } from '../../src/errors.js';
import { reportFigures } from './figures.js';

export class FigureCounter {
  private tries = 0;
  private clean = 0;
  private readonly defects: string[] = [];

  constructor(private readonly suite: string) {}

  /** Runs one try: counted clean when `body` completes, a defect when it throws (the error is rethrown). */
  async run<T>(body: () => Promise<T> | T): Promise<T> {
    this.tries++;
    try {
      const out = await body();
      this.clean++;
      return out;
    } catch (err) {
      this.defects.push(errorMessage(err).split('\n')[0] ?? 'failed');
      throw err;
    }
  }

  /** Prints the figures line and adds it to the summary (call from afterAll). */
  print(): void {
    reportFigures({ suite: this.suite, tries: this.tries, clean: this.clean, defects: this.defects });
  }
}

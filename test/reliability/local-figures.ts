/**
 * A tiny figures printer for the reliability suites of issue #11 items 6-12 (bad input, sandbox escapes,
 * secret leaks), usable standalone with vitest until the shared harness (`npm run test:reliability`)
 * takes them over: each suite counts its tries and prints, once at the end, one line
 * `{"suite", "tries", "clean", "defects"}`. A try is clean when every assertion of it held.
 */
export interface Figures {
  suite: string;
  tries: number;
  clean: number;
  defects: number;
}

export class FigureCounter {
  private tries = 0;
  private clean = 0;

  constructor(private readonly suite: string) {}

  /** Runs one try: counted clean when `body` completes, a defect when it throws (the error is rethrown). */
  async run<T>(body: () => Promise<T> | T): Promise<T> {
    this.tries++;
    const out = await body();
    this.clean++;
    return out;
  }

  figures(): Figures {
    return { suite: this.suite, tries: this.tries, clean: this.clean, defects: this.tries - this.clean };
  }

  /** Prints the figures line (call from afterAll). */
  print(): void {
    process.stdout.write(`${JSON.stringify(this.figures())}\n`);
  }
}

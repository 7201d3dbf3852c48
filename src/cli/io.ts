/**
 * What a command needs from its surroundings, passed in so commands can be tested in-process.
 * Commands set `exitCode` (0 ok, 1 invalid input / failed plan, 2 usage) instead of calling exit.
 */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  /** Current working directory for relative paths. */
  cwd: string;
  exitCode: number;
}

export function processIO(): CliIO {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTTY: process.stdout.isTTY === true,
    cwd: process.cwd(),
    exitCode: 0,
  };
}

/** Output format option shared by commands that print data. */
export type DataFormat = 'yaml' | 'json';

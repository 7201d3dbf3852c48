// Runs the CLI in a child process (crash tests kill it with SIGKILL at random points).
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv);

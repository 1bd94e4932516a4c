// `cuzk` as a child process from the TypeScript sources (tsx), for tests that need a real daemon
// process (signals, kill -9, restarts): node --import tsx test/helpers/cuzk-child.ts serve ...
import { main } from '../../src/cli/main.js';

process.exit(await main(process.argv.slice(2)));

// Bench fixtures: the shared cached dev-circuit + dev-setup key (src/dev/bench-fixture.ts).
export { benchFixture, type Fixture } from '../src/dev/bench-fixture.js';

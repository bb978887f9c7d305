import fc from 'fast-check';

// A property test runs a fixed number of cases, whatever the machine's load: a test that passes on a quiet laptop
// must pass on a busy two-core CI runner, and it must never pass there by trying fewer cases. Tests that name
// their own numRuns keep it; the rest run this many. The time a run may take is the project's testTimeout (30 s),
// not fast-check's.
fc.configureGlobal({ numRuns: 100 });

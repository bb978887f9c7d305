import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Without vitest globals Testing Library does not unmount by itself: a tree left mounted keeps its queries, and a
// request answering after the file's environment is gone makes React schedule work on a missing `window`.
afterEach(() => cleanup());

// findBy and waitFor wait for a state, not a time: on a loaded two-core CI machine a page's first render can take
// longer than Testing Library's default second, and a wait that gives up early fails a test that is right.
configure({ asyncUtilTimeout: 10_000 });

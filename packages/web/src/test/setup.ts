import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// Without vitest globals Testing Library does not unmount by itself: a tree left mounted keeps its queries, and a
// request answering after the file's environment is gone makes React schedule work on a missing `window`.
afterEach(() => cleanup());

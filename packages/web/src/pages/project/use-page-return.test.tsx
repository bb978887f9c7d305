import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import type { ContextType } from 'react';
import { MemoryRouter, UNSAFE_DataRouterStateContext } from 'react-router';
import { usePageReturn } from './use-page-return';

type RouterState = NonNullable<ContextType<typeof UNSAFE_DataRouterStateContext>>;

function Page({ onReturn }: { onReturn: () => void }) {
  usePageReturn(onReturn);
  return null;
}

function at(livePath: string, onReturn: () => void) {
  return (
    <UNSAFE_DataRouterStateContext.Provider value={{ location: { pathname: livePath } } as RouterState}>
      <MemoryRouter initialEntries={['/project/5/subject']}>
        <Page onReturn={onReturn} />
      </MemoryRouter>
    </UNSAFE_DataRouterStateContext.Provider>
  );
}

afterEach(cleanup);

describe('kept-alive page return', () => {
  it('tells the patient list when the nurse comes back from the CRF page, not while she is away', () => {
    const onReturn = vi.fn();
    const view = render(at('/project/5/subject', onReturn));
    expect(onReturn).not.toHaveBeenCalled();
    view.rerender(at('/crf/77', onReturn));
    expect(onReturn).not.toHaveBeenCalled();
    view.rerender(at('/project/5/subject', onReturn));
    expect(onReturn).toHaveBeenCalledTimes(1);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { renderWithProviders } from '../test/render';
import { GLOBAL_SEARCH_LABEL, GlobalSearchBox, searchOptions } from './global-search-box';

const api = vi.hoisted(() => ({ search: vi.fn(), addDataChange: vi.fn() }));
vi.mock('../api/global-search.api', () => ({ globalSearchApi: api }));

afterEach(() => {
  cleanup();
  api.search.mockReset();
});

const groups = [
  {
    type: 'subject',
    label: '患者',
    hits: [{ type: 'subject', id: 7, title: 'LSS-0001', description: '孙** · 示例研究', studyId: 1, path: '/crf/12' }],
  },
  {
    type: 'crf',
    label: 'CRF',
    hits: [{ type: 'crf', id: 3, title: '生命体征', description: null, studyId: 1, path: '/crf/detail/3' }],
  },
];

describe('top-bar global search', () => {
  it('SHELL-33: one option group per source, each hit opening its route', () => {
    const options = searchOptions(groups);
    expect(options.map((o) => o.label)).toEqual(['患者', 'CRF']);
    expect(options[0]!.options.map((o) => [o.key, o.value])).toEqual([['subject:7', '/crf/12']]);
    expect(options[1]!.options.map((o) => o.value)).toEqual(['/crf/detail/3']);
  });

  it('SHELL-33: asks searchall with the typed key once typing settles and lists the hits', async () => {
    api.search.mockResolvedValue({ code: 200, msg: '', data: groups });
    renderWithProviders(
      <MemoryRouter>
        <GlobalSearchBox />
      </MemoryRouter>,
    );
    fireEvent.change(screen.getByLabelText(GLOBAL_SEARCH_LABEL), { target: { value: ' LSS ' } });
    expect(await screen.findByText('LSS-0001')).toBeTruthy();
    expect(api.search).toHaveBeenCalledWith('LSS');
    expect(screen.getByText('生命体征')).toBeTruthy();
  });
});

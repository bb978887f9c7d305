import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderWithProviders } from '../test/render';
import { PagedTable } from './paged-table';

interface Row {
  id: number;
  name: string;
}

const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `受试者${i + 1}` }));
const columns = [{ title: '姓名', dataIndex: 'name' }];

function firstCells(container: HTMLElement): string[] {
  return [...container.querySelectorAll('tbody tr.ant-table-row')].map(
    (tr) => tr.querySelector('td')!.textContent ?? '',
  );
}

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('PagedTable', () => {
  it('THEME-02/THEME-04: 10 rows per page by default and an index column 序号, 100 wide, that continues across pages', async () => {
    vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    const { container } = renderWithProviders(<PagedTable<Row> rowKey="id" columns={columns} rows={rows(25)} />);
    expect(container.querySelector('thead th')?.textContent).toBe('序号');
    expect(container.querySelector('col')?.getAttribute('style') ?? '').toContain('100px');
    expect(firstCells(container)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    fireEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(firstCells(container)[0]).toBe('11'));
    expect(firstCells(container)).toHaveLength(10);
    fireEvent.click(screen.getByTitle('3'));
    await waitFor(() => expect(firstCells(container)).toEqual(['21', '22', '23', '24', '25']));
  });

  it('THEME-02: page sizes 10/20/50/100', async () => {
    renderWithProviders(<PagedTable<Row> rowKey="id" columns={columns} rows={rows(5)} />);
    const select = screen.getByLabelText('每页条数');
    fireEvent.mouseDown(select);
    await waitFor(() => expect(screen.getAllByText('100 条/页').length).toBeGreaterThan(0));
    for (const size of [10, 20, 50]) expect(screen.getAllByText(`${size} 条/页`).length).toBeGreaterThan(0);
  });

  it('THEME-03: the bar reads total, sizes, prev, pager, next, jumper, with at most 5 page buttons', () => {
    const { container } = renderWithProviders(<PagedTable<Row> rowKey="id" columns={columns} rows={rows(300)} />);
    const bar = container.querySelector('.paged-table-bar') as HTMLElement;
    const order = [
      bar.querySelector('.paged-table-total'),
      bar.querySelector('.ant-select'),
      bar.querySelector('.ant-pagination-prev'),
      bar.querySelector('.ant-pagination-item'),
      bar.querySelector('.ant-pagination-next'),
      bar.querySelector('.ant-pagination-options-quick-jumper'),
    ];
    for (const element of order) expect(element).not.toBeNull();
    for (let i = 1; i < order.length; i++) {
      expect(order[i - 1]!.compareDocumentPosition(order[i]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    }
    expect(within(bar).getByText('共 300 条')).toBeTruthy();
    expect(bar.querySelectorAll('.ant-pagination-item').length).toBeLessThanOrEqual(5);
  });

  it('HTTP-06/THEME-05: server paging asks for pageNum and pageSize and scrolls to the top after a page change', async () => {
    const scroll = vi.spyOn(window, 'requestAnimationFrame').mockImplementation(() => 0);
    const fetchPage = vi.fn(async ({ pageNum, pageSize }: { pageNum: number; pageSize: number }) => ({
      list: rows(pageSize).map((r) => ({ ...r, id: r.id + (pageNum - 1) * pageSize })),
      total: 42,
    }));
    Object.defineProperty(window, 'scrollY', { configurable: true, value: 600 });
    const { container } = renderWithProviders(
      <PagedTable<Row> rowKey="id" columns={columns} queryKey={['t']} fetchPage={fetchPage} />,
    );
    await waitFor(() => expect(fetchPage).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10 }));
    await waitFor(() => expect(screen.getByText('共 42 条')).toBeTruthy());
    fireEvent.click(screen.getByTitle('5'));
    await waitFor(() => expect(fetchPage).toHaveBeenCalledWith({ pageNum: 5, pageSize: 10 }));
    await waitFor(() => expect(firstCells(container)[0]).toBe('41'));
    expect(scroll).toHaveBeenCalled();
  });
});

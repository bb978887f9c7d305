import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Table } from 'antd';
import { renderWithProviders } from '../../test/render';
import { ContentToolbar, useContentList, type ContentListParams } from './content-list';
import type { useContentStudy } from './knowledge/use-content-study';

type Row = { id: number; name: string };

const fetch = vi.fn(async (p: ContentListParams) => ({
  data: {
    list: [{ id: p.pageNum, name: `第${p.pageNum}页` }],
    total: 25,
  },
}));

function Harness(props: { mayAdd: boolean; onAdd: () => void }) {
  const study: ReturnType<typeof useContentStudy> = {
    studyId: 5,
    setStudyId: () => undefined,
    options: [{ value: 5, label: '示例研究' }],
    loading: false,
    can: () => true,
    permissions: [],
  };
  const content = useContentList<Row>({ study, key: 'test', fetch });
  return (
    <>
      <ContentToolbar study={study} list={content} addText="新增" mayAdd={props.mayAdd} onAdd={props.onAdd} />
      <Table<Row> {...content.table} columns={[{ title: '名称', dataIndex: 'name' }]} />
    </>
  );
}

afterEach(() => {
  cleanup();
  fetch.mockClear();
});

describe('useContentList with ContentToolbar', () => {
  it('asks for the first page, searches the trimmed keyword from page 1 and pages through the table', async () => {
    const onAdd = vi.fn();
    renderWithProviders(<Harness mayAdd onAdd={onAdd} />);
    await screen.findByText('第1页');
    expect(fetch).toHaveBeenLastCalledWith({ studyId: 5, pageNum: 1, pageSize: 10, keyword: undefined });

    fireEvent.click(screen.getByTitle('2'));
    await screen.findByText('第2页');
    expect(fetch).toHaveBeenLastCalledWith({ studyId: 5, pageNum: 2, pageSize: 10, keyword: undefined });

    const input = screen.getByLabelText('关键词');
    fireEvent.change(input, { target: { value: ' 周立新 ' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() =>
      expect(fetch).toHaveBeenLastCalledWith({ studyId: 5, pageNum: 1, pageSize: 10, keyword: '周立新' }),
    );

    fireEvent.click(screen.getByRole('button', { name: /新增/ }));
    expect(onAdd).toHaveBeenCalledTimes(1);
  });

  it('keeps the add button disabled without the right to edit', async () => {
    renderWithProviders(<Harness mayAdd={false} onAdd={() => undefined} />);
    await screen.findByText('第1页');
    expect((screen.getByRole('button', { name: /新增/ }) as HTMLButtonElement).disabled).toBe(true);
  });
});

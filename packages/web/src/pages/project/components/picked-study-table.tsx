import type { QueryKey } from '@tanstack/react-query';
import { Button } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import type { Page } from '@ecrf/core';
import type { Paging } from '../../../components/paged-table';
import { TablePage, type TablePageProps } from '../../../components/table-page';

type PassedProps<T extends object, F extends object> = Pick<
  TablePageProps<T, F>,
  'name' | 'rowKey' | 'columns' | 'initialValues' | 'toolbar'
>;

interface PickedStudyTableProps<T extends object, F extends object> extends PassedProps<T, F> {
  /** The study picked on the page (picked-study.tsx); with none the list is empty. */
  studyId: number | null;
  /** False when the caller may not read the list: it is not asked for. */
  readable?: boolean;
  queryKey: (studyId: number) => QueryKey;
  fetchPage: (query: Paging & F & { studyId: number }) => Promise<Page<T>>;
}

/** The server-paged list of a page whose study is picked on it, asked for with that study's id. */
export function PickedStudyTable<T extends object, F extends object>({
  studyId,
  readable = true,
  queryKey,
  fetchPage,
  ...table
}: PickedStudyTableProps<T, F>) {
  return (
    <TablePage<T, F>
      // Another study starts from its first page, unfiltered.
      key={studyId}
      {...table}
      {...(studyId === null || !readable
        ? { rows: [] }
        : { queryKey: queryKey(studyId), fetchPage: (query: Paging & F) => fetchPage({ ...query, studyId }) })}
    />
  );
}

/** 新增 … on such a page: open to those who may change its content, once a study is picked. */
export function StudyAddButton({
  label,
  allowed,
  studyId,
  onClick,
}: {
  label: string;
  allowed: boolean;
  studyId: number | null;
  onClick: () => void;
}) {
  return (
    <Button type="primary" icon={<PlusOutlined />} disabled={!allowed || studyId === null} onClick={onClick}>
      {label}
    </Button>
  );
}

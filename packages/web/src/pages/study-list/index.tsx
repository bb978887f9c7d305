import { useQuery } from '@tanstack/react-query';
import { Button, Empty, Spin, type TableColumnsType } from 'antd';
import { useNavigate } from 'react-router';
import { studyApi, type StudySummary } from '../../api/study.api';
import { PagedTable } from '../../components/paged-table';
import { T } from '../../locales/zh-CN';
import { useAppStore } from '../../stores/app.store';
import { formatDate } from '../../utils/format-date';

function studyName(study: StudySummary): string {
  return study.studyName ?? study.name ?? String(study.id);
}

/** 项目列表 (SHELL-01): the studies the user takes part in. */
export default function StudyListPage() {
  const navigate = useNavigate();
  const setStudyName = useAppStore((s) => s.setStudyName);
  const { data, isLoading, isError } = useQuery({
    queryKey: ['study', 'open-list'],
    queryFn: async () => {
      const res = await studyApi.openList();
      return Array.isArray(res.data) ? res.data : (res.data?.list ?? []);
    },
  });

  const enter = (study: StudySummary) => {
    setStudyName(studyName(study));
    void navigate(`/project/${study.id}/home`);
  };

  const columns: TableColumnsType<StudySummary> = [
    {
      title: T.studyList.name,
      key: 'name',
      render: (_: unknown, study) => (
        <Button type="link" style={{ padding: 0 }} onClick={() => enter(study)}>
          {studyName(study)}
        </Button>
      ),
    },
    { title: T.common.createTime, dataIndex: 'createTime', width: 200, render: (value: string) => formatDate(value) },
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.studyList.title}</h2>
      {isLoading ? (
        <Spin />
      ) : isError || !data ? (
        <Empty description={T.studyList.empty} />
      ) : (
        <PagedTable<StudySummary>
          rowKey="id"
          columns={columns}
          rows={data}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={T.studyList.empty} /> }}
        />
      )}
    </div>
  );
}

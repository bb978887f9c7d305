import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { SearchOutlined } from '@ant-design/icons';
import { App, Button, Space } from 'antd';
import { queryKeys } from '../../../api/query-keys';
import { searchApi } from '../../../api/search.api';
import { RETRIEVAL_TEXT } from '../../../locales/retrieval.zh-CN';
import { useProjectStudy } from '../use-project-study';
import { columnValue, emptyDraft, fromConditions, toColumn, toConditions } from './search-draft';
import { DEFAULT_COLUMNS, useStoredSearch } from './use-stored-search';
import { ColumnPicker } from './components/column-picker';
import { ConditionGroups } from './components/condition-groups';
import { ExportButton } from './components/export-dialog';
import { SearchResults } from './components/search-results';
import { TemplateToolbar } from './components/template-toolbar';
import './retrieval.css';

const t = RETRIEVAL_TEXT;

/** 数据检索 (SRCH-01): a condition builder over patient fields, form items and form states, and a paged result. */
export default function RetrievalPage() {
  const { studyId } = useProjectStudy();
  const { message } = App.useApp();
  const { draft, setDraft, columns, setColumns, submitted, setSubmitted } = useStoredSearch(studyId);
  const [total, setTotal] = useState<number | null>(null);
  const [templateId, setTemplateId] = useState<number | undefined>();

  const dicsQuery = useQuery({
    queryKey: queryKeys.search.dics(studyId ?? 0),
    enabled: studyId !== null,
    queryFn: () => searchApi.dics(studyId!).then((res) => res.data),
  });
  const dics = dicsQuery.data;

  if (studyId === null) return null;

  const run = () => {
    if (!dics) return;
    const conditions = toConditions(dics, draft);
    if (typeof conditions === 'string') {
      void message.warning(conditions);
      return;
    }
    const chosenColumns = columns.map(toColumn);
    setSubmitted((s) => ({ conditions, columns: chosenColumns, run: (s?.run ?? 0) + 1 }));
  };
  const reset = () => {
    setDraft(emptyDraft());
    setColumns(DEFAULT_COLUMNS.map(columnValue));
    setSubmitted(null);
    setTotal(null);
    setTemplateId(undefined);
  };

  return (
    <div className="page-card retrieval">
      <div className="retrieval-head">
        <h2 className="page-title">{t.title}</h2>
        <TemplateToolbar
          studyId={studyId}
          dics={dics}
          draft={draft}
          columns={columns}
          templateId={templateId}
          onTemplateId={setTemplateId}
          onLoad={(template) => {
            setDraft(fromConditions(template.conditions));
            setColumns(template.columns.map(columnValue));
          }}
        >
          <ExportButton
            studyId={studyId}
            conditions={submitted?.conditions ?? null}
            total={submitted ? total : null}
            seesIdentifiers={Boolean(dics?.patientFields.some((f) => f.field === 'subjectName'))}
          />
        </TemplateToolbar>
      </div>

      <section aria-label={t.conditions} className="retrieval-builder">
        <ConditionGroups dics={dics} draft={draft} onChange={setDraft} />
        <ColumnPicker dics={dics} value={columns} onChange={setColumns} />
        <Space className="retrieval-actions">
          <Button type="primary" icon={<SearchOutlined aria-hidden />} onClick={run} disabled={!dics}>
            {t.search}
          </Button>
          <Button onClick={reset}>{t.reset}</Button>
        </Space>
      </section>

      <SearchResults studyId={studyId} dics={dics} submitted={submitted} total={total} onTotal={setTotal} />
    </div>
  );
}

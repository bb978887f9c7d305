import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Tag } from 'antd';
import { buttonKey, CONSULT_STATES, type ConsultState, type ConsultView } from '@ecrf/core';
import { consultApi } from '../../../api/consult.api';
import { queryKeys } from '../../../api/query-keys';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { CONSULT_TEXT } from '../../../locales/consult.zh-CN';
import { useRealtimeEvent } from '../../../realtime/realtime-events';
import { StudyPicker, usePickedStudy } from '../picked-study';
import { AddDialog, ConsultDialog } from './components/consult-dialogs';

const STATE_COLORS: Record<ConsultState, string> = { 0: 'orange', 1: 'green', 2: 'default' };
const STATE_OPTIONS = [
  { value: '', label: CONSULT_TEXT.all },
  ...CONSULT_STATES.map(([value, label]) => ({ value, label })),
];

interface Filters {
  state?: ConsultState;
  keyword?: string;
}

/**
 * 在线咨询 (/project/consult): the questions patients asked about a study, waiting ones first. 查看咨询 reads
 * them (a question is the patient's health information); 回复咨询, which includes it, answers, closes and enters a
 * question on a patient's behalf. The route has no study id: the study
 * is picked here, the one last opened first. The list reads again when a question is asked, answered or closed
 * elsewhere (personsignalhub `consult`).
 */
export default function ConsultPage() {
  const study = usePickedStudy();
  const chosen = study.studyId;
  const [open, setOpen] = useState<{ mode: 'view' | 'reply'; row: ConsultView } | null>(null);
  const [adding, setAdding] = useState(false);
  const { message } = App.useApp();
  const client = useQueryClient();

  const mayView = study.can(buttonKey('business.consult.view'));
  const mayReply = study.can(buttonKey('business.consult.reply'));
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.consult.list(chosen!) });
  useRealtimeEvent('consult', (push) => {
    if (push.studyId === chosen) void refresh();
  });

  const close = useMutation({
    mutationFn: (row: ConsultView) => consultApi.close(chosen!, row.id),
    onSuccess: () => {
      void message.success(CONSULT_TEXT.closed);
      void refresh();
    },
  });

  const columns: PageColumn<ConsultView>[] = [
    {
      title: CONSULT_TEXT.code,
      dataIndex: 'identificationCode',
      width: 120,
      search: { name: 'keyword', label: CONSULT_TEXT.keyword, width: 200 },
    },
    { title: CONSULT_TEXT.name, dataIndex: 'subjectName', width: 100 },
    { title: CONSULT_TEXT.consultTitle, dataIndex: 'title', minWidth: 240 },
    {
      title: CONSULT_TEXT.state,
      dataIndex: 'state',
      kind: 'status',
      search: { options: STATE_OPTIONS, width: 120 },
      // The filters keep the order they had: the state, then the words.
      searchOrder: -1,
      render: (value: ConsultState, row) => <Tag color={STATE_COLORS[value]}>{row.stateName}</Tag>,
    },
    {
      title: CONSULT_TEXT.source,
      dataIndex: 'source',
      width: 120,
      render: (value: ConsultView['source']) =>
        value === 'patient' ? CONSULT_TEXT.fromPatient : CONSULT_TEXT.fromStaff,
    },
    { title: CONSULT_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<ConsultView>([
      { key: 'view', label: CONSULT_TEXT.view, onClick: (row) => setOpen({ mode: 'view', row }) },
      {
        key: 'reply',
        label: CONSULT_TEXT.reply,
        allowed: mayReply,
        hidden: (row) => row.state === 2,
        onClick: (row) => setOpen({ mode: 'reply', row }),
      },
      {
        key: 'close',
        label: CONSULT_TEXT.close,
        allowed: mayReply,
        danger: true,
        hidden: (row) => row.state === 2,
        confirm: () => ({ title: CONSULT_TEXT.closeConfirm }),
        onClick: (row) => close.mutateAsync(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{CONSULT_TEXT.title}</h2>
      <StudyPicker study={study} label={CONSULT_TEXT.study} placeholder={CONSULT_TEXT.studyPlaceholder} />
      {chosen !== null && study.roleKnown && !mayView && <Alert type="info" showIcon title={CONSULT_TEXT.noView} />}
      {chosen !== null && mayView && (
        <TablePage<ConsultView, Filters>
          // Another study starts from its first page, unfiltered.
          key={chosen}
          name="consult-filter"
          rowKey="id"
          columns={columns}
          initialValues={{ state: '' }}
          queryKey={queryKeys.consult.list(chosen)}
          fetchPage={(query) => consultApi.list({ studyId: chosen, ...query }).then((res) => res.data)}
          toolbar={
            <Button disabled={!mayReply} onClick={() => setAdding(true)}>
              {CONSULT_TEXT.add}
            </Button>
          }
        />
      )}
      {open && chosen !== null && (
        <ConsultDialog
          studyId={chosen}
          mode={open.mode}
          row={open.row}
          onClose={() => setOpen(null)}
          onDone={() => {
            setOpen(null);
            void refresh();
          }}
        />
      )}
      {adding && chosen !== null && (
        <AddDialog
          studyId={chosen}
          onClose={() => setAdding(false)}
          onDone={() => {
            setAdding(false);
            void refresh();
          }}
        />
      )}
    </div>
  );
}

import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Input, Space, Spin, Table } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { missingCodesSchema, type MissingCode } from '@ecrf/core';
import { missingCodesApi, missingCodesKey } from '../../../../api/missing-codes.api';
import type { Study } from '../../../../api/study.api';
import { AuthButton, useAccess } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { MISSING_CODES_TEXT as t } from '../../../../locales/missing-codes.zh-CN';
import { Section } from './section';

interface Row extends MissingCode {
  /** A row's own key: a code being typed is no key. */
  key: number;
}

let nextKey = 0;
const rowsOf = (codes: readonly MissingCode[]): Row[] => codes.map((c) => ({ ...c, key: (nextKey += 1) }));

/**
 * 项目配置 · 缺失原因 (issue 37): the study's missing-data codes, edited as one list and saved whole (PUT, study:config).
 * The rules are core's (missingCodesSchema), checked here first so the data manager sees them before sending; a
 * code some record uses is refused by the server with the count.
 */
export function MissingCodesPanel({ study }: { study: Study }) {
  const query = useQuery({
    queryKey: missingCodesKey(study.id),
    queryFn: () => missingCodesApi.get(study.id).then((res) => res.data.codes),
  });
  return (
    <Section title={t.tab} hint={t.hint}>
      {query.data ? (
        // Saved codes read back start the list afresh.
        <MissingCodesEditor key={query.dataUpdatedAt} studyId={study.id} codes={query.data} />
      ) : (
        <Spin />
      )}
    </Section>
  );
}

function MissingCodesEditor({ studyId, codes }: { studyId: number; codes: readonly MissingCode[] }) {
  const canEdit = useAccess().can('study:config');
  const [rows, setRows] = useState<Row[]>(() => rowsOf(codes));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useListMutation({
    mutationFn: (next: MissingCode[]) => missingCodesApi.put(studyId, next),
    invalidate: [missingCodesKey(studyId)],
  });

  const change = (key: number, patch: Partial<MissingCode>) => {
    setProblem(null);
    setRows((list) => list.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  };
  const submit = () => {
    const checked = missingCodesSchema.safeParse(
      rows.map(({ code, label }) => ({ code: code.trim().toUpperCase(), label: label.trim() })),
    );
    if (!checked.success) {
      setProblem(checked.error.issues[0]?.message ?? null);
      return;
    }
    save.mutate(checked.data);
  };

  return (
    <>
      <Table<Row>
        rowKey="key"
        size="small"
        pagination={false}
        dataSource={rows}
        style={{ maxWidth: 560 }}
        columns={[
          {
            title: t.code,
            width: 160,
            render: (_, row, i) => (
              <Input
                value={row.code}
                maxLength={10}
                disabled={!canEdit}
                placeholder={t.codePlaceholder}
                aria-label={t.codeAria(i + 1)}
                onChange={(e) => change(row.key, { code: e.target.value.toUpperCase() })}
              />
            ),
          },
          {
            title: t.label,
            render: (_, row, i) => (
              <Input
                value={row.label}
                maxLength={20}
                disabled={!canEdit}
                placeholder={t.labelPlaceholder}
                aria-label={t.labelAria(i + 1)}
                onChange={(e) => change(row.key, { label: e.target.value })}
              />
            ),
          },
          {
            title: '',
            width: 56,
            render: (_, row, i) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                disabled={!canEdit}
                aria-label={t.removeAria(i + 1)}
                onClick={() => {
                  setProblem(null);
                  setRows((list) => list.filter((r) => r.key !== row.key));
                }}
              />
            ),
          },
        ]}
      />
      {problem && <Alert type="error" showIcon title={problem} style={{ maxWidth: 560, marginTop: 8 }} />}
      <Space style={{ marginTop: 12 }}>
        <Button
          icon={<PlusOutlined />}
          disabled={!canEdit}
          onClick={() => setRows((list) => [...list, { code: '', label: '', key: (nextKey += 1) }])}
        >
          {t.add}
        </Button>
        <AuthButton code="study:config" type="primary" loading={save.isPending} onClick={submit}>
          {t.save}
        </AuthButton>
      </Space>
    </>
  );
}

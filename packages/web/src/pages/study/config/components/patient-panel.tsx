import { useMemo, useState } from 'react';
import { useQueries, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { Checkbox, Input, Select, Table, type TableColumnsType } from 'antd';
import { crfApi, studyApi, type BaseConfigField, type CrfDetail, type Study } from '../../../../api/study.api';
import { AuthButton, useAccess } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_CONFIG_TEXT } from '../../../../locales/study-config.zh-CN';
import { displayColumnOptions } from '../../crf-items';
import { COMPUTED_FIELDS, LOCKED_FIELDS, normalizeBaseConfig, settleField } from '../base-config';
import { Section } from './section';
import { queryKeys } from '../../../../api/query-keys';

const PERM = 'study:config';

/** Kept outside the component so TanStack Query can keep the combined answer stable between renders. */
function combineDefinitions(results: ReadonlyArray<UseQueryResult<CrfDetail>>) {
  return {
    crfs: results.flatMap((result) => (result.data ? [result.data] : [])),
    loading: results.some((result) => result.isLoading),
  };
}

/** 保存 beside a section's title, for those with 项目配置, once something was changed. */
function SaveButton({ saving, edited, onSave }: { saving: boolean; edited: boolean; onSave: () => void }) {
  return (
    <AuthButton code={PERM} type="primary" loading={saving} disabled={!edited} onClick={onSave}>
      {COMMON_TEXT.save}
    </AuthButton>
  );
}

/** 患者基本信息: label, shown and required flags of the seven patient fields. */
function BaseConfigTable({ study }: { study: Study }) {
  const { can } = useAccess();
  const stored = useMemo(() => normalizeBaseConfig(study.baseConfig), [study.baseConfig]);
  const [edited, setEdited] = useState<BaseConfigField[] | null>(null);
  const [editedFor, setEditedFor] = useState(stored);
  if (editedFor !== stored) {
    setEditedFor(stored);
    setEdited(null);
  }
  const rows = edited ?? stored;
  const readOnly = !can(PERM);

  const change = (name: BaseConfigField['name'], patch: Partial<BaseConfigField>) =>
    setEdited(rows.map((row) => (row.name === name ? settleField({ ...row, ...patch }) : row)));

  const save = useListMutation({
    mutationFn: () =>
      studyApi.update({
        id: study.id,
        baseConfig: rows.map((row) => ({
          ...row,
          header: row.header.trim() || STUDY_CONFIG_TEXT.fieldLabels[row.name],
        })),
      }),
    invalidate: [queryKeys.study.all()],
  });

  /** 显示 or 必填: a field's flag as a checkbox, fixed for the fields `fixed` names. */
  const flagColumn = (
    flag: 'display' | 'required',
    title: string,
    fixed: (row: BaseConfigField) => boolean,
  ): TableColumnsType<BaseConfigField>[number] => ({
    title,
    dataIndex: flag,
    width: 90,
    align: 'center',
    render: (on: boolean, row: BaseConfigField) => (
      <Checkbox
        aria-label={`${title} ${row.name}`}
        checked={on}
        disabled={readOnly || fixed(row)}
        onChange={(event) => change(row.name, { [flag]: event.target.checked })}
      />
    ),
  });

  const columns: TableColumnsType<BaseConfigField> = [
    {
      title: STUDY_CONFIG_TEXT.fieldName,
      dataIndex: 'name',
      width: 200,
      render: (name: string) => <code>{name}</code>,
    },
    {
      title: STUDY_CONFIG_TEXT.header,
      dataIndex: 'header',
      width: 240,
      render: (header: string, row) => (
        <Input
          aria-label={`${STUDY_CONFIG_TEXT.header} ${row.name}`}
          value={header}
          maxLength={20}
          disabled={readOnly}
          onChange={(event) => change(row.name, { header: event.target.value })}
        />
      ),
    },
    flagColumn('display', STUDY_CONFIG_TEXT.display, (row) => LOCKED_FIELDS.has(row.name)),
    flagColumn(
      'required',
      STUDY_CONFIG_TEXT.required,
      (row) => LOCKED_FIELDS.has(row.name) || COMPUTED_FIELDS.has(row.name) || !row.display,
    ),
  ];

  return (
    <Section
      title={STUDY_CONFIG_TEXT.baseConfig}
      hint={STUDY_CONFIG_TEXT.baseConfigHint}
      extra={<SaveButton saving={save.isPending} edited={edited !== null} onSave={() => save.mutate()} />}
    >
      <Table<BaseConfigField>
        rowKey="name"
        size="middle"
        columns={columns}
        dataSource={rows}
        pagination={false}
        style={{ maxWidth: 720 }}
      />
    </Section>
  );
}

/** 患者列表显示列: CRF items shown as extra columns of the subject list. */
function DisplayColumns({ study }: { study: Study }) {
  const [picked, setPicked] = useState<string[] | null>(null);
  const [pickedFor, setPickedFor] = useState(study.displayCrfColumn);
  if (pickedFor !== study.displayCrfColumn) {
    setPickedFor(study.displayCrfColumn);
    setPicked(null);
  }
  const value = picked ?? study.displayCrfColumn ?? [];

  const crfList = useQuery({
    queryKey: queryKeys.crf.options(study.id),
    queryFn: () => crfApi.options(study.id).then((res) => res.data),
  });
  const definitions = useQueries({
    queries: (crfList.data ?? []).map((crf) => ({
      queryKey: queryKeys.crf.detail(crf.id),
      queryFn: () => crfApi.get(crf.id).then((res) => res.data),
    })),
    combine: combineDefinitions,
  });
  const loading = crfList.isLoading || definitions.loading;
  const options = useMemo(
    () => displayColumnOptions(definitions.crfs, study.displayCrfColumn ?? []),
    [definitions.crfs, study.displayCrfColumn],
  );

  const save = useListMutation({
    mutationFn: () => studyApi.update({ id: study.id, displayCrfColumn: value }),
    invalidate: [queryKeys.study.all()],
  });

  return (
    <Section
      title={STUDY_CONFIG_TEXT.displayColumns}
      hint={STUDY_CONFIG_TEXT.displayColumnsHint}
      extra={<SaveButton saving={save.isPending} edited={picked !== null} onSave={() => save.mutate()} />}
    >
      <Select
        mode="multiple"
        allowClear
        aria-label={STUDY_CONFIG_TEXT.displayColumns}
        style={{ width: '100%', maxWidth: 720 }}
        loading={loading}
        value={value}
        options={options}
        placeholder={STUDY_CONFIG_TEXT.displayColumnsPlaceholder}
        showSearch={{ optionFilterProp: 'label' }}
        onChange={(next: string[]) => setPicked(next)}
      />
    </Section>
  );
}

/** 患者信息: the patient dialog's fields and the subject list's extra columns. */
export function PatientPanel({ study }: { study: Study }) {
  return (
    <>
      <BaseConfigTable study={study} />
      <DisplayColumns study={study} />
    </>
  );
}

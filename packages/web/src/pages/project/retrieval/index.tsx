import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DeleteOutlined, PlusOutlined, SaveOutlined, SearchOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  Card,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Modal,
  Popconfirm,
  Radio,
  Select,
  Space,
  Switch,
  TreeSelect,
  type TableColumnsType,
} from 'antd';
import dayjs from 'dayjs';
import { Link } from 'react-router';
import { operatorLabel, searchColumnKey, SEARCH_JOINS, type SearchColumn, type SearchConditions } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { ApiError } from '../../../api/request';
import { searchApi, type SearchDics, type SearchRow } from '../../../api/search.api';
import { PagedTable } from '../../../components/paged-table';
import { EllipsisText } from '../../../components/table-page/ellipsis-text';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { RETRIEVAL_TEXT } from '../../../locales/retrieval.zh-CN';
import { useProjectStudy } from '../use-project-study';
import {
  arityOf,
  columnValue,
  emptyDraft,
  fieldInfo,
  fromConditions,
  newGroup,
  newRow,
  sameRowGroups,
  toColumn,
  toConditions,
  type Draft,
  type DraftGroup,
  type DraftRow,
} from './search-draft';
import { ExportButton } from './components/export-dialog';
import './retrieval.css';

const t = RETRIEVAL_TEXT;
const DATE = 'YYYY-MM-DD';
const JOIN_OPTIONS = SEARCH_JOINS.map((j) => ({ value: j.code, label: j.label }));
const DEFAULT_COLUMNS: SearchColumn[] = [
  { kind: 'patient', field: 'gender' },
  { kind: 'patient', field: 'age' },
];

/** The picker's tree: patient fields, then each form with its items and its form state. */
function fieldTree(dics: SearchDics) {
  return [
    {
      title: t.patientFields,
      value: 'patient',
      selectable: false,
      children: dics.patientFields.map((f) => ({ title: f.title, value: `p:${f.field}` })),
    },
    ...dics.crfs.map((crf) => ({
      title: crf.title,
      value: `crf:${crf.crfId}`,
      selectable: false,
      children: [
        { title: `${t.formStates}（${crf.title}）`, value: `s:${crf.crfId}` },
        // A list group's or table's column is named by its path: 用药记录 › 药物名称.
        ...crf.items.map((item) => ({
          title: item.unit ? `${item.path}（${item.unit}）` : item.path,
          value: `i:${crf.crfId}:${item.name}`,
        })),
      ],
    })),
  ];
}

function columnTree(dics: SearchDics) {
  return fieldTree(dics).map((node) => ({
    ...node,
    children: node.children.filter((c) => !c.value.startsWith('s:')),
  }));
}

interface Stored {
  draft: Draft;
  columns: string[];
  submitted: Submitted | null;
}
const storageKey = (studyId: number | null) => `retrieval:${studyId}`;
function readStored(studyId: number | null): Stored | null {
  try {
    const text = sessionStorage.getItem(storageKey(studyId));
    return text ? (JSON.parse(text) as Stored) : null;
  } catch {
    return null;
  }
}
function writeStored(studyId: number | null, value: Stored) {
  if (studyId === null) return;
  try {
    sessionStorage.setItem(storageKey(studyId), JSON.stringify(value));
  } catch {
    // A full or refused storage only loses the convenience of coming back to the search.
  }
}

interface Submitted {
  conditions: SearchConditions;
  columns: SearchColumn[];
  run: number;
}

/** 数据检索 (SRCH-01): a condition builder over patient fields, form items and form states, and a paged result. */
export default function RetrievalPage() {
  const { studyId } = useProjectStudy();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  // The search survives a visit to a casebook and back (kept for the browser tab's session, per study).
  const [stored] = useState(() => readStored(studyId));
  const [draft, setDraft] = useState<Draft>(() => stored?.draft ?? emptyDraft());
  const [columns, setColumns] = useState<string[]>(() => stored?.columns ?? DEFAULT_COLUMNS.map(columnValue));
  const [submitted, setSubmitted] = useState<Submitted | null>(() => stored?.submitted ?? null);
  useEffect(() => writeStored(studyId, { draft, columns, submitted }), [studyId, draft, columns, submitted]);
  const [total, setTotal] = useState<number | null>(null);
  const [templateId, setTemplateId] = useState<number | undefined>();
  const [saving, setSaving] = useState(false);
  const [templateForm] = Form.useForm<{ name: string; shared: boolean }>();

  const dicsQuery = useQuery({
    queryKey: queryKeys.search.dics(studyId ?? 0),
    enabled: studyId !== null,
    queryFn: () => searchApi.dics(studyId!).then((res) => res.data),
  });
  const templatesQuery = useQuery({
    queryKey: queryKeys.search.templates(studyId ?? 0),
    enabled: studyId !== null,
    queryFn: () => searchApi.templates(studyId!).then((res) => res.data),
  });
  const dics = dicsQuery.data;
  const templates = useMemo(() => templatesQuery.data ?? [], [templatesQuery.data]);
  const chosenTemplate = templates.find((x) => x.id === templateId);

  const tree = useMemo(() => (dics ? fieldTree(dics) : []), [dics]);
  const colTree = useMemo(() => (dics ? columnTree(dics) : []), [dics]);

  const saveTemplate = useMutation({
    mutationFn: (body: Parameters<typeof searchApi.saveTemplate>[0]) => searchApi.saveTemplate(body),
    onSuccess: async (res) => {
      message.success(t.saved);
      setSaving(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.search.templates(studyId!) });
      setTemplateId(res.data.id);
    },
  });
  const removeTemplate = useMutation({
    mutationFn: (id: number) => searchApi.removeTemplate(id),
    onSuccess: async () => {
      message.success(t.removed);
      setTemplateId(undefined);
      await queryClient.invalidateQueries({ queryKey: queryKeys.search.templates(studyId!) });
    },
  });

  if (studyId === null) return null;

  const update = (change: (d: Draft) => Draft) => setDraft((d) => change(d));
  const updateGroup = (key: number, change: (g: DraftGroup) => DraftGroup) =>
    update((d) => ({ ...d, groups: d.groups.map((g) => (g.key === key ? change(g) : g)) }));
  const updateRow = (groupKey: number, rowKey: number, change: (r: DraftRow) => DraftRow) =>
    updateGroup(groupKey, (g) => ({ ...g, rows: g.rows.map((r) => (r.key === rowKey ? change(r) : r)) }));

  const chosenColumns = columns.map(toColumn);
  const run = () => {
    if (!dics) return;
    const conditions = toConditions(dics, draft);
    if (typeof conditions === 'string') {
      void message.warning(conditions);
      return;
    }
    setSubmitted((s) => ({ conditions, columns: chosenColumns, run: (s?.run ?? 0) + 1 }));
  };
  const reset = () => {
    setDraft(emptyDraft());
    setColumns(DEFAULT_COLUMNS.map(columnValue));
    setSubmitted(null);
    setTotal(null);
    setTemplateId(undefined);
  };
  const load = (id: number) => {
    const template = templates.find((x) => x.id === id);
    if (!template) return;
    setTemplateId(id);
    setDraft(fromConditions(template.conditions));
    setColumns(template.columns.map(columnValue));
    void message.success(t.templateLoaded(template.name));
  };
  const openSave = () => {
    if (!dics) return;
    const conditions = toConditions(dics, draft);
    if (typeof conditions === 'string') {
      void message.warning(conditions);
      return;
    }
    templateForm.setFieldsValue({ name: '', shared: false });
    setSaving(true);
  };

  const titleOf = (column: SearchColumn) => {
    const info = dics ? fieldInfo(dics, columnValue(column)) : null;
    if (column.kind === 'patient') return info?.title ?? column.field;
    const crf = dics?.crfs.find((c) => c.crfId === column.crfId);
    return `${crf?.title ?? ''} · ${info?.title ?? column.itemName}`;
  };

  const resultColumns: TableColumnsType<SearchRow> = [
    {
      title: t.code,
      dataIndex: 'identificationCode',
      width: 140,
      render: (code: string, row) => <Link to={`/crf/${row.subjectRecordId}`}>{code}</Link>,
    },
    ...(submitted?.columns ?? []).map((column) => {
      const key = searchColumnKey(column);
      return {
        title: <EllipsisText text={titleOf(column)} />,
        key,
        width: column.kind === 'patient' ? 120 : 180,
        ellipsis: { showTitle: false },
        render: (_: unknown, row: SearchRow) => <EllipsisText text={row.cells[key] ?? ''} />,
      };
    }),
    {
      title: COMMON_TEXT.actions,
      key: 'actions',
      fixed: 'right',
      width: 110,
      render: (_: unknown, row) => <Link to={`/crf/${row.subjectRecordId}`}>{t.openCasebook}</Link>,
    },
  ];

  const valueInput = (group: DraftGroup, row: DraftRow) => {
    const info = dics ? fieldInfo(dics, row.field) : null;
    const arity = arityOf(row.operator);
    if (!info || !row.operator || arity === 0) return null;
    const set = (values: string[]) => updateRow(group.key, row.key, (r) => ({ ...r, values }));
    const label = `${info.title} ${t.value}`;
    if (info.kind === 'formState' || info.options.length > 0) {
      const many = arity === 'many';
      return (
        <Select
          aria-label={label}
          className="retrieval-value"
          mode={many ? 'multiple' : undefined}
          placeholder={COMMON_TEXT.selectPlaceholder}
          options={info.options}
          value={many ? row.values : row.values[0]}
          onChange={(v: string | string[] | undefined) => set(v === undefined ? [] : Array.isArray(v) ? v : [v])}
        />
      );
    }
    if (info.kind === 'date') {
      return arity === 2 ? (
        <DatePicker.RangePicker
          aria-label={label}
          placeholder={[t.valueFrom, t.valueTo]}
          value={row.values.length === 2 ? [dayjs(row.values[0]), dayjs(row.values[1])] : null}
          onChange={(range) => set(range?.[0] && range[1] ? [range[0].format(DATE), range[1].format(DATE)] : [])}
        />
      ) : (
        <DatePicker
          aria-label={label}
          value={row.values[0] ? dayjs(row.values[0]) : null}
          onChange={(d) => set(d ? [d.format(DATE)] : [])}
        />
      );
    }
    if (info.kind === 'number') {
      const num = (i: number, placeholder: string) => (
        <InputNumber
          aria-label={arity === 2 ? `${label} ${placeholder}` : label}
          placeholder={placeholder}
          suffix={info.unit || undefined}
          value={row.values[i] === undefined || row.values[i] === '' ? null : Number(row.values[i])}
          onChange={(v) => {
            const next = [...row.values];
            next[i] = v === null || v === undefined ? '' : String(v);
            set(next);
          }}
        />
      );
      const inputs =
        arity === 2 ? (
          <Space size={4}>
            {num(0, t.valueFrom)}
            <span aria-hidden>~</span>
            {num(1, t.valueTo)}
          </Space>
        ) : (
          num(0, t.valuePlaceholder)
        );
      // Values entered in another unit of the item's unit selector are converted to the first unit.
      return info.units.length > 1 ? (
        <Space size={4}>
          {inputs}
          <span className="retrieval-unit-hint">{t.unitHint(info.unit, info.units.slice(1))}</span>
        </Space>
      ) : (
        inputs
      );
    }
    return (
      <Input
        aria-label={label}
        className="retrieval-value"
        placeholder={t.valuePlaceholder}
        value={row.values[0] ?? ''}
        onChange={(e) => set([e.target.value])}
      />
    );
  };

  const conditionRow = (group: DraftGroup, row: DraftRow, index: number) => {
    const info = dics ? fieldInfo(dics, row.field) : null;
    const operators = info
      ? info.operators.map((code) => ({
          value: code,
          label: operatorLabel(info.kind === 'formState' ? 'choice' : info.kind, code),
        }))
      : [];
    return (
      <div className="retrieval-row" key={row.key} data-testid="retrieval-row">
        <TreeSelect
          aria-label={`${t.field} ${index + 1}`}
          className="retrieval-field"
          showSearch
          treeNodeFilterProp="title"
          placeholder={t.fieldPlaceholder}
          treeData={tree}
          value={row.field}
          popupMatchSelectWidth={false}
          onChange={(field: string) =>
            updateRow(group.key, row.key, () => ({ key: row.key, field, values: [], operator: undefined }))
          }
        />
        {info && info.stages.length > 0 && (
          <Select
            aria-label={`${t.stage} ${index + 1}`}
            className="retrieval-stage"
            allowClear
            placeholder={t.anyStage}
            options={info.stages.map((s) => ({ value: s.stageId, label: s.name }))}
            value={row.stageId}
            onChange={(stageId?: number) => updateRow(group.key, row.key, (r) => ({ ...r, stageId }))}
          />
        )}
        <Select
          aria-label={`${t.operator} ${index + 1}`}
          className="retrieval-operator"
          placeholder={t.operator}
          options={operators}
          value={row.operator}
          disabled={!info}
          onChange={(operator) => updateRow(group.key, row.key, (r) => ({ ...r, operator, values: [] }))}
        />
        {valueInput(group, row)}
        <Button
          type="text"
          aria-label={t.removeCondition}
          title={t.removeCondition}
          icon={<DeleteOutlined aria-hidden />}
          disabled={group.rows.length === 1 && draft.groups.length === 1}
          onClick={() =>
            update((d) => {
              const groups = d.groups
                .map((g) => (g.key === group.key ? { ...g, rows: g.rows.filter((r) => r.key !== row.key) } : g))
                .filter((g) => g.rows.length > 0);
              return { ...d, groups: groups.length > 0 ? groups : [newGroup()] };
            })
          }
        />
      </div>
    );
  };

  return (
    <div className="page-card retrieval">
      <div className="retrieval-head">
        <h2 className="page-title">{t.title}</h2>
        <Space wrap className="retrieval-toolbar">
          <Select
            aria-label={t.templates}
            className="retrieval-template"
            placeholder={t.templatePlaceholder}
            value={templateId}
            onChange={load}
            options={templates.map((x) => ({
              value: x.id,
              label: x.shared ? `${x.name}（${t.templateShared}）` : x.name,
              title: t.templateOwner(x.ownerName),
            }))}
          />
          {chosenTemplate?.canDelete && (
            <Popconfirm
              title={t.confirmRemoveTemplate(chosenTemplate.name)}
              onConfirm={() => removeTemplate.mutate(chosenTemplate.id)}
            >
              <Button icon={<DeleteOutlined aria-hidden />}>{t.removeTemplate}</Button>
            </Popconfirm>
          )}
          <Button icon={<SaveOutlined aria-hidden />} onClick={openSave} disabled={!dics}>
            {t.saveTemplate}
          </Button>
          <ExportButton
            studyId={studyId}
            conditions={submitted?.conditions ?? null}
            total={submitted ? total : null}
            seesIdentifiers={Boolean(dics?.patientFields.some((f) => f.field === 'subjectName'))}
          />
        </Space>
      </div>

      <section aria-label={t.conditions} className="retrieval-builder">
        {draft.groups.map((group, gi) => (
          <div key={group.key}>
            {gi > 0 && (
              <div className="retrieval-between">
                <span className="retrieval-join-label">{t.betweenGroups}</span>
                <Radio.Group
                  aria-label={t.betweenGroups}
                  optionType="button"
                  size="small"
                  options={JOIN_OPTIONS}
                  value={draft.join}
                  onChange={(e) => update((d) => ({ ...d, join: e.target.value }))}
                />
              </div>
            )}
            <Card
              size="small"
              className="retrieval-group"
              title={t.group(gi + 1)}
              extra={
                <Space>
                  <span className="retrieval-join-label">{t.withinGroup}</span>
                  <Radio.Group
                    aria-label={`${t.group(gi + 1)} ${t.withinGroup}`}
                    optionType="button"
                    size="small"
                    options={JOIN_OPTIONS}
                    value={group.join}
                    onChange={(e) => updateGroup(group.key, (g) => ({ ...g, join: e.target.value }))}
                  />
                  <Button
                    type="text"
                    size="small"
                    aria-label={`${t.removeGroup} ${gi + 1}`}
                    title={t.removeGroup}
                    icon={<DeleteOutlined aria-hidden />}
                    disabled={draft.groups.length === 1}
                    onClick={() => update((d) => ({ ...d, groups: d.groups.filter((g) => g.key !== group.key) }))}
                  />
                </Space>
              }
            >
              {group.rows.map((row, ri) => conditionRow(group, row, ri))}
              {dics &&
                sameRowGroups(dics, group).map((title) => (
                  <p key={title} className="retrieval-hint retrieval-same-row">
                    {t.sameRowHint(title)}
                  </p>
                ))}
              <Button
                type="dashed"
                size="small"
                icon={<PlusOutlined aria-hidden />}
                onClick={() => updateGroup(group.key, (g) => ({ ...g, rows: [...g.rows, newRow()] }))}
              >
                {t.addCondition}
              </Button>
            </Card>
          </div>
        ))}
        <Button
          type="dashed"
          icon={<PlusOutlined aria-hidden />}
          className="retrieval-add-group"
          onClick={() => update((d) => ({ ...d, groups: [...d.groups, newGroup()] }))}
        >
          {t.addGroup}
        </Button>
        <div className="retrieval-columns">
          <label htmlFor="retrieval-columns">{t.columns}</label>
          <TreeSelect
            id="retrieval-columns"
            aria-label={t.columns}
            className="retrieval-columns-picker"
            treeData={colTree}
            value={columns}
            onChange={(value: string[]) => setColumns(value)}
            multiple
            treeCheckable
            showSearch
            treeNodeFilterProp="title"
            maxTagCount="responsive"
            placeholder={t.columnsPlaceholder}
          />
        </div>
        <Space className="retrieval-actions">
          <Button type="primary" icon={<SearchOutlined aria-hidden />} onClick={run} disabled={!dics}>
            {t.search}
          </Button>
          <Button onClick={reset}>{t.reset}</Button>
        </Space>
      </section>

      <section aria-label={t.results} className="retrieval-results">
        <h3 className="retrieval-results-title">
          {t.results}
          {submitted && total !== null && <span className="retrieval-count">{t.found(total)}</span>}
        </h3>
        {submitted ? (
          <>
            {dics &&
              submitted.columns.some(
                (c) => c.kind === 'item' && dics.crfs.find((f) => f.crfId === c.crfId)?.repeatable,
              ) && <p className="retrieval-hint">{t.repeatHint(dics.recordSeparator)}</p>}
            {dics && submitted.columns.some((c) => c.kind === 'item' && fieldInfo(dics, columnValue(c))?.group) && (
              <p className="retrieval-hint">{t.rowHint(dics.rowSeparator)}</p>
            )}
            <PagedTable<SearchRow>
              rowKey="subjectRecordId"
              size="middle"
              tableLayout="fixed"
              columns={resultColumns}
              queryKey={queryKeys.search.results(studyId)}
              filters={submitted}
              fetchPage={async (paging) => {
                try {
                  const res = await searchApi.search({
                    studyId,
                    conditions: submitted.conditions,
                    columns: submitted.columns,
                    ...paging,
                  });
                  setTotal(res.data.total);
                  return res.data;
                } catch (err) {
                  setTotal(null);
                  if (!(err instanceof ApiError)) throw err;
                  return { list: [], total: 0 };
                }
              }}
            />
          </>
        ) : (
          <p className="retrieval-hint">{t.notRun}</p>
        )}
      </section>

      <Modal
        open={saving}
        title={t.saveTemplate}
        okText={COMMON_TEXT.save}
        confirmLoading={saveTemplate.isPending}
        onCancel={() => setSaving(false)}
        onOk={() => void templateForm.submit()}
        destroyOnHidden
      >
        <Form
          form={templateForm}
          layout="vertical"
          name="search-template"
          onFinish={(values) => {
            const conditions = dics ? toConditions(dics, draft) : null;
            if (!conditions || typeof conditions === 'string') return;
            saveTemplate.mutate({
              studyId,
              name: values.name,
              shared: values.shared,
              conditions,
              columns: chosenColumns,
            });
          }}
        >
          <Form.Item
            label={t.templateName}
            name="name"
            rules={[{ required: true, whitespace: true, message: t.templateNameRequired }, { max: 50 }]}
          >
            <Input maxLength={50} />
          </Form.Item>
          <Form.Item label={t.share} name="shared" valuePropName="checked">
            <Switch />
          </Form.Item>
        </Form>
      </Modal>
    </div>
  );
}

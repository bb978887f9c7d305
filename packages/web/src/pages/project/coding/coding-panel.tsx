import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Form, Input, Modal, Select, Space, Table, Tag, Tooltip, Upload } from 'antd';
import { CODING_KIND_NAMES, CODING_KINDS, CODING_LANGUAGES, CODING_STATES, codingApprovalRefusal } from '@ecrf/core';
import {
  codingApi,
  type CodedItemRow,
  type CodedItemSetting,
  type CodingKind,
  type CodingSearchHit,
  type CodingState,
} from '../../../api/coding.api';
import { crfApi } from '../../../api/study.api';
import { CODING_TEXT as t } from '../../../locales/coding.zh-CN';
import { useSession } from '../../../stores/session.store';
import { formatDate } from '../../../utils/format-date';
import { codingListColumns } from './coding-columns';
import './coding.css';

const PAGE_SIZE = 20;
const KEYS = {
  all: ['coding'] as const,
  dictionaries: (studyId: number) => ['coding', 'dictionaries', studyId] as const,
  settings: (studyId: number) => ['coding', 'settings', studyId] as const,
  list: (studyId: number, state: string, page: number) => ['coding', 'list', studyId, state, page] as const,
  search: (studyId: number, kind: string, q: string) => ['coding', 'search', studyId, kind, q] as const,
  impact: (studyId: number, dictionaryId: number) => ['coding', 'impact', studyId, dictionaryId] as const,
};
const kindOptions = CODING_KINDS.map((k) => ({ value: k, label: CODING_KIND_NAMES[k] }));

/** A coded item's codes in one line: LLT / PT / SOC with their codes, or the drug and its ATC. */
export function codingText(coding: Record<string, unknown> | null): string {
  if (!coding) return '';
  if (coding.kind === 'whodrug') {
    return `${String(coding.drugName)}（${String(coding.drugCode)}）· ATC ${String(coding.atcCode)}`;
  }
  return [
    `LLT ${String(coding.lltName)}（${String(coding.lltCode)}）`,
    `PT ${String(coding.ptName)}（${String(coding.ptCode)}）`,
    `SOC ${String(coding.socName)}（${String(coding.socCode)}）`,
  ].join(' / ');
}

/**
 * 医学编码 (issue 37): load the study's licensed dictionaries and see what an upgrade changes; name the coded items;
 * the coder's list by state, a search to code by hand, and approval of the selected rows by a holder of 编码审核
 * (`canApprove`) who did not code them.
 */
export function CodingPanel({ studyId, canApprove = false }: { studyId: number; canApprove?: boolean }) {
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <CodingList studyId={studyId} canApprove={canApprove} />
      <DictionaryCard studyId={studyId} />
      <SettingsCard studyId={studyId} />
    </Space>
  );
}

function DictionaryCard({ studyId }: { studyId: number }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ kind: CodingKind; version: string; language: string }>();
  const [files, setFiles] = useState<File[]>([]);
  const [impactOf, setImpactOf] = useState<number | null>(null);
  const dictionaries = useQuery({
    queryKey: KEYS.dictionaries(studyId),
    queryFn: () => codingApi.dictionaries(studyId).then((res) => res.data),
  });
  const impact = useQuery({
    queryKey: KEYS.impact(studyId, impactOf ?? 0),
    enabled: impactOf !== null,
    queryFn: () => codingApi.upgradeImpact(studyId, impactOf!).then((res) => res.data),
  });
  const upload = useMutation({
    mutationFn: (values: { kind: CodingKind; version: string; language: string }) =>
      codingApi.upload({ studyId, ...values }, files),
    onSuccess: () => {
      void message.success(t.loaded);
      setFiles([]);
      void queryClient.invalidateQueries({ queryKey: KEYS.all });
    },
  });
  return (
    <Card title={t.dictionaries} size="small">
      <Form
        form={form}
        layout="inline"
        name="coding-dictionary"
        initialValues={{ kind: 'meddra', language: 'zh' }}
        onFinish={(values) => upload.mutate(values)}
      >
        <Form.Item name="kind" label={t.kind}>
          <Select options={kindOptions} style={{ width: 120 }} />
        </Form.Item>
        <Form.Item name="version" label={t.version} rules={[{ required: true, message: t.version }]}>
          <Input style={{ width: 120 }} />
        </Form.Item>
        <Form.Item name="language" label={t.language}>
          <Select options={CODING_LANGUAGES.map((l) => ({ value: l, label: t.languages[l] }))} style={{ width: 90 }} />
        </Form.Item>
        <Form.Item label={t.files} extra={t.filesHint}>
          <Upload
            multiple
            fileList={files.map((f, i) => ({ uid: String(i), name: f.name }))}
            accept=".zip,.asc,.txt,.csv"
            beforeUpload={(file) => {
              setFiles((prev) => [...prev, file]);
              return false;
            }}
            onRemove={(removed) => setFiles((prev) => prev.filter((f) => f.name !== removed.name))}
          >
            <Button>{t.chooseFiles}</Button>
          </Upload>
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" disabled={files.length === 0} loading={upload.isPending}>
            {t.upload}
          </Button>
        </Form.Item>
      </Form>
      <Table
        size="small"
        rowKey="id"
        pagination={false}
        style={{ marginTop: 12 }}
        dataSource={dictionaries.data ?? []}
        columns={[
          { title: t.kind, dataIndex: 'kind', render: (k: CodingKind) => CODING_KIND_NAMES[k] },
          {
            title: t.version,
            dataIndex: 'version',
            render: (v: string, row) => (
              <>
                {v} {row.active && <Tag color="green">{t.active}</Tag>}
              </>
            ),
          },
          { title: t.language, dataIndex: 'language', render: (l: string) => t.languages[l] ?? l },
          { title: t.termCount, dataIndex: 'termCount' },
          { title: t.loadedAt, dataIndex: 'loadedAt', render: (d: string) => formatDate(d) },
          {
            title: t.actions,
            key: 'impact',
            render: (_, row) => (
              <Button type="link" size="small" onClick={() => setImpactOf(row.id)}>
                {t.upgradeImpact}
              </Button>
            ),
          },
        ]}
      />
      <Modal
        open={impactOf !== null}
        title={t.upgradeImpact}
        footer={null}
        onCancel={() => setImpactOf(null)}
        width={800}
      >
        <Table
          size="small"
          rowKey="codedItemId"
          pagination={false}
          loading={impact.isLoading}
          locale={{ emptyText: t.noImpact }}
          dataSource={impact.data ?? []}
          columns={[
            { title: t.verbatim, dataIndex: 'verbatim' },
            { title: t.state, dataIndex: 'reason', render: (r: string) => t.reasons[r] ?? r },
            { title: t.codes, dataIndex: 'before', render: (c: Record<string, unknown>) => codingText(c) },
          ]}
        />
      </Modal>
    </Card>
  );
}

function SettingsCard({ studyId }: { studyId: number }) {
  const { message } = App.useApp();
  const forms = useQuery({
    queryKey: ['coding', 'forms', studyId],
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  const saved = useQuery({
    queryKey: KEYS.settings(studyId),
    queryFn: () => codingApi.settings(studyId).then((res) => res.data),
  });
  const [draft, setDraft] = useState<CodedItemSetting[] | null>(null);
  const items = draft ?? saved.data ?? [];
  const save = useMutation({
    mutationFn: () => codingApi.saveSettings(studyId, items),
    onSuccess: () => {
      void message.success(t.settingsSaved);
      setDraft(null);
      void saved.refetch();
    },
  });
  const change = (index: number, patch: Partial<CodedItemSetting>) =>
    setDraft(items.map((item, i) => (i === index ? { ...item, ...patch } : item)));
  return (
    <Card title={t.settings} size="small" extra={t.settingsHint}>
      <Space direction="vertical" style={{ width: '100%' }}>
        {items.map((item, index) => (
          <Space key={index} data-testid="coded-item-row">
            <Select
              aria-label={t.form}
              style={{ width: 200 }}
              value={item.crfId || undefined}
              placeholder={t.form}
              options={(forms.data ?? []).map((f) => ({ value: f.id, label: f.title }))}
              onChange={(crfId: number) => change(index, { crfId })}
            />
            <Input
              aria-label={t.item}
              placeholder={t.item}
              style={{ width: 200 }}
              value={item.itemName}
              onChange={(e) => change(index, { itemName: e.target.value })}
            />
            <Select
              aria-label={t.kind}
              style={{ width: 120 }}
              value={item.kind}
              options={kindOptions}
              onChange={(kind: CodingKind) => change(index, { kind })}
            />
            <Button type="link" danger onClick={() => setDraft(items.filter((_, i) => i !== index))}>
              {t.remove}
            </Button>
          </Space>
        ))}
        <Space>
          <Button onClick={() => setDraft([...items, { crfId: 0, itemName: '', kind: 'meddra' }])}>{t.addItem}</Button>
          <Button
            type="primary"
            disabled={draft === null || items.some((i) => !i.crfId || !i.itemName.trim())}
            loading={save.isPending}
            onClick={() => save.mutate()}
          >
            {t.saveSettings}
          </Button>
        </Space>
      </Space>
    </Card>
  );
}

function CodingList({ studyId, canApprove }: { studyId: number; canApprove: boolean }) {
  const { message } = App.useApp();
  const userId = useSession((s) => s.user?.userId ?? 0);
  const queryClient = useQueryClient();
  const [state, setState] = useState<CodingState | ''>('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<number[]>([]);
  const [coding, setCoding] = useState<CodedItemRow | null>(null);
  const list = useQuery({
    queryKey: KEYS.list(studyId, state, page),
    queryFn: () =>
      codingApi
        .list({ studyId, state: state || undefined, pageNum: page, pageSize: PAGE_SIZE })
        .then((res) => res.data),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: KEYS.all });
  const approve = useMutation({
    mutationFn: () => codingApi.approve(studyId, selected),
    onSuccess: (res) => {
      void message.success(t.approved(res.data.approved));
      setSelected([]);
      refresh();
    },
  });
  return (
    <Card
      title={t.list}
      size="small"
      extra={
        <Space>
          <Select
            aria-label={t.state}
            style={{ width: 120 }}
            value={state}
            onChange={(v: CodingState | '') => {
              setState(v);
              setPage(1);
            }}
            options={[
              { value: '', label: t.allStates },
              ...CODING_STATES.map((s) => ({ value: s, label: t.states[s] })),
            ]}
          />
          {canApprove && (
            <Tooltip title={t.approveHint}>
              <Button
                type="primary"
                disabled={selected.length === 0}
                loading={approve.isPending}
                onClick={() => approve.mutate()}
              >
                {t.approveSelected}
              </Button>
            </Tooltip>
          )}
        </Space>
      }
    >
      <Table
        data-testid="coding-list"
        size="small"
        rowKey="id"
        loading={list.isLoading}
        dataSource={list.data?.list ?? []}
        scroll={{ x: 'max-content' }}
        rowSelection={
          canApprove
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys as number[]),
                // The server refuses the coder's own codes and uncoded rows (编码审核): they are not selectable.
                getCheckboxProps: (row) => ({ disabled: codingApprovalRefusal(row, userId) !== null }),
              }
            : undefined
        }
        pagination={{ current: page, pageSize: PAGE_SIZE, total: list.data?.total ?? 0, onChange: setPage }}
        columns={codingListColumns({
          title: t.actions,
          key: 'code',
          render: (_, row) =>
            row.kind && (
              <Button type="link" size="small" onClick={() => setCoding(row)}>
                {t.codeManually}
              </Button>
            ),
        })}
      />
      {coding && (
        <SearchDialog
          studyId={studyId}
          row={coding}
          onClose={() => setCoding(null)}
          onCoded={() => {
            void message.success(t.coded);
            setCoding(null);
            refresh();
          }}
        />
      )}
    </Card>
  );
}

function SearchDialog({
  studyId,
  row,
  onClose,
  onCoded,
}: {
  studyId: number;
  row: CodedItemRow;
  onClose: () => void;
  onCoded: () => void;
}) {
  const kind = row.kind!;
  const [q, setQ] = useState(row.verbatim);
  const hits = useQuery({
    queryKey: KEYS.search(studyId, kind, q),
    enabled: q.trim() !== '',
    queryFn: () => codingApi.search(studyId, kind, q).then((res) => res.data),
  });
  const code = useMutation({
    mutationFn: (termCode: string) => codingApi.code(studyId, row.id, termCode),
    onSuccess: onCoded,
  });
  return (
    <Modal open title={t.searchTitle(row.verbatim)} footer={null} onCancel={onClose} width={900}>
      <Input.Search
        aria-label={t.searchPlaceholder}
        placeholder={t.searchPlaceholder}
        defaultValue={row.verbatim}
        onSearch={(value) => setQ(value)}
        allowClear
      />
      <Table<CodingSearchHit>
        data-testid="coding-hits"
        size="small"
        rowKey={(h) => `${h.code}:${h.name}`}
        pagination={false}
        loading={hits.isFetching}
        style={{ marginTop: 12 }}
        dataSource={hits.data ?? []}
        columns={[
          {
            title: t.codes,
            dataIndex: 'name',
            render: (name: string, h) => (
              <>
                {name}（{h.code}）{!h.current && <Tag>{t.notCurrent}</Tag>}
              </>
            ),
          },
          { title: 'PT / SOC / ATC', dataIndex: 'path', render: (p: Record<string, unknown>) => codingText(p) },
          {
            title: t.actions,
            key: 'choose',
            render: (_, h) => (
              <Button type="link" size="small" loading={code.isPending} onClick={() => code.mutate(h.code)}>
                {t.choose}
              </Button>
            ),
          },
        ]}
      />
    </Modal>
  );
}

import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, DatePicker, Form, Input, InputNumber, Modal, Select, Space, Table } from 'antd';
import { DownloadOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { labRangesApi, labRangesKey, type LabRange, type LabRangeFields } from '../../../../api/lab-ranges.api';
import type { Study } from '../../../../api/study.api';
import { useListMutation } from '../../../../components/table-page';
import { LAB_RANGES_TEXT as t } from '../../../../locales/lab-ranges.zh-CN';
import { useSession } from '../../../../stores/session.store';
import { saveDownload } from '../../../../utils/download';
import { canInStudy } from '../../../project/study-access';
import { LabRangesImport } from './lab-ranges-import';
import { Section } from './section';

const sexText = (sex: 1 | 2 | null) => (sex === 1 ? t.sexMale : sex === 2 ? t.sexFemale : t.sexBoth);

interface FormValues extends Omit<LabRangeFields, 'effectiveFrom' | 'sex'> {
  sex: 0 | 1 | 2;
  effectiveFrom: Dayjs;
  reason?: string;
}

/**
 * 项目配置 · 参考范围 (issue 37): the sites' laboratory ranges, for holders of 参考范围 (btn:business.labRanges). The
 * server keeps a member to their own sites (the list answers the sites they may load); a change or deletion names
 * its reason for the trail.
 */
export function LabRangesPanel({ study }: { study: Study }) {
  const permissions = useSession((s) => s.permissions);
  const allowed = canInStudy({ permissions, myRole: study.myRole }, 'business.labRanges');
  const [site, setSite] = useState<number | undefined>();
  const [analyte, setAnalyte] = useState('');
  const [editing, setEditing] = useState<LabRange | 'new' | null>(null);
  const [removing, setRemoving] = useState<LabRange | null>(null);
  const [importing, setImporting] = useState(false);
  const query = useQuery({
    queryKey: labRangesKey(study.id),
    queryFn: () => labRangesApi.list(study.id).then((res) => res.data),
    enabled: allowed,
  });
  if (!allowed) {
    return (
      <Section title={t.tab} hint={t.noAccess}>
        {null}
      </Section>
    );
  }
  const sites = query.data?.sites ?? [];
  const rows = (query.data?.list ?? []).filter(
    (r) => (site === undefined || r.siteId === site) && r.analyte.toUpperCase().includes(analyte.trim().toUpperCase()),
  );
  return (
    <Section title={t.tab} hint={t.hint}>
      <Space wrap style={{ marginBottom: 12 }}>
        <Select
          allowClear
          aria-label={t.site}
          placeholder={t.allSites}
          style={{ width: 180 }}
          value={site}
          onChange={setSite}
          options={sites.map((s) => ({ value: s.deptId, label: s.deptName }))}
        />
        <Input.Search
          allowClear
          aria-label={t.analyteFilter}
          placeholder={t.analyteFilter}
          style={{ width: 200 }}
          onChange={(e) => setAnalyte(e.target.value)}
        />
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>
          {t.add}
        </Button>
        <Button icon={<UploadOutlined />} onClick={() => setImporting(true)}>
          {t.importFile}
        </Button>
        <Button
          icon={<DownloadOutlined />}
          onClick={async () => saveDownload(await labRangesApi.template(study.id), t.templateFile)}
        >
          {t.template}
        </Button>
      </Space>
      <Table<LabRange>
        rowKey="id"
        size="small"
        loading={query.isLoading}
        dataSource={rows}
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        columns={[
          { title: t.site, dataIndex: 'siteName' },
          { title: t.analyte, dataIndex: 'analyte' },
          { title: t.analyteName, dataIndex: 'analyteName' },
          { title: t.unit, dataIndex: 'unit' },
          { title: t.sex, render: (_, r) => sexText(r.sex) },
          { title: t.age, render: (_, r) => t.ageBand(r.ageMin, r.ageMax) },
          { title: t.lower, dataIndex: 'lower' },
          { title: t.upper, dataIndex: 'upper' },
          { title: t.effectiveFrom, dataIndex: 'effectiveFrom' },
          {
            title: t.actions,
            render: (_, r) => (
              <Space size={0}>
                <Button type="link" size="small" aria-label={t.editAria(r.analyte)} onClick={() => setEditing(r)}>
                  {t.edit}
                </Button>
                <Button
                  type="link"
                  size="small"
                  danger
                  aria-label={t.removeAria(r.analyte)}
                  onClick={() => setRemoving(r)}
                >
                  {t.remove}
                </Button>
              </Space>
            ),
          },
        ]}
      />
      {editing && <RangeDialog studyId={study.id} sites={sites} range={editing} onClose={() => setEditing(null)} />}
      {removing && <RemoveDialog studyId={study.id} range={removing} onClose={() => setRemoving(null)} />}
      {importing && <LabRangesImport studyId={study.id} onClose={() => setImporting(false)} />}
    </Section>
  );
}

function RangeDialog({
  studyId,
  sites,
  range,
  onClose,
}: {
  studyId: number;
  sites: ReadonlyArray<{ deptId: number; deptName: string }>;
  range: LabRange | 'new';
  onClose: () => void;
}) {
  const [form] = Form.useForm<FormValues>();
  const editing = range !== 'new';
  const save = useListMutation({
    mutationFn: (v: FormValues) => {
      const body: LabRangeFields = {
        siteId: v.siteId,
        analyte: v.analyte.trim(),
        analyteName: v.analyteName || null,
        unit: v.unit || null,
        sex: v.sex === 0 ? null : v.sex,
        ageMin: v.ageMin ?? null,
        ageMax: v.ageMax ?? null,
        lower: v.lower ?? null,
        upper: v.upper ?? null,
        effectiveFrom: v.effectiveFrom.format('YYYY-MM-DD'),
      };
      return editing
        ? labRangesApi.update(studyId, range.id, { ...body, reason: v.reason ?? '' })
        : labRangesApi.create(studyId, body);
    },
    invalidate: [labRangesKey(studyId)],
    onSuccess: onClose,
  });
  const initial: Partial<FormValues> = editing
    ? { ...range, sex: range.sex ?? 0, effectiveFrom: dayjs(range.effectiveFrom) }
    : { sex: 0, siteId: sites.length === 1 ? sites[0]!.deptId : undefined };
  const required = [{ required: true, message: t.required }];
  return (
    <Modal
      open
      title={editing ? t.editTitle : t.addTitle}
      onCancel={onClose}
      confirmLoading={save.isPending}
      onOk={() => void form.validateFields().then((v) => save.mutate(v))}
    >
      <Form form={form} layout="vertical" initialValues={initial}>
        <Form.Item name="siteId" label={t.site} rules={required}>
          <Select options={sites.map((s) => ({ value: s.deptId, label: s.deptName }))} />
        </Form.Item>
        <Space wrap>
          <Form.Item name="analyte" label={t.analyte} rules={required}>
            <Input maxLength={40} />
          </Form.Item>
          <Form.Item name="analyteName" label={t.analyteName}>
            <Input maxLength={100} />
          </Form.Item>
          <Form.Item name="unit" label={t.unit}>
            <Input maxLength={30} />
          </Form.Item>
        </Space>
        <Space wrap>
          <Form.Item name="sex" label={t.sex}>
            <Select
              style={{ width: 100 }}
              options={[
                { value: 0, label: t.sexBoth },
                { value: 1, label: t.sexMale },
                { value: 2, label: t.sexFemale },
              ]}
            />
          </Form.Item>
          <Form.Item name="ageMin" label={t.ageMin}>
            <InputNumber min={0} />
          </Form.Item>
          <Form.Item name="ageMax" label={t.ageMax}>
            <InputNumber min={0} />
          </Form.Item>
        </Space>
        <Space wrap>
          <Form.Item name="lower" label={t.lower}>
            <InputNumber />
          </Form.Item>
          <Form.Item name="upper" label={t.upper}>
            <InputNumber />
          </Form.Item>
          <Form.Item name="effectiveFrom" label={t.effectiveFrom} rules={required}>
            <DatePicker />
          </Form.Item>
        </Space>
        {editing && (
          <Form.Item
            name="reason"
            label={t.reason}
            rules={[{ required: true, whitespace: true, message: t.reasonRequired }]}
          >
            <Input.TextArea maxLength={200} placeholder={t.reasonPlaceholder} />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}

function RemoveDialog({ studyId, range, onClose }: { studyId: number; range: LabRange; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const remove = useListMutation({
    mutationFn: () => labRangesApi.remove(studyId, range.id, reason.trim()),
    invalidate: [labRangesKey(studyId)],
    onSuccess: onClose,
  });
  return (
    <Modal
      open
      title={`${t.removeTitle}：${range.siteName} ${range.analyte}`}
      onCancel={onClose}
      okButtonProps={{ danger: true, disabled: reason.trim() === '' }}
      confirmLoading={remove.isPending}
      onOk={() => remove.mutate()}
    >
      <Input.TextArea
        aria-label={t.reason}
        maxLength={200}
        placeholder={t.removeReasonPlaceholder}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
      />
    </Modal>
  );
}

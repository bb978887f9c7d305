import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Dropdown, Form, Input, Popconfirm, Space, Tag, Upload, type TableColumnsType } from 'antd';
import { DownloadOutlined, DownOutlined, UploadOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import {
  crfApi,
  type CrfExistingChoice,
  type CrfExportFormat,
  type CrfRow,
  type CrfUploadChoices,
  type Study,
} from '../../../api/study.api';
import { PagedTable } from '../../../components/paged-table';
import { Auth, AuthButton } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { StudyScope } from '../components/study-scope';
import { CrfPreviewDialog, type CrfPreviewTarget } from './components/crf-preview-dialog';
import { CrfUploadPlanDialog } from './components/crf-upload-plan-dialog';
import { CrfUploadResultDialog } from './components/crf-upload-result-dialog';
import { CrfVersionsDialog, type CrfVersionsTarget } from './components/crf-versions-dialog';
import { saveDownload } from './download';
import {
  needsDialog,
  outcomeOfFailure,
  outcomeOfSingle,
  outcomesOfMulti,
  titlesToChoose,
  type PlannedFile,
  type UploadOutcome,
} from './upload-outcome';
import '../study.css';
import { FilterButtons } from '../../../components/filter-buttons';

/** The files the upload accepts (docs/api.md): native JSON, the Excel template, a REDCap dictionary, CDISC ODM. */
export const CRF_FILE_TYPES = '.json,.xlsx,.csv,.xml';

const EXPORT_EXTENSIONS: Record<CrfExportFormat, string> = { json: 'json', excel: 'xlsx', odm: 'xml', redcap: 'csv' };

export function sourceLabel(source: string): string {
  return T.studyCrf.sources[source?.toLowerCase()] ?? source ?? '';
}

interface Filters {
  title?: string;
}

function StudyCrfs({ study }: { study: Study }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [outcomes, setOutcomes] = useState<UploadOutcome[] | null>(null);
  const [preview, setPreview] = useState<CrfPreviewTarget | null>(null);
  const [versions, setVersions] = useState<CrfVersionsTarget | null>(null);

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['crf'] });
    void queryClient.invalidateQueries({ queryKey: ['study-role', 'tree'] });
  };

  const [planned, setPlanned] = useState<{ files: PlannedFile[]; refused: UploadOutcome[] } | null>(null);

  const send = async (files: readonly File[], choices: CrfUploadChoices): Promise<UploadOutcome[]> => {
    if (files.length === 1) {
      const [file] = files as [File];
      try {
        return [outcomeOfSingle(file.name, await crfApi.upload(study.id, file, choices))];
      } catch (error) {
        return [outcomeOfFailure(file.name, error)];
      }
    }
    return outcomesOfMulti((await crfApi.uploadMany(study.id, files, choices)).data);
  };

  const report = (result: UploadOutcome[]) => {
    if (result.some((o) => o.ok)) refresh();
    if (needsDialog(result)) {
      setOutcomes(result);
    } else {
      const forms = result.flatMap((o) => o.crfs.map((crf) => T.studyCrf.importedForm(crf.title, crf.version)));
      void message.success(`${T.studyCrf.imported}：${forms.join('、')}`);
    }
  };

  const upload = useMutation({
    mutationFn: async (job: {
      files: File[];
      choices: Record<string, CrfExistingChoice>;
      refused: UploadOutcome[];
    }) => [...job.refused, ...(await send(job.files, { onExisting: job.choices }))],
    onSuccess: report,
    onError: (error) => void message.error(error.message || MSG.failed),
  });

  /** First a dry run: files refused are reported; forms sharing a title with a CRF wait for the user's choice. */
  const check = useMutation({
    mutationFn: async (files: File[]) => ({ files, checked: await send(files, { dryRun: true }) }),
    onSuccess: ({ files, checked }) => {
      const refused = checked.filter((o) => !o.ok);
      const accepted = files
        .map((file, i) => ({ file, plan: checked[i]?.ok ? (checked[i]!.plan ?? []) : null }))
        .filter((f): f is PlannedFile => f.plan !== null);
      if (accepted.length === 0) return report(refused);
      if (titlesToChoose(accepted).length > 0) return setPlanned({ files: accepted, refused });
      upload.mutate({ files: accepted.map((f) => f.file), choices: {}, refused });
    },
    onError: (error) => void message.error(error.message || MSG.failed),
  });
  const busy = check.isPending || upload.isPending;

  const remove = useMutation({
    mutationFn: (crfId: number) => crfApi.remove(study.id, crfId),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      refresh();
    },
  });

  const exportCrf = async (crf: { id: number; title: string }, format: CrfExportFormat, version?: number) => {
    try {
      const response = await crfApi.export(crf.id, format, version);
      saveDownload(response, `${crf.title}${version ? `_v${version}` : ''}.${EXPORT_EXTENSIONS[format]}`);
    } catch {
      // The request wrapper has shown why.
    }
  };

  const downloadTemplate = async () => {
    try {
      saveDownload(await crfApi.template(), T.studyCrf.templateFile);
    } catch {
      // The request wrapper has shown why.
    }
  };

  const columns: TableColumnsType<CrfRow> = [
    {
      title: T.studyCrf.formTitle,
      dataIndex: 'title',
      width: 220,
      render: (title: string, crf) => (
        <Button type="link" style={{ padding: 0 }} onClick={() => setPreview({ crfId: crf.id, title })}>
          {title}
        </Button>
      ),
    },
    {
      title: T.studyCrf.version,
      dataIndex: 'version',
      width: 100,
      render: (version: number) => T.studyCrf.versionOf(version),
    },
    { title: T.studyCrf.itemCount, dataIndex: 'itemCount', width: 90, align: 'center' },
    { title: T.studyCrf.source, dataIndex: 'source', width: 90, render: sourceLabel },
    {
      title: T.studyCrf.hasData,
      dataIndex: 'hasData',
      width: 90,
      render: (hasData: boolean) => (hasData ? <Tag color="orange">{T.common.yes}</Tag> : <Tag>{T.common.no}</Tag>),
    },
    { title: T.studyCrf.creater, dataIndex: 'creater', width: 110 },
    {
      title: T.studyCrf.updateTime,
      key: 'time',
      width: 180,
      render: (_: unknown, crf) => formatDate(crf.updateTime ?? crf.createTime),
    },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 260,
      render: (_: unknown, crf) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setPreview({ crfId: crf.id, title: crf.title })}>
            {T.studyCrf.preview}
          </Button>
          <Button type="link" size="small" onClick={() => setVersions({ crfId: crf.id, title: crf.title })}>
            {T.studyCrf.versions}
          </Button>
          <Dropdown
            trigger={['click']}
            menu={{
              items: [
                { key: 'json', label: T.studyCrf.exportJson },
                { key: 'excel', label: T.studyCrf.exportExcel },
                { key: 'odm', label: T.studyCrf.exportOdm },
                { key: 'redcap', label: T.studyCrf.exportRedcap },
              ],
              onClick: ({ key }) => void exportCrf(crf, key as CrfExportFormat),
            }}
          >
            <Button type="link" size="small">
              {T.studyCrf.export} <DownOutlined aria-hidden style={{ fontSize: 10 }} />
            </Button>
          </Dropdown>
          <Auth
            code="study:crf"
            fallback={
              <AuthButton code="study:crf" type="link" size="small" danger>
                {T.common.remove}
              </AuthButton>
            }
          >
            <Popconfirm
              title={T.studyCrf.confirmRemove(crf.title)}
              description={T.studyCrf.removeHint}
              onConfirm={() => remove.mutateAsync(crf.id).catch(() => undefined)}
            >
              <Button type="link" size="small" danger>
                {T.common.remove}
              </Button>
            </Popconfirm>
          </Auth>
        </Space>
      ),
    },
  ];

  const uploadButton = (
    <AuthButton code="study:crf" type="primary" icon={<UploadOutlined aria-hidden />} loading={busy}>
      {busy ? T.studyCrf.uploading : T.studyCrf.upload}
    </AuthButton>
  );

  return (
    <>
      <Form
        form={filterForm}
        name="crf-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(compact(values))}
      >
        <Form.Item label={T.studyCrf.searchTitle} name="title">
          <Input allowClear placeholder={T.studyCrf.searchTitle} style={{ width: 200 }} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar" style={{ alignItems: 'center' }}>
        <Auth code="study:crf" fallback={uploadButton}>
          <Upload
            multiple
            accept={CRF_FILE_TYPES}
            showUploadList={false}
            disabled={busy}
            beforeUpload={(file, batch) => {
              // antd asks once per file; the batch goes out together, after its last file.
              if (file.uid === batch[batch.length - 1]?.uid) check.mutate(batch);
              return Upload.LIST_IGNORE;
            }}
          >
            {uploadButton}
          </Upload>
        </Auth>
        <Button icon={<DownloadOutlined aria-hidden />} onClick={() => void downloadTemplate()}>
          {T.studyCrf.template}
        </Button>
        <span className="study-section-hint" style={{ margin: 0 }}>
          {T.studyCrf.uploadHint}
        </span>
      </div>
      <PagedTable<CrfRow>
        rowKey="id"
        columns={columns}
        queryKey={['crf', 'page', study.id]}
        filters={filters}
        fetchPage={(paging) => crfApi.page({ ...paging, ...filters, studyId: study.id }).then((res) => res.data)}
      />
      <CrfUploadResultDialog outcomes={outcomes} onClose={() => setOutcomes(null)} />
      <CrfUploadPlanDialog
        files={planned?.files ?? null}
        onCancel={() => {
          if (planned && planned.refused.length > 0) setOutcomes(planned.refused);
          setPlanned(null);
        }}
        onConfirm={(choices) => {
          if (planned) upload.mutate({ files: planned.files.map((f) => f.file), choices, refused: planned.refused });
          setPlanned(null);
        }}
      />
      <CrfPreviewDialog target={preview} onClose={() => setPreview(null)} />
      <CrfVersionsDialog
        target={versions}
        sourceLabel={sourceLabel}
        onPreview={(version) => versions && setPreview({ ...versions, version })}
        onExport={(version) =>
          versions && void exportCrf({ id: versions.crfId, title: versions.title }, 'json', version)
        }
        onClose={() => setVersions(null)}
      />
    </>
  );
}

/** CRF管理 (STUDY-03, STUDY-17, STUDY-18): a study's CRF files, their versions, upload and export. */
export default function StudyCrfPage() {
  return <StudyScope title={T.studyCrf.title}>{(study) => <StudyCrfs study={study} />}</StudyScope>;
}

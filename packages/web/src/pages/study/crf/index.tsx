import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Tag, Upload } from 'antd';
import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import {
  crfApi,
  type CrfExistingChoice,
  type CrfExportFormat,
  type CrfUploadChoices,
  type Study,
} from '../../../api/study.api';
import { Auth, AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { DATA_IMPORT_TEXT } from '../../../locales/data-import.zh-CN';
import { STUDY_CRF_TEXT } from '../../../locales/study-crf.zh-CN';
import { DOUBLE_ENTRY_TEXT } from '../../../locales/double-entry.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { StudyScope } from '../components/study-scope';
import { CrfPreviewDialog, type CrfPreviewTarget } from './components/crf-preview-dialog';
import { CrfUploadPlanDialog } from './components/crf-upload-plan-dialog';
import { CrfUploadResultDialog } from './components/crf-upload-result-dialog';
import { CrfVersionsDialog, type CrfVersionsTarget } from './components/crf-versions-dialog';
import { DoubleEntrySwitch } from './components/double-entry-switch';
import { saveDownload } from '../../../utils/download';
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
import { dataImportApi } from '../../../api/data-import.api';
import { queryKeys } from '../../../api/query-keys';
import { AMENDMENT_TEXT } from '../../../locales/amendment.zh-CN';
import { splitForDrafts, type CrfDraftRow } from '../amendment/amendment-state';
import { useCrfDrafts } from './use-crf-drafts';

/** The files the upload accepts (docs/api.md): native JSON, the Excel template, a REDCap dictionary, CDISC ODM. */
export const CRF_FILE_TYPES = '.json,.xlsx,.csv,.xml';

const EXPORT_EXTENSIONS: Record<CrfExportFormat, string> = { json: 'json', excel: 'xlsx', odm: 'xml', redcap: 'csv' };

export function sourceLabel(source: string): string {
  return STUDY_CRF_TEXT.sources[source?.toLowerCase()] ?? source ?? '';
}

interface Filters {
  title?: string;
}

function StudyCrfs({ study }: { study: Study }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [outcomes, setOutcomes] = useState<UploadOutcome[] | null>(null);
  const [preview, setPreview] = useState<CrfPreviewTarget | null>(null);
  const [versions, setVersions] = useState<CrfVersionsTarget | null>(null);
  // A production study puts new versions of its CRFs into drafts (issue 36); a study in 测试 publishes them.
  const drafts = useCrfDrafts(study, setOutcomes);

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.crf.all() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.studyRole.trees() });
  };

  const [planned, setPlanned] = useState<{ files: PlannedFile[]; refused: UploadOutcome[] } | null>(null);

  const send = async (files: readonly File[], choices: CrfUploadChoices): Promise<UploadOutcome[]> => {
    if (files.length === 0) return [];
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
      const forms = result.flatMap((o) =>
        o.crfs.map((crf) =>
          o.draft
            ? AMENDMENT_TEXT.draftForm(crf.title, crf.version)
            : STUDY_CRF_TEXT.importedForm(crf.title, crf.version),
        ),
      );
      void message.success(`${STUDY_CRF_TEXT.imported}：${forms.join('、')}`);
    }
  };

  const upload = useMutation({
    mutationFn: async (job: {
      files: PlannedFile[];
      choices: Record<string, CrfExistingChoice>;
      refused: UploadOutcome[];
    }) => {
      if (!drafts.production) {
        return [
          ...job.refused,
          ...(await send(
            job.files.map((f) => f.file),
            { onExisting: job.choices },
          )),
        ];
      }
      // A production study: new versions of existing CRFs go into their drafts; new CRFs are created as before.
      const split = splitForDrafts(job.files, job.choices);
      const published = await send(split.publish, { onExisting: job.choices });
      const drafted = (await send(split.draft, { draft: true })).map((o) => ({ ...o, draft: true }));
      return [...job.refused, ...split.refused, ...published, ...drafted];
    },
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
      upload.mutate({ files: accepted, choices: {}, refused });
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

  /** The data import template (one sheet per CRF the user may edit), also offered in the patient list's 导入. */
  const downloadDataTemplate = async () => {
    try {
      saveDownload(await dataImportApi.template(study.id), `数据导入模板-${study.id}.xlsx`);
    } catch {
      // The request wrapper has shown why.
    }
  };

  const downloadTemplate = async () => {
    try {
      saveDownload(await crfApi.template(), STUDY_CRF_TEXT.templateFile);
    } catch {
      // The request wrapper has shown why.
    }
  };

  const columns: PageColumn<CrfDraftRow>[] = [
    {
      title: STUDY_CRF_TEXT.formTitle,
      dataIndex: 'title',
      minWidth: 160,
      text: (crf) => crf.title,
      search: { label: STUDY_CRF_TEXT.searchTitle, width: 200 },
      render: (title: string, crf) => (
        <Button type="link" className="cell-link" onClick={() => setPreview({ crfId: crf.id, title })}>
          {title}
        </Button>
      ),
    },
    {
      title: STUDY_CRF_TEXT.version,
      dataIndex: 'version',
      kind: 'status',
      width: 80,
      render: (_: number, crf) => drafts.versionCell(crf),
    },
    { title: STUDY_CRF_TEXT.itemCount, dataIndex: 'itemCount', kind: 'number', width: 70 },
    { title: STUDY_CRF_TEXT.source, dataIndex: 'source', width: 80, render: sourceLabel },
    {
      title: STUDY_CRF_TEXT.hasData,
      dataIndex: 'hasData',
      kind: 'status',
      width: 80,
      render: (hasData: boolean) =>
        hasData ? <Tag color="orange">{COMMON_TEXT.yes}</Tag> : <Tag>{COMMON_TEXT.no}</Tag>,
    },
    {
      // 双份录入 (issue 37): the form is typed twice, blind, and reconciled.
      title: DOUBLE_ENTRY_TEXT.doubleEntry,
      key: 'doubleEntry',
      kind: 'status',
      width: 80,
      render: (_: unknown, crf) => <DoubleEntrySwitch studyId={study.id} crfId={crf.id} title={crf.title} />,
    },
    { title: STUDY_CRF_TEXT.creater, dataIndex: 'creater', width: 90, hideOrder: 1 },
    {
      title: STUDY_CRF_TEXT.updateTime,
      key: 'time',
      kind: 'datetime',
      render: (_: unknown, crf) => formatDate(crf.updateTime ?? crf.createTime),
    },
    actionsColumn<CrfDraftRow>([
      {
        key: 'preview',
        label: STUDY_CRF_TEXT.preview,
        onClick: (crf) => setPreview({ crfId: crf.id, title: crf.title }),
      },
      {
        key: 'export',
        label: STUDY_CRF_TEXT.export,
        choices: [
          { key: 'json', label: STUDY_CRF_TEXT.exportJson },
          { key: 'excel', label: STUDY_CRF_TEXT.exportExcel },
          { key: 'odm', label: STUDY_CRF_TEXT.exportOdm },
          { key: 'redcap', label: STUDY_CRF_TEXT.exportRedcap },
        ],
        onClick: (crf, format) => void exportCrf(crf, format as CrfExportFormat),
      },
      ...drafts.actions,
      {
        key: 'versions',
        label: STUDY_CRF_TEXT.versions,
        onClick: (crf) => setVersions({ crfId: crf.id, title: crf.title }),
      },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'study:crf',
        danger: true,
        confirm: (crf) => ({ title: STUDY_CRF_TEXT.confirmRemove(crf.title), description: STUDY_CRF_TEXT.removeHint }),
        onClick: (crf) => remove.mutateAsync(crf.id),
      },
    ]),
  ];

  const uploadButton = (
    <AuthButton code="study:crf" type="primary" icon={<UploadOutlined aria-hidden />} loading={busy}>
      {busy ? STUDY_CRF_TEXT.uploading : STUDY_CRF_TEXT.upload}
    </AuthButton>
  );

  return (
    <>
      <TablePage<CrfDraftRow, Filters>
        name="crf-filter"
        rowKey="id"
        columns={columns}
        queryKey={[...queryKeys.crf.page(study.id), drafts.production]}
        fetchPage={(query) =>
          crfApi
            .page({ ...query, studyId: study.id })
            .then(async (res) => ({ ...res.data, list: await drafts.withDraftsOf(res.data.list) }))
        }
        toolbar={
          <>
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
              {STUDY_CRF_TEXT.template}
            </Button>
            <Button icon={<DownloadOutlined aria-hidden />} onClick={() => void downloadDataTemplate()}>
              {DATA_IMPORT_TEXT.template}
            </Button>
            <span className="study-section-hint" style={{ margin: 0 }}>
              {STUDY_CRF_TEXT.uploadHint}
            </span>
            {drafts.production && (
              <span className="study-section-hint" style={{ margin: 0 }}>
                {AMENDMENT_TEXT.productionHint}
              </span>
            )}
            {drafts.picker}
          </>
        }
      />
      <CrfUploadResultDialog outcomes={outcomes} onClose={() => setOutcomes(null)} />
      <CrfUploadPlanDialog
        files={planned?.files ?? null}
        draft={drafts.production}
        onCancel={() => {
          if (planned && planned.refused.length > 0) setOutcomes(planned.refused);
          setPlanned(null);
        }}
        onConfirm={(choices) => {
          if (planned) upload.mutate({ files: planned.files, choices, refused: planned.refused });
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
  return <StudyScope title={STUDY_CRF_TEXT.title}>{(study) => <StudyCrfs study={study} />}</StudyScope>;
}

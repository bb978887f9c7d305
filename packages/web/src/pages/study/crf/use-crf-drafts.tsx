import { useRef, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { App, Space, Tag } from 'antd';
import { MSG } from '@ecrf/core';
import { amendmentApi } from '../../../api/amendment.api';
import { queryKeys } from '../../../api/query-keys';
import { crfApi, type CrfRow, type Study } from '../../../api/study.api';
import type { RowAction } from '../../../components/table-page';
import { AMENDMENT_TEXT } from '../../../locales/amendment.zh-CN';
import { STUDY_CRF_TEXT } from '../../../locales/study-crf.zh-CN';
import {
  draftUploadCheck,
  impactHref,
  isProductionStudy,
  withDrafts,
  type CrfDraftRow,
} from '../amendment/amendment-state';
import { outcomeOfFailure, outcomeOfSingle, type UploadOutcome } from './upload-outcome';

/** The file types an upload accepts (the CRF page's own list, repeated here to keep the import one-way). */
const DRAFT_FILE_TYPES = '.json,.xlsx,.csv,.xml';

/**
 * CRF管理 of a production study (issue 36): each CRF's open draft beside its version, and the draft actions
 * 新建草稿 / 上传到草稿 / 查看影响 / 发布 / 放弃草稿. A study in 测试 has none of them: its uploads publish directly.
 */
export function useCrfDrafts(study: Study, showOutcomes: (outcomes: UploadOutcome[]) => void) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const production = isProductionStudy(study);
  const input = useRef<HTMLInputElement>(null);
  const uploadFor = useRef<CrfDraftRow | null>(null);

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.crf.all() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.amendment.all() });
  };

  /** The page's rows with their drafts (none in 测试). */
  const withDraftsOf = (rows: readonly CrfRow[]): Promise<CrfDraftRow[]> =>
    withDrafts(rows, (crfId) =>
      production ? amendmentApi.draft(study.id, crfId).then((res) => res.data ?? null) : Promise.resolve(null),
    );

  const open = useMutation({
    mutationFn: (crf: CrfDraftRow) => amendmentApi.openDraft(study.id, crf.id),
    onSuccess: (res) => {
      void message.success(res.msg || AMENDMENT_TEXT.draftOpened);
      refresh();
    },
  });

  const discard = useMutation({
    mutationFn: (crf: CrfDraftRow) => amendmentApi.discardDraft(study.id, crf.id),
    onSuccess: (res) => {
      void message.success(res.msg || AMENDMENT_TEXT.draftDiscarded);
      refresh();
    },
  });

  /** A dry run first: the file must hold exactly this CRF's next version; then it is stored into the draft. */
  const upload = useMutation({
    mutationFn: async ({ crf, file }: { crf: CrfDraftRow; file: File }): Promise<UploadOutcome | string> => {
      let checked: UploadOutcome;
      try {
        checked = outcomeOfSingle(file.name, await crfApi.upload(study.id, file, { dryRun: true, draft: true }));
      } catch (error) {
        return outcomeOfFailure(file.name, error);
      }
      const fits = draftUploadCheck(checked.plan, crf);
      if (!fits.ok) return fits.message;
      try {
        return outcomeOfSingle(
          file.name,
          await crfApi.upload(study.id, file, { draft: true, onExisting: { [fits.title]: 'version' } }),
        );
      } catch (error) {
        return outcomeOfFailure(file.name, error);
      }
    },
    onSuccess: (outcome, { crf }) => {
      if (typeof outcome === 'string') return void message.error(outcome);
      if (outcome.ok) refresh();
      if (!outcome.ok || outcome.warnings.length > 0 || outcome.notes.length > 0) return showOutcomes([outcome]);
      const version = outcome.crfs[0]?.version ?? crf.draft?.version ?? crf.version + 1;
      void message.success(AMENDMENT_TEXT.draftUploaded(crf.title, version));
    },
    onError: (error) => void message.error(error.message || MSG.failed),
  });

  const actions: RowAction<CrfDraftRow>[] = production
    ? [
        {
          key: 'openDraft',
          label: AMENDMENT_TEXT.openDraft,
          code: 'study:crf',
          hidden: (crf) => crf.draft !== null,
          onClick: (crf) => open.mutateAsync(crf),
        },
        {
          key: 'uploadDraft',
          label: AMENDMENT_TEXT.uploadToDraft,
          code: 'study:crf',
          disabled: () => upload.isPending,
          onClick: (crf) => {
            uploadFor.current = crf;
            input.current?.click();
          },
        },
        {
          key: 'impact',
          label: AMENDMENT_TEXT.viewImpact,
          hidden: (crf) => crf.draft === null,
          onClick: (crf) => navigate(impactHref({ studyId: study.id, crfId: crf.id })),
        },
        {
          key: 'publish',
          label: AMENDMENT_TEXT.publish,
          code: 'study:crf',
          hidden: (crf) => crf.draft === null,
          // Publishing answers the impact report first: the report page opens with its 发布 dialog.
          onClick: (crf) => navigate(impactHref({ studyId: study.id, crfId: crf.id }, { publish: true })),
        },
        {
          key: 'discardDraft',
          label: AMENDMENT_TEXT.discardDraft,
          code: 'study:crf',
          danger: true,
          hidden: (crf) => crf.draft === null,
          confirm: (crf) => ({
            title: AMENDMENT_TEXT.confirmDiscard(crf.title),
            description: AMENDMENT_TEXT.discardHint,
          }),
          onClick: (crf) => discard.mutateAsync(crf),
        },
      ]
    : [];

  /** The version cell: the published version, and the open draft's tag. */
  const versionCell = (crf: CrfDraftRow): ReactNode => (
    <Space size={4} wrap>
      {STUDY_CRF_TEXT.versionOf(crf.version)}
      {crf.draft && (
        <Tag color="gold" title={AMENDMENT_TEXT.draftTagOf(crf.draft.version)}>
          {AMENDMENT_TEXT.draftTag}
        </Tag>
      )}
    </Space>
  );

  /** The file picker 上传到草稿 opens (only a production study has one, so the page's upload input stays unique). */
  const picker = production ? (
    <input
      ref={input}
      type="file"
      hidden
      aria-hidden
      tabIndex={-1}
      accept={DRAFT_FILE_TYPES}
      onChange={(event) => {
        const file = event.target.files?.[0];
        const crf = uploadFor.current;
        event.target.value = '';
        if (file && crf) upload.mutate({ crf, file });
      }}
    />
  ) : null;

  return { production, actions, versionCell, picker, withDraftsOf, uploading: upload.isPending };
}

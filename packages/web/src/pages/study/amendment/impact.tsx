import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Empty, Spin, Tag } from 'antd';
import { ArrowLeftOutlined, DownloadOutlined } from '@ant-design/icons';
import { useNavigate, useSearchParams } from 'react-router';
import { amendmentApi, type ImpactTarget } from '../../../api/amendment.api';
import { queryKeys } from '../../../api/query-keys';
import { crfApi } from '../../../api/study.api';
import { AuthButton } from '../../../components/permission';
import { AMENDMENT_TEXT } from '../../../locales/amendment.zh-CN';
import { saveDownload } from '../../../utils/download';
import { distinctRecordIds, impactHref, impactTargetOf, kindLabel } from './amendment-state';
import { ImpactFindings, type FindingFilter } from './components/impact-findings';
import { ImpactRecords, type RecordSelection } from './components/impact-records';
import { ImpactSummaryView } from './components/impact-summary';
import { MigrateDialog } from './components/migrate-dialog';
import { PublishDialog } from './components/publish-dialog';
import '../study.css';
import './amendment.css';

const NO_SELECTION: RecordSelection = new Map();

function ImpactReport({ target, askPublish }: { target: ImpactTarget; askPublish: boolean }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const amendmentId = 'amendmentId' in target ? target.amendmentId : null;
  const [filter, setFilter] = useState<FindingFilter | null>(null);
  const [selection, setSelection] = useState<RecordSelection>(NO_SELECTION);
  const [publishing, setPublishing] = useState(askPublish);
  const [migrating, setMigrating] = useState<'all' | 'records' | null>(null);

  const summary = useQuery({
    queryKey: queryKeys.amendment.impact(target),
    queryFn: () => amendmentApi.impact(target).then((res) => res.data),
  });
  const amendments = useQuery({
    queryKey: queryKeys.amendment.list(target.studyId),
    queryFn: () => amendmentApi.list(target.studyId).then((res) => res.data),
    enabled: amendmentId !== null,
  });
  const amendment = amendments.data?.find((row) => row.id === amendmentId) ?? null;
  const crfId = 'crfId' in target ? target.crfId : (amendment?.crfId ?? summary.data?.crfId ?? null);
  const crf = useQuery({
    queryKey: queryKeys.crf.detail(crfId),
    queryFn: () => crfApi.get(crfId!).then((res) => res.data),
    enabled: crfId !== null && amendmentId === null,
  });
  const title = amendment?.crfTitle ?? crf.data?.title ?? '';
  const report = summary.data;
  const from = report?.fromVersion ?? amendment?.fromVersion ?? 0;
  const to = report?.toVersion ?? amendment?.toVersion ?? 0;
  const recordIds = distinctRecordIds(selection.values());

  const back = () =>
    navigate(
      amendmentId === null
        ? `/study/crf?studyId=${target.studyId}`
        : `/study/config?studyId=${target.studyId}&tab=amendments`,
    );

  const download = async () => {
    try {
      saveDownload(await amendmentApi.impactExport(target), AMENDMENT_TEXT.impactFile(title));
    } catch {
      // The request wrapper has shown why.
    }
  };

  if (summary.isLoading) return <Spin style={{ display: 'block', margin: '48px auto' }} />;
  if (!report) return <Empty description={AMENDMENT_TEXT.noFindings} />;

  return (
    <>
      <div className="study-page-head">
        <div>
          <Button type="link" className="study-back-link" icon={<ArrowLeftOutlined aria-hidden />} onClick={back}>
            {AMENDMENT_TEXT.back}
          </Button>
          <h2 className="page-title">{title ? AMENDMENT_TEXT.impactTitleOf(title) : AMENDMENT_TEXT.impactTitle}</h2>
          <p className="study-section-hint">
            {amendment
              ? AMENDMENT_TEXT.impactOfAmendment(amendment.name, from, to)
              : AMENDMENT_TEXT.impactOfDraft(from, to)}
          </p>
        </div>
        <div className="study-page-head-extra">
          <Button icon={<DownloadOutlined aria-hidden />} onClick={() => void download()}>
            {AMENDMENT_TEXT.exportExcel}
          </Button>
          {amendmentId === null ? (
            <AuthButton code="study:crf" type="primary" onClick={() => setPublishing(true)}>
              {AMENDMENT_TEXT.publish}
            </AuthButton>
          ) : (
            <AuthButton
              code="study:crf"
              type="primary"
              disabled={!amendment || amendment.remaining === 0}
              onClick={() => setMigrating('all')}
            >
              {AMENDMENT_TEXT.migrate}
            </AuthButton>
          )}
        </div>
      </div>

      <ImpactSummaryView summary={report} />

      <section aria-label={AMENDMENT_TEXT.findings} className="study-section">
        <h3 className="study-section-title">{AMENDMENT_TEXT.findings}</h3>
        <ImpactFindings
          findings={report.findings}
          current={filter}
          onPick={(finding) => setFilter({ kind: finding.kind, itemName: finding.itemName })}
        />
      </section>

      <section aria-label={AMENDMENT_TEXT.records} className="study-section">
        <h3 className="study-section-title">
          {filter
            ? AMENDMENT_TEXT.recordsOf(
                kindLabel(filter.kind),
                report.findings.find((f) => f.kind === filter.kind && f.itemName === filter.itemName)?.label ??
                  filter.itemName,
              )
            : AMENDMENT_TEXT.records}
        </h3>
        <div className="amendment-toolbar">
          {filter && (
            <Button size="small" onClick={() => setFilter(null)}>
              {AMENDMENT_TEXT.showAll}
            </Button>
          )}
          {amendmentId !== null && recordIds.length > 0 && (
            <>
              <Tag color="blue">{AMENDMENT_TEXT.selected(recordIds.length)}</Tag>
              <AuthButton code="study:crf" size="small" type="primary" onClick={() => setMigrating('records')}>
                {AMENDMENT_TEXT.migrateSelected}
              </AuthButton>
              <Button size="small" onClick={() => setSelection(NO_SELECTION)}>
                {AMENDMENT_TEXT.clearSelection}
              </Button>
            </>
          )}
        </div>
        <ImpactRecords
          target={target}
          filter={filter}
          {...(amendmentId !== null ? { selection, onSelect: setSelection } : {})}
        />
      </section>

      {'crfId' in target && (
        <PublishDialog
          open={publishing}
          studyId={target.studyId}
          crfId={target.crfId}
          summary={report}
          onClose={() => setPublishing(false)}
          onPublished={(published) => {
            setPublishing(false);
            void message.success(AMENDMENT_TEXT.published(published.version));
            void queryClient.invalidateQueries({ queryKey: queryKeys.crf.all() });
            // Marked stale, not read again now: the draft this page still shows is gone (its report would answer
            // 该CRF没有草稿); the amendment's report replaces it.
            void queryClient.invalidateQueries({ queryKey: queryKeys.amendment.all(), refetchType: 'none' });
            void navigate(impactHref({ studyId: target.studyId, amendmentId: published.amendmentId }), {
              replace: true,
            });
          }}
        />
      )}
      <MigrateDialog
        studyId={target.studyId}
        amendment={migrating && amendment ? amendment : null}
        recordIds={migrating === 'records' ? recordIds : []}
        onClose={(finished) => {
          setMigrating(null);
          if (finished) setSelection(NO_SELECTION);
        }}
      />
    </>
  );
}

/**
 * 影响报告 (issue 36): what publishing a CRF's draft (`?studyId&crfId`) or moving an amendment's remaining records
 * (`?studyId&amendmentId`) does to the live records: counts, findings per kind and item, the records behind each,
 * an Excel download, and 发布 or 迁移数据.
 */
export default function AmendmentImpactPage() {
  const [params] = useSearchParams();
  const target = impactTargetOf(params);
  return (
    <div className="page-card">
      {target ? (
        <ImpactReport key={impactHref(target)} target={target} askPublish={params.get('publish') === '1'} />
      ) : (
        <Empty description={AMENDMENT_TEXT.missingTarget} />
      )}
    </div>
  );
}

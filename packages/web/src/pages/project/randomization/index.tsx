import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Descriptions, Empty, Result, Spin, Table, Tabs, Tag } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { MSG, RANDOMIZATION_METHOD_LABELS } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { randomizationApi, type RandomizationConfigView } from '../../../api/randomization.api';
import { RANDOMIZATION_TEXT } from '../../../locales/randomization.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { saveDownload } from '../../../utils/download';
import { useProjectStudy } from '../use-project-study';
import { AllocationList } from './components/allocation-list';
import { ConfigForm } from './components/config-form';
import { SimulationPanel } from './components/simulation-panel';
import { UsageTable } from './components/usage-table';
import { RAND_BUTTONS } from './rand-access';
import './randomization.css';

const t = RANDOMIZATION_TEXT;

/** The version in force as a reader sees it (block sizes and list length only for configurers and unblinded roles). */
function ConfigSummary({ view }: { view: RandomizationConfigView }) {
  const config = view.config;
  if (!view.configured || !config) return <Empty description={t.notConfigured} />;
  return (
    <Descriptions size="small" bordered column={{ xs: 1, md: 2 }} className="rand-summary">
      <Descriptions.Item label={t.version}>{`v${view.version}`}</Descriptions.Item>
      <Descriptions.Item label={t.method}>{RANDOMIZATION_METHOD_LABELS[config.method]}</Descriptions.Item>
      <Descriptions.Item label={t.blinded}>
        {config.blinded
          ? view.unblindedAll
            ? t.unblindedAllAt(formatDate(view.unblindedAll.unblindTime))
            : t.blindYes
          : t.blindNo}
      </Descriptions.Item>
      <Descriptions.Item label={t.arms}>
        {config.arms.map((a) => `${a.label}（${a.code}）`).join('：')} = {config.arms.map((a) => a.ratio).join(':')}
      </Descriptions.Item>
      {config.blockSizes && config.blockSizes.length > 0 && (
        <Descriptions.Item label={t.blockSizes}>{config.blockSizes.join(', ')}</Descriptions.Item>
      )}
      {config.factors.length > 0 && (
        <Descriptions.Item label={config.method === 'minimization' ? t.minFactors : t.strataFactors}>
          {config.factors.map((f) => `${f.label}（${f.levels.map((l) => l.label).join('/')}）`).join('；')}
        </Descriptions.Item>
      )}
      <Descriptions.Item label={t.randomizedCount}>
        {view.randomizedCount}
        {view.locked && <Tag className="rand-locked-tag">{t.locked}</Tag>}
      </Descriptions.Item>
    </Descriptions>
  );
}

function Versions({ view }: { view: RandomizationConfigView }) {
  if (view.versions.length === 0) return null;
  return (
    <>
      <h3 className="rand-section">{t.versions}</h3>
      <Table
        size="small"
        rowKey="version"
        pagination={false}
        dataSource={view.versions}
        columns={[
          { title: t.version, dataIndex: 'version', width: 70, render: (v: number) => `v${v}` },
          {
            title: t.method,
            dataIndex: 'method',
            width: 130,
            render: (m: keyof typeof RANDOMIZATION_METHOD_LABELS) => RANDOMIZATION_METHOD_LABELS[m],
          },
          { title: t.listSource, dataIndex: 'listSource', width: 100, render: (s: string) => t.sources[s] ?? s },
          { title: t.reason, dataIndex: 'reason', render: (r: string | null) => r ?? '' },
          { title: t.createBy, dataIndex: 'createBy', width: 100 },
          { title: t.createTime, dataIndex: 'createTime', width: 170, render: (v: string) => formatDate(v) },
        ]}
      />
    </>
  );
}

/**
 * 随机列表 (RAND-01): the configuration (arms, method, strata or minimization, eligibility, an uploaded list) and its
 * versions, a simulation before go-live, the use of the list per stratum, and the allocation list itself for the
 * roles that may see arms, with its Excel export.
 */
export default function RandomizationPage() {
  const { studyId, study, query, can } = useProjectStudy();
  const [exporting, setExporting] = useState(false);
  const config = useQuery({
    queryKey: queryKeys.randomization.config(studyId ?? 0),
    queryFn: () => randomizationApi.config(studyId!).then((res) => res.data),
    enabled: studyId !== null && Boolean(study),
  });
  const result = useQuery({
    queryKey: queryKeys.randomization.result(studyId ?? 0),
    queryFn: () => randomizationApi.result(studyId!).then((res) => res.data),
    enabled: studyId !== null && Boolean(study),
  });

  let body;
  if (studyId === null || query.isError || config.isError) body = <Result status="warning" title={MSG.forbidden} />;
  else if (!study || !config.data) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else {
    const view = config.data;
    const mayConfigure = can(RAND_BUTTONS.config) && !view.unblindedAll;
    const mayList = can(RAND_BUTTONS.unblinded);
    const exportList = async () => {
      setExporting(true);
      try {
        saveDownload(await randomizationApi.exportList(studyId), `随机分配表_v${view.version ?? ''}.xlsx`);
      } finally {
        setExporting(false);
      }
    };
    const items = [
      {
        key: 'config',
        label: t.tabConfig,
        children: (
          <>
            <ConfigSummary view={view} />
            {mayConfigure && (
              <>
                <h3 className="rand-section">{view.configured ? t.newVersion : t.firstVersion}</h3>
                <ConfigForm studyId={studyId} view={view} />
              </>
            )}
            <Versions view={view} />
          </>
        ),
      },
      ...(can(RAND_BUTTONS.config) && view.configured && view.config
        ? [
            {
              key: 'simulate',
              label: t.tabSimulate,
              children: <SimulationPanel studyId={studyId} factors={view.config.factors} />,
            },
          ]
        : []),
      {
        key: 'usage',
        label: t.tabUsage,
        children: result.data?.configured ? (
          <UsageTable result={result.data} />
        ) : (
          <Empty description={t.notConfigured} />
        ),
      },
      ...(mayList && view.configured
        ? [
            {
              key: 'list',
              label: t.tabList,
              children: (
                <AllocationList
                  studyId={studyId}
                  strata={(result.data?.strata ?? []).map((s) => ({ value: s.stratum, label: s.stratumLabel }))}
                  toolbar={
                    <Button
                      icon={<DownloadOutlined aria-hidden />}
                      loading={exporting}
                      onClick={() => void exportList()}
                    >
                      {t.export}
                    </Button>
                  }
                />
              ),
            },
          ]
        : []),
    ];
    body = <Tabs items={items} className="rand-tabs" />;
  }

  return (
    <div className="page-card">
      <h2 className="page-title">{t.listTitle}</h2>
      {body}
    </div>
  );
}

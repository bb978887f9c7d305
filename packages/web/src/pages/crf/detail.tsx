import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/query-keys';
import { Empty, Result, Select, Spin } from 'antd';
import { initialValues } from '@ecrf/core';
import { crfApi } from '../../api/study.api';
import { CrfForm } from '../../crf';
import { useRouteId } from '../../hooks/use-route-id';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';
import { NOT_FOUND_TEXT } from '../../locales/not-found.zh-CN';
import { formatDate, displayTimeZone } from '../../utils/format-date';
import './crf.css';

const t = CRF_PAGE_TEXT;

/**
 * crf.detail (CRF-01): one CRF as its definition lays it out, read-only, in any of its versions —
 * what a form looks like before anyone enters data into it.
 */
export default function CrfDetailPage() {
  const crfId = useRouteId('crfId');
  const valid = crfId !== null;
  const [version, setVersion] = useState<number | undefined>();
  const query = useQuery({
    queryKey: queryKeys.crf.detail(crfId, version),
    queryFn: () => crfApi.get(crfId!, version).then((res) => res.data),
    enabled: valid,
  });
  const crf = query.data;
  const [openedAt] = useState(() => new Date());
  const values = useMemo(
    () => (crf ? initialValues(crf.definition, { now: openedAt, timeZone: displayTimeZone() }) : {}),
    [crf, openedAt],
  );

  if (!valid) return <Result status="404" title={NOT_FOUND_TEXT.subTitle} />;
  if (query.isError) return <Result status="warning" title={t.loadFailed} />;
  if (!crf) return <Spin />;

  return (
    <div className="page-card crf-detail-page">
      <div className="crf-detail-head">
        <h2 className="page-title">{crf.title}</h2>
        <Select
          aria-label={t.detailVersion}
          value={crf.version}
          style={{ width: 260 }}
          onChange={(v: number) => setVersion(v)}
          options={crf.versions.map((v) => ({
            value: v.version,
            label: `${t.detailVersion} ${v.version} · ${formatDate(v.createTime)}`,
          }))}
        />
      </div>
      {crf.definition.children.length === 0 ? (
        <Empty />
      ) : (
        <CrfForm definition={crf.definition} values={values} readOnly />
      )}
    </div>
  );
}

import { Table, Tag } from 'antd';
import type { RandomizationResult } from '../../../../api/randomization.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';

const t = RANDOMIZATION_TEXT;

/** 分层使用: per stratum the list's size and the slots used (and, for those who may see arms, per arm). */
export function UsageTable({ result }: { result: RandomizationResult }) {
  const armCols = (result.arms ?? []).map((a) => ({
    title: a.label,
    key: `arm-${a.code}`,
    width: 100,
    render: (_: unknown, row: { arms: Record<string, number> | null }) => row.arms?.[a.code] ?? 0,
  }));
  return (
    <>
      <p className="rand-muted">
        {t.usageTotal(result.total)}
        {result.arms &&
          result.arms.map((a) => <Tag key={a.code} className="rand-arm-tag">{`${a.label} ${a.count}`}</Tag>)}
      </p>
      <Table
        size="small"
        rowKey="stratum"
        pagination={false}
        className="rand-usage"
        dataSource={result.strata}
        columns={[
          { title: t.stratum, dataIndex: 'stratumLabel' },
          { title: t.listSize, dataIndex: 'size', width: 100, render: (v: number) => v || '—' },
          { title: t.used, dataIndex: 'used', width: 100 },
          ...armCols,
        ]}
      />
      {result.factorLevels.length > 0 && (
        <Table
          size="small"
          rowKey={(row) => `${row.factor}=${row.level}`}
          pagination={false}
          className="rand-usage"
          dataSource={result.factorLevels}
          columns={[
            { title: t.factor, dataIndex: 'factorLabel', width: 140 },
            { title: t.level, dataIndex: 'levelLabel' },
            { title: t.used, dataIndex: 'count', width: 100 },
            ...armCols,
          ]}
        />
      )}
    </>
  );
}

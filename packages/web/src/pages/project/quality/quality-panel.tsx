import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Form, Popconfirm, Progress, Radio, Select, Space, Table, Tag } from 'antd';
import type { QualityScope } from '@ecrf/core';
import { qualityApi, type QualityDashboard, type QualityFinding, type QualityRun } from '../../../api/quality.api';
import { queryKeys } from '../../../api/query-keys';
import { randomizationApi } from '../../../api/randomization.api';
import { crfApi } from '../../../api/study.api';
import { QUALITY_TEXT as t } from '../../../locales/quality.zh-CN';
import { formatDate } from '../../../utils/format-date';

type ScopeKind = QualityScope['kind'];
const FINDINGS_PAGE_SIZE = 10;
/** How often a run in progress is read again (its job's progress). */
const POLL_MS = 1000;

const inProgress = (run: Pick<QualityRun, 'state'> | undefined) => run?.state === 'queued' || run?.state === 'running';

/**
 * 数据核查 (issue 37): choose a scope and start a run; follow its progress; read the findings per rule, drill down,
 * raise one query per open finding of a rule; and the dashboard of open findings per site and rule by run date.
 */
export function QualityPanel({ studyId, canRaise }: { studyId: number; canRaise: boolean }) {
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<ScopeKind>('study');
  const [targetId, setTargetId] = useState<number | undefined>();
  const [chosenRun, setChosenRun] = useState<number | null>(null);
  const [ruleKey, setRuleKey] = useState<string | null>(null);
  const [findingsPage, setFindingsPage] = useState(1);

  const sites = useQuery({
    queryKey: queryKeys.randomization.depts(studyId),
    enabled: kind === 'site',
    queryFn: () => randomizationApi.factorDepts(studyId).then((res) => res.data),
  });
  const forms = useQuery({
    queryKey: queryKeys.crf.options(studyId),
    enabled: kind === 'form',
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  const runs = useQuery({
    queryKey: queryKeys.quality.runs(studyId),
    queryFn: () => qualityApi.runs({ studyId, pageNum: 1, pageSize: 20 }).then((res) => res.data),
  });
  const runId = chosenRun ?? runs.data?.list[0]?.runId ?? null;
  const run = useQuery({
    queryKey: queryKeys.quality.run(studyId, runId),
    enabled: runId !== null,
    queryFn: () => qualityApi.run(studyId, runId!).then((res) => res.data),
    refetchInterval: (query) => (inProgress(query.state.data) ? POLL_MS : false),
  });
  const findings = useQuery({
    queryKey: [...queryKeys.quality.findings(studyId, runId ?? 0, ruleKey ?? ''), findingsPage],
    enabled: runId !== null && ruleKey !== null,
    queryFn: () =>
      qualityApi
        .findings({ studyId, runId: runId!, ruleKey: ruleKey!, pageNum: findingsPage, pageSize: FINDINGS_PAGE_SIZE })
        .then((res) => res.data),
  });
  const dashboard = useQuery({
    queryKey: queryKeys.quality.dashboard(studyId),
    queryFn: () => qualityApi.dashboard(studyId).then((res) => res.data),
  });

  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.quality.all() });

  const start = useMutation({
    mutationFn: (scope: QualityScope) => qualityApi.start({ studyId, scope }),
    onSuccess: (res) => {
      void message.success(t.started);
      setChosenRun(res.data.runId);
      setRuleKey(null);
      refresh();
    },
  });
  const raise = useMutation({
    mutationFn: (key: string) => qualityApi.raiseQueries({ studyId, runId: runId!, ruleKey: key }),
    onSuccess: (res) => {
      const { raised, refused } = res.data;
      if (refused.length === 0) void message.success(t.raised(raised, 0));
      else {
        modal.info({
          title: t.raised(raised, refused.length),
          content: (
            <ul data-testid="quality-refused">
              {refused.map((r) => (
                <li key={r.findingId}>{r.reason}</li>
              ))}
            </ul>
          ),
        });
      }
      refresh();
    },
  });

  const scopeOf = (): QualityScope | null => {
    if (kind === 'study') return { kind };
    if (targetId === undefined) return null;
    return kind === 'site' ? { kind, deptId: targetId } : { kind, crfId: targetId };
  };
  const scope = scopeOf();
  const current = run.data;

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Form layout="inline" name="quality-scope">
        <Form.Item label={t.scope}>
          <Radio.Group
            value={kind}
            onChange={(e) => {
              setKind(e.target.value as ScopeKind);
              setTargetId(undefined);
            }}
            options={[
              { value: 'study', label: t.scopeStudy },
              { value: 'site', label: t.scopeSite },
              { value: 'form', label: t.scopeForm },
            ]}
          />
        </Form.Item>
        {kind === 'site' && (
          <Form.Item>
            <Select
              aria-label={t.chooseSite}
              placeholder={t.chooseSite}
              style={{ width: 180 }}
              value={targetId}
              onChange={setTargetId}
              options={(sites.data ?? []).map((s) => ({ value: s.deptId, label: s.deptName }))}
            />
          </Form.Item>
        )}
        {kind === 'form' && (
          <Form.Item>
            <Select
              aria-label={t.chooseForm}
              placeholder={t.chooseForm}
              style={{ width: 180 }}
              value={targetId}
              onChange={setTargetId}
              options={(forms.data ?? []).map((f) => ({ value: f.id, label: f.title }))}
            />
          </Form.Item>
        )}
        <Form.Item>
          <Button
            type="primary"
            disabled={scope === null || inProgress(current)}
            loading={start.isPending}
            onClick={() => scope && start.mutate(scope)}
          >
            {t.start}
          </Button>
        </Form.Item>
        {(runs.data?.list.length ?? 0) > 0 && (
          <Form.Item label={t.runs}>
            <Select
              aria-label={t.runs}
              style={{ width: 260 }}
              value={runId ?? undefined}
              onChange={(id: number) => {
                setChosenRun(id);
                setRuleKey(null);
              }}
              options={(runs.data?.list ?? []).map((r) => ({
                value: r.runId,
                label: `${t.runTitle(formatDate(r.createDate), r.startedBy)}（${t.state[r.state]}）`,
              }))}
            />
          </Form.Item>
        )}
      </Form>

      {runId === null && !runs.isLoading && <div>{t.noRun}</div>}
      {current && (
        <Card size="small" title={t.runTitle(formatDate(current.createDate), current.startedBy)}>
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Space>
              <Tag color={current.state === 'failed' ? 'red' : current.state === 'done' ? 'green' : 'blue'}>
                {t.state[current.state]}
              </Tag>
              {current.state === 'done' && (
                <span data-testid="quality-summary">{t.summary(current.recordsChecked, current.findingsCount)}</span>
              )}
              {current.error && <span>{current.error}</span>}
            </Space>
            {inProgress(current) && <Progress percent={current.progress} />}
            <Table
              data-testid="quality-rules"
              rowKey="ruleKey"
              size="small"
              pagination={false}
              dataSource={current.rules}
              columns={[
                { title: t.rule, dataIndex: 'ruleText' },
                { title: t.count, dataIndex: 'count', width: 90 },
                { title: t.open, dataIndex: 'open', width: 90 },
                {
                  title: t.actions,
                  key: 'actions',
                  width: 220,
                  render: (_: unknown, rule: QualityRun['rules'][number]) => (
                    <Space size={0}>
                      <Button
                        type="link"
                        size="small"
                        onClick={() => {
                          setRuleKey(rule.ruleKey);
                          setFindingsPage(1);
                        }}
                      >
                        {t.drill}
                      </Button>
                      {canRaise && (
                        <Popconfirm
                          title={t.raise}
                          description={t.raiseConfirm(rule.open)}
                          disabled={rule.open === 0}
                          onConfirm={() => raise.mutate(rule.ruleKey)}
                        >
                          <Button type="link" size="small" disabled={rule.open === 0} loading={raise.isPending}>
                            {t.raise}
                          </Button>
                        </Popconfirm>
                      )}
                    </Space>
                  ),
                },
              ]}
            />
          </Space>
        </Card>
      )}

      {ruleKey !== null && runId !== null && (
        <Card size="small" title={current?.rules.find((r) => r.ruleKey === ruleKey)?.ruleText ?? t.drill}>
          <Table<QualityFinding>
            rowKey="findingId"
            size="small"
            loading={findings.isLoading}
            dataSource={findings.data?.list ?? []}
            pagination={{
              current: findingsPage,
              pageSize: FINDINGS_PAGE_SIZE,
              total: findings.data?.total ?? 0,
              onChange: setFindingsPage,
            }}
            columns={[
              { title: t.code, dataIndex: 'identificationCode', width: 110 },
              { title: t.site, dataIndex: 'siteName', width: 110, render: (v: string | null) => v ?? '—' },
              { title: t.form, dataIndex: 'crfTitle', width: 120, render: (v: string | null) => v ?? '—' },
              { title: t.item, dataIndex: 'itemTitle', width: 120, render: (v: string | null) => v ?? '—' },
              { title: t.text, dataIndex: 'ruleText' },
              {
                title: t.status,
                dataIndex: 'status',
                width: 110,
                render: (v: string) => <Tag color={v === 'open' ? 'orange' : 'blue'}>{t.statusText[v]}</Tag>,
              },
            ]}
          />
        </Card>
      )}

      {dashboard.data && dashboard.data.runs.length > 0 && <DashboardTables data={dashboard.data} />}
    </Space>
  );
}

/** Open findings per site and per rule (rows) by run date (columns): how the study's data quality moves. */
function DashboardTables({ data }: { data: QualityDashboard }) {
  const runColumns = data.runs.map((r) => ({
    title: formatDate(r.runDate),
    key: String(r.runId),
    width: 150,
    render: (_: unknown, row: { counts: Record<number, number> }) => row.counts[r.runId] ?? 0,
  }));
  const rowsOf = (
    pick: (run: QualityDashboard['runs'][number]) => Array<{ key: string; name: string; open: number }>,
  ) => {
    const rows = new Map<string, { key: string; name: string; counts: Record<number, number> }>();
    for (const run of data.runs) {
      for (const { key, name, open } of pick(run)) {
        const row = rows.get(key) ?? { key, name, counts: {} };
        row.counts[run.runId] = open;
        rows.set(key, row);
      }
    }
    return [...rows.values()];
  };
  const total = {
    key: '__total__',
    name: t.openTotal,
    counts: Object.fromEntries(data.runs.map((r) => [r.runId, r.open])),
  };
  const bySite = [
    ...rowsOf((run) => run.bySite.map((s) => ({ key: String(s.deptId), name: s.siteName, open: s.open }))),
    total,
  ];
  const byRule = rowsOf((run) => run.byRule.map((r) => ({ key: r.ruleKey, name: r.ruleText, open: r.open })));
  return (
    <Card size="small" title={t.dashboard} data-testid="quality-dashboard">
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Table
          rowKey="key"
          size="small"
          pagination={false}
          dataSource={bySite}
          columns={[{ title: t.bySite, dataIndex: 'name' }, ...runColumns]}
        />
        <Table
          rowKey="key"
          size="small"
          pagination={false}
          dataSource={byRule}
          columns={[{ title: t.byRule, dataIndex: 'name' }, ...runColumns]}
        />
      </Space>
    </Card>
  );
}

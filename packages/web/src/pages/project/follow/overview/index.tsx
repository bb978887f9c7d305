import { useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Empty, Progress, Row, Spin, Statistic, Table, Tabs, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link } from 'react-router';
import { FOLLOW_STATES } from '@ecrf/core';
import {
  followApi,
  type FollowOverview,
  type FollowOverviewPerson,
  type FollowOverviewVisit,
} from '../../../../api/follow.api';
import { queryKeys } from '../../../../api/query-keys';
import { FOLLOW_TEXT } from '../../../../locales/follow.zh-CN';
import { FOLLOW_OVERVIEW_TEXT } from '../../../../locales/follow-overview.zh-CN';
import { useProjectStudy } from '../../use-project-study';
import { FollowStateTag } from '../record';
import { recordsLink } from '../record/record-url';
import { MESSAGES_TEXT } from '../../../../locales/messages.zh-CN';
import { MessagesPanel } from '../messages/messages-panel';
import './overview.css';

const t = FOLLOW_OVERVIEW_TEXT;

/** A rate (0..1) as a whole percentage, or a dash while nothing is judged. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`;
}

function RateBar({ rate, label }: { rate: number | null; label: string }) {
  if (rate === null) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Progress
      percent={Math.round(rate * 1000) / 10}
      size="small"
      style={{ margin: 0, minWidth: 96 }}
      aria-label={label}
    />
  );
}

/** A count that opens 随访记录 filtered to what it counts (a zero stays plain text). */
function CountLink({ to, value, label }: { to: string; value: number; label: string }) {
  if (value === 0) return <>{value}</>;
  return (
    <Link to={to} aria-label={`${label} ${value}`}>
      {value}
    </Link>
  );
}

function StatCard({ title, children, extra }: { title: string; children: ReactNode; extra?: ReactNode }) {
  return (
    <Card size="small" className="follow-overview-stat" role="group" aria-label={title}>
      {children}
      {extra && <div className="follow-overview-stat-extra">{extra}</div>}
    </Card>
  );
}

/**
 * 随访概览 (FOLLOW-02): this week's visits, those waiting and overdue, each planned visit's completion (on time,
 * late, missed) and each responsible person's load. Counts open 随访记录 filtered to what they count.
 */
export default function FollowOverviewPage() {
  const { studyId, can } = useProjectStudy();
  const [tab, setTab] = useState<'overview' | 'messages'>('overview');
  const query = useQuery({
    queryKey: queryKeys.follow.overview(studyId ?? 0),
    queryFn: () => followApi.overview(studyId!).then((res) => res.data),
    enabled: studyId !== null,
  });
  if (studyId === null) return null;
  const o = query.data;
  const link = (filter: Parameters<typeof recordsLink>[1]) => recordsLink(studyId, filter);

  return (
    <div className="page-card follow-overview">
      <h2 className="page-title">{t.title}</h2>
      {/* 患者提醒 (issue 38): the delivery report and the messages, for members holding its key. */}
      {can('business.messages') && (
        <Tabs
          activeKey={tab}
          onChange={(key) => setTab(key as typeof tab)}
          items={[
            { key: 'overview', label: MESSAGES_TEXT.overviewTab },
            { key: 'messages', label: MESSAGES_TEXT.tab },
          ]}
        />
      )}
      {tab === 'messages' && can('business.messages') ? (
        <MessagesPanel studyId={studyId} />
      ) : !o ? (
        <Spin style={{ display: 'block', margin: '96px auto' }} />
      ) : (
        <OverviewBody o={o} link={link} />
      )}
    </div>
  );
}

function OverviewBody({ o, link }: { o: FollowOverview; link: (f: Parameters<typeof recordsLink>[1]) => string }) {
  const visitColumns: ColumnsType<FollowOverviewVisit> = [
    {
      title: t.plan,
      dataIndex: 'planName',
      render: (name: string, row) => (row.custom ? <Tag>{t.customVisits}</Tag> : name),
    },
    { title: t.visit, dataIndex: 'visitName', render: (name: string, row) => (row.custom ? '—' : name) },
    { title: t.total, dataIndex: 'total', align: 'right', width: 70 },
    { title: t.pending, dataIndex: 'pending', align: 'right', width: 110 },
    { title: t.onTime, dataIndex: 'onTime', align: 'right', width: 90 },
    { title: t.late, dataIndex: 'late', align: 'right', width: 90 },
    { title: t.missed, dataIndex: 'missed', align: 'right', width: 80 },
    { title: t.lost, dataIndex: 'lost', align: 'right', width: 70 },
    {
      title: t.onTimeRate,
      dataIndex: 'onTimeRate',
      width: 150,
      render: (r: number | null, row) => <RateBar rate={r} label={`${row.visitName} ${t.onTimeRate}`} />,
    },
    {
      title: t.completionRate,
      dataIndex: 'completionRate',
      width: 150,
      render: (r: number | null, row) => <RateBar rate={r} label={`${row.visitName} ${t.completionRate}`} />,
    },
  ];
  /** A person's visits in one state, opening their records in it (those of nobody stay plain). */
  const personCountColumn = (
    key: 'due' | 'overdue',
    title: string,
    state: number,
  ): ColumnsType<FollowOverviewPerson>[number] => ({
    title,
    dataIndex: key,
    align: 'right',
    render: (n: number, row: FollowOverviewPerson) =>
      row.userId === null ? (
        n
      ) : (
        <CountLink value={n} label={`${row.name} ${title}`} to={link({ state, responsibleUserId: row.userId })} />
      ),
  });
  const personColumns: ColumnsType<FollowOverviewPerson> = [
    { title: t.person, dataIndex: 'name', render: (name: string, row) => (row.userId === null ? t.nobody : name) },
    personCountColumn('due', t.due, FOLLOW_STATES.DUE),
    personCountColumn('overdue', t.overdue, FOLLOW_STATES.OVERDUE),
    { title: t.weekPending, dataIndex: 'weekPending', align: 'right' },
    { title: t.done, dataIndex: 'done', align: 'right' },
    { title: t.lost, dataIndex: 'lost', align: 'right' },
    { title: t.total, dataIndex: 'total', align: 'right' },
  ];
  const weekColumns: ColumnsType<FollowOverview['weekVisits'][number]> = [
    {
      title: FOLLOW_TEXT.code,
      dataIndex: 'identificationCode',
      render: (code: string, row) => <Link to={`/crf/${row.subjectRecordId}`}>{code}</Link>,
    },
    { title: FOLLOW_TEXT.patientName, dataIndex: 'subjectName' },
    { title: FOLLOW_TEXT.visitName, dataIndex: 'visitName' },
    { title: FOLLOW_TEXT.plannedDate, dataIndex: 'plannedDate', width: 110 },
    {
      title: FOLLOW_TEXT.window,
      key: 'window',
      width: 200,
      render: (_: unknown, row) => `${row.windowStart} ~ ${row.windowEnd}`,
    },
    { title: FOLLOW_TEXT.state, dataIndex: 'state', width: 100, render: (s: number) => <FollowStateTag state={s} /> },
    { title: FOLLOW_TEXT.responsible, dataIndex: 'responsibleName' },
  ];

  return (
    <>
      <Row gutter={[16, 16]} className="follow-overview-stats">
        <Col xs={12} md={8} xl={4}>
          <StatCard
            title={t.thisWeek}
            extra={<Link to={link({ startDate: o.weekStart, endDate: o.weekEnd })}>{t.openRecords}</Link>}
          >
            <Statistic title={t.thisWeek} value={o.thisWeek.total} />
            <div className="follow-overview-hint">
              {t.thisWeekHint(o.weekStart, o.weekEnd, o.thisWeek.done, o.thisWeek.pending)}
            </div>
          </StatCard>
        </Col>
        <Col xs={12} md={8} xl={4}>
          <StatCard title={t.due} extra={<Link to={link({ state: FOLLOW_STATES.DUE })}>{t.openRecords}</Link>}>
            <Statistic title={t.due} value={o.due} valueStyle={{ color: '#1677ff' }} />
          </StatCard>
        </Col>
        <Col xs={12} md={8} xl={4}>
          <StatCard title={t.overdue} extra={<Link to={link({ state: FOLLOW_STATES.OVERDUE })}>{t.openRecords}</Link>}>
            <Statistic title={t.overdue} value={o.overdue} valueStyle={{ color: o.overdue ? '#cf1322' : undefined }} />
          </StatCard>
        </Col>
        <Col xs={12} md={8} xl={4}>
          <StatCard title={t.notDue}>
            <Statistic title={t.notDue} value={o.notDue} />
          </StatCard>
        </Col>
        <Col xs={12} md={8} xl={4}>
          <StatCard title={t.completionRate}>
            <Statistic title={t.completionRate} value={percent(o.completionRate)} />
            <div className="follow-overview-hint">{o.judged ? t.rateHint(o.judged) : t.noRate}</div>
          </StatCard>
        </Col>
        <Col xs={12} md={8} xl={4}>
          <StatCard title={t.onTimeRate}>
            <Statistic title={t.onTimeRate} value={percent(o.onTimeRate)} />
            <div className="follow-overview-hint">
              {t.onTime} {o.onTime} · {t.late} {o.late} · {t.missed} {o.missed} · {t.lost} {o.lost}
            </div>
          </StatCard>
        </Col>
      </Row>

      <h3 className="follow-overview-title">{t.perVisit}</h3>
      <Table<FollowOverviewVisit>
        size="middle"
        rowKey={(r) => `${r.planId ?? 'c'}-${r.planVisitId ?? 'c'}`}
        columns={visitColumns}
        dataSource={o.visits}
        pagination={false}
        scroll={{ x: 960 }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t.empty} /> }}
        aria-label={t.perVisit}
      />

      <Row gutter={[24, 16]}>
        <Col xs={24} xl={10}>
          <h3 className="follow-overview-title">{t.perPerson}</h3>
          <Table<FollowOverviewPerson>
            size="middle"
            rowKey={(r) => r.userId ?? 'nobody'}
            columns={personColumns}
            dataSource={o.responsible}
            pagination={false}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t.empty} /> }}
            aria-label={t.perPerson}
          />
        </Col>
        <Col xs={24} xl={14}>
          <h3 className="follow-overview-title">{t.weekList}</h3>
          <Table
            size="middle"
            rowKey="followRecordId"
            columns={weekColumns}
            dataSource={o.weekVisits}
            pagination={o.weekVisits.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
            scroll={{ x: 760 }}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t.empty} /> }}
            aria-label={t.weekList}
          />
        </Col>
      </Row>
    </>
  );
}

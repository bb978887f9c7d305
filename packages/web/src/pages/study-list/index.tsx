import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Empty, Input, Spin, Tag } from 'antd';
import { DEFAULT_PAGE_NUM, DEFAULT_PAGE_SIZE } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { studyApi, type Study } from '../../api/study.api';
import { PagingBar } from '../../components/paged-table';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { STUDY_LIST_TEXT } from '../../locales/study-list.zh-CN';
import { useAppStore } from '../../stores/app.store';
import { useSession } from '../../stores/session.store';
import { formatDate } from '../../utils/format-date';
import { StudyStatusTag } from '../study/components/study-status-tag';
import { StudyModeTag } from '../../components/test-data-tag';
import { openListParams } from './open-list-params';
import '../study/study.css';
import { queryKeys } from '../../api/query-keys';

/** 项目列表 (SHELL-01, STUDY-08): the studies the user takes part in; a card opens the study home. */
export default function StudyListPage() {
  const navigate = useNavigate();
  const setStudyName = useAppStore((s) => s.setStudyName);
  const setStudyId = useAppStore((s) => s.setStudyId);
  const [keyword, setKeyword] = useState('');
  const [paging, setPaging] = useState({ pageNum: DEFAULT_PAGE_NUM, pageSize: DEFAULT_PAGE_SIZE });

  // The server answers nothing else until a first password is changed; the list loads right after.
  const passwordMust = useSession((s) => s.setPasswordMust);
  const { data, isLoading, isFetching } = useQuery({
    queryKey: queryKeys.study.openList(keyword, paging),
    enabled: !passwordMust,
    queryFn: () => studyApi.openList(openListParams(paging, keyword)).then((res) => res.data),
    placeholderData: keepPreviousData,
  });

  const enter = (study: Study) => {
    setStudyName(study.studyName);
    setStudyId(String(study.id));
    void navigate(`/project/${study.id}/home`);
  };

  const list = data?.list ?? [];
  const total = data?.total ?? 0;

  return (
    <div className="page-card">
      <div className="study-page-head">
        <h2 className="page-title">{STUDY_LIST_TEXT.title}</h2>
        <Input.Search
          allowClear
          aria-label={STUDY_LIST_TEXT.name}
          placeholder={STUDY_LIST_TEXT.searchPlaceholder}
          enterButton={COMMON_TEXT.search}
          style={{ width: 320 }}
          onSearch={(value) => {
            setKeyword(value.trim());
            setPaging((current) => ({ ...current, pageNum: DEFAULT_PAGE_NUM }));
          }}
        />
      </div>
      {isLoading ? (
        <Spin style={{ display: 'block', margin: '64px auto' }} />
      ) : list.length === 0 ? (
        <Empty style={{ margin: '48px 0' }} description={keyword ? COMMON_TEXT.empty : STUDY_LIST_TEXT.emptyHint} />
      ) : (
        <Spin spinning={isFetching}>
          <div className="study-cards">
            {list.map((study) => (
              <Card
                key={study.id}
                hoverable
                className="study-card"
                role="link"
                tabIndex={0}
                onClick={() => enter(study)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') enter(study);
                }}
              >
                {/* The card's own text is its name (what is seen is what speech input can say), led by 进入项目. */}
                <span className="sr-only">{STUDY_LIST_TEXT.enter} </span>
                <div style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
                  <span className="study-card-name" title={study.studyName}>
                    {study.studyName}
                  </span>
                  <StudyStatusTag status={study.status} />
                  <StudyModeTag mode={study.mode} />
                </div>
                <div className="study-card-meta" style={{ display: 'flex', gap: 16 }}>
                  <span>
                    {STUDY_LIST_TEXT.code}：{study.studyCode || '—'}
                  </span>
                  {study.principal && (
                    <span>
                      {STUDY_LIST_TEXT.principal}：{study.principal}
                    </span>
                  )}
                </div>
                <div className="study-card-meta">
                  {STUDY_LIST_TEXT.myRole}：{study.myRole ? <Tag color="cyan">{study.myRole.roleName}</Tag> : '—'}
                </div>
                <div className="study-card-stats">
                  <span className="study-card-stat">
                    <strong>{study.subjectCount ?? 0}</strong>
                    <span className="study-card-meta">{STUDY_LIST_TEXT.subjects}</span>
                  </span>
                  <span className="study-card-stat">
                    <strong>{study.memberCount ?? 0}</strong>
                    <span className="study-card-meta">{STUDY_LIST_TEXT.members}</span>
                  </span>
                  <span className="study-card-stat" style={{ marginLeft: 'auto', justifyContent: 'flex-end' }}>
                    <span className="study-card-meta">{formatDate(study.createTime, 'YYYY-MM-DD')}</span>
                    <span className="study-card-meta">{COMMON_TEXT.createTime}</span>
                  </span>
                </div>
              </Card>
            ))}
          </div>
        </Spin>
      )}
      {total > 0 && <PagingBar paging={paging} total={total} onChange={setPaging} />}
    </div>
  );
}

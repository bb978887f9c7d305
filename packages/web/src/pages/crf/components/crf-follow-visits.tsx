import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import { useNavigate } from 'react-router';
import { FOLLOW_STATE_COLORS, FOLLOW_STATE_NAMES, FOLLOW_STATES, type FollowState } from '@ecrf/core';
import { followApi, followCrfUrl } from '../../../api/follow.api';
import { queryKeys } from '../../../api/query-keys';
import { FOLLOW_TEXT } from '../../../locales/follow.zh-CN';

/**
 * The patient's follow-up visits beside the forms (issue 14): name, planned date and state; a visit's first form
 * opens on this page for that visit. Deleted visits are left out; nothing shows for a patient without visits.
 */
export function CrfFollowVisits({ subjectRecordId, menu }: { subjectRecordId: number; menu: unknown }) {
  const navigate = useNavigate();
  const visits = useQuery({
    queryKey: queryKeys.follow.subject(subjectRecordId),
    queryFn: () => followApi.subjectFollows(subjectRecordId, true).then((res) => res.data),
  });
  // A save refetches the form menu; a submitted visit form may have completed its visit meanwhile.
  const { refetch } = visits;
  useEffect(() => {
    if (menu) void refetch();
  }, [menu, refetch]);
  const shown = (visits.data ?? []).filter((v) => v.state !== FOLLOW_STATES.DELETED);
  if (shown.length === 0) return null;
  return (
    <section className="crf-follow" aria-label={FOLLOW_TEXT.recordTitle}>
      <h3 className="crf-follow-title">{FOLLOW_TEXT.recordTitle}</h3>
      <ul className="crf-follow-list">
        {shown.map((v) => {
          const form = v.crfs[0];
          const label = (
            <>
              <span className="crf-follow-name">{v.visitName}</span>
              <span className="crf-follow-date">{v.plannedDate}</span>
              <Tag color={FOLLOW_STATE_COLORS[v.state as FollowState]}>
                {FOLLOW_STATE_NAMES[v.state as FollowState]}
              </Tag>
            </>
          );
          return (
            <li key={v.followRecordId}>
              {form && v.state !== FOLLOW_STATES.LOST ? (
                <button
                  type="button"
                  className="crf-follow-item"
                  onClick={() => void navigate(followCrfUrl(subjectRecordId, form))}
                >
                  {label}
                </button>
              ) : (
                <span className="crf-follow-item">{label}</span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

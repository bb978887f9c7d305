import { AlertOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Tooltip } from 'antd';
import { useNavigate } from 'react-router';
import { buttonKey, hasPermission, roleHolds, STUDY_MANAGE } from '@ecrf/core';
import { queryKeys } from '../api/query-keys';
import { safetyApi } from '../api/safety.api';
import { studyApi } from '../api/study.api';
import { SAFETY_TEXT } from '../locales/safety.zh-CN';
import { useSession } from '../stores/session.store';

/** The count is pushed (personsignalhub `counts`); this slow read is the safety net for a push missed. */
const SAE_COUNT_SAFETY_POLL_MS = 10 * 60_000;

/**
 * The top bar's count of SAE reports waiting to be submitted (issue 37), for holders of 安全性报告 only, shown while
 * any is pending: a 24-hour clock is running. It opens 不良事件.
 */
export function SaeCountButton({ studyId }: { studyId: number }) {
  const navigate = useNavigate();
  const permissions = useSession((s) => s.permissions);
  const buttonPermissions = useSession((s) => s.buttonPermissions);
  // The study's detail carries the caller's study role (shared with the project pages' cache).
  const study = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    queryFn: () => studyApi.get(studyId).then((res) => res.data),
  }).data;
  // The rule of the project pages' canInStudy (layouts import no pages): 项目维护 or the key in the study role.
  const holder =
    Boolean(study) &&
    (hasPermission([...permissions, ...buttonPermissions], STUDY_MANAGE) ||
      roleHolds(study?.myRole?.permissions ?? [], buttonKey('business.safety')));
  const pending =
    useQuery({
      queryKey: queryKeys.safety.count(studyId),
      queryFn: () => safetyApi.count(studyId).then((res) => res.data.pending),
      enabled: holder,
      refetchInterval: SAE_COUNT_SAFETY_POLL_MS,
    }).data ?? 0;
  if (!holder || pending === 0) return null;
  const label = SAFETY_TEXT.pendingSaes(pending);
  return (
    <Tooltip title={label}>
      <Badge count={pending} size="small" offset={[-6, 6]}>
        <Button
          type="text"
          danger
          className="top-bar-sae"
          aria-label={label}
          icon={<AlertOutlined aria-hidden />}
          onClick={() => void navigate(`/project/${studyId}/safety`)}
        />
      </Badge>
    </Tooltip>
  );
}

import { useEffect, useState } from 'react';
import {
  BellOutlined,
  CalendarOutlined,
  DownOutlined,
  KeyOutlined,
  LogoutOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  QrcodeOutlined,
  QuestionCircleOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Avatar, Badge, Button, Popover, Tooltip } from 'antd';
import { useNavigate } from 'react-router';
import { doubtApi } from '../api/doubt.api';
import { calendarVisitsApi, eventsApi } from '../api/events.api';
import { ChangePasswordDialog } from '../components/change-password-dialog';
import { OpenStudyModeTag } from '../components/test-data-tag';
import { useProductTitle } from '../hooks/use-product-title';
import { SHELL_TEXT } from '../locales/shell.zh-CN';
import type { RouteLayout } from '../router-guard';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';
import { SpeechSwitch } from '../realtime/speech-switch';
import { HEADER_HEIGHT } from '../theme';
import { CrfTopBarLeadSlot, CrfTopBarSlot } from './crf-layout';
import { HelpDialog } from './help-dialog';
import { JobsButton } from './jobs-drawer';
import { NoticeBell } from './notice-bell';
import { GlobalSearchBox } from './global-search-box';
import { DataSync } from './data-sync';
import { ProfileDialog } from './profile-dialog';
import { StudyQrDialog } from './study-qr-dialog';
import { useLogout } from './use-logout';
import { queryKeys } from '../api/query-keys';
import { SaeCountButton } from './sae-count-button';

/** The follow dot's count is pushed; it is read again this often only in case a push was missed. */
export const VISIT_COUNT_SAFETY_POLL_MS = 30 * 60_000;

/** platform §2: the bar sticks to the top once the content has scrolled this far. */
export const FIX_AFTER_SCROLL = 75;

export function isBarFixed(scrollY: number): boolean {
  return scrollY >= FIX_AFTER_SCROLL;
}

type Dialog = 'profile' | 'password' | 'help' | 'qr' | null;

interface TopBarProps {
  layout: RouteLayout;
  siderWidth: number;
}

export function TopBar({ layout, siderWidth }: TopBarProps) {
  const navigate = useNavigate();
  const productTitle = useProductTitle();
  const collapse = useAppStore((s) => s.collapse);
  const toggleCollapse = useAppStore((s) => s.toggleCollapse);
  const studyId = useAppStore((s) => s.studyId);
  const studyName = useAppStore((s) => s.studyName);
  const user = useSession((s) => s.user);
  const token = useSession((s) => s.token);
  const endSession = useLogout();
  const [fixed, setFixed] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [popoverOpen, setPopoverOpen] = useState(false);

  // The bell's dot counts the queries waiting for this user (open ones to answer, replied ones to close) and the
  // visits below. The query count is pushed by the realtime hub when it changes (realtime/realtime-bridge.tsx).
  const doubtsWaiting = useQuery({
    queryKey: queryKeys.doubt.count(studyId),
    queryFn: () => doubtApi.count(Number(studyId)).then((res) => res.data.waiting),
    enabled: layout === 'project' && Boolean(studyId) && Boolean(token),
  }).data;
  // Today's own events (SHELL-22): pushed on personsignalhub `counts` when the user changes one; the day turning
  // over is no event anyone pushes, so the count is also read again every 10 minutes.
  const calendarCount =
    useQuery({
      queryKey: queryKeys.calendar.count(studyId),
      queryFn: () => eventsApi.count(Number(studyId)).then((res) => res.data.today),
      enabled: layout === 'project' && Boolean(studyId) && Boolean(token),
      refetchInterval: 10 * 60_000,
    }).data ?? 0;
  // Visits 待随访 or 已超窗 the user is responsible for: pushed on personsignalhub `counts` whenever a visit of theirs
  // changes state (the hourly state task, a submission, 失访, a date change, rescheduling). A slow poll stays as
  // the safety net for a push lost while the connection was down.
  const visitsWaiting =
    useQuery({
      queryKey: queryKeys.calendar.visitCount(studyId),
      queryFn: () => calendarVisitsApi.waitingFor(Number(studyId), user!.userId),
      enabled: layout === 'project' && Boolean(studyId) && Boolean(token) && Boolean(user),
      refetchInterval: VISIT_COUNT_SAFETY_POLL_MS,
    }).data ?? 0;
  const followCount = (doubtsWaiting ?? 0) + visitsWaiting;
  const followLabel =
    visitsWaiting > 0
      ? SHELL_TEXT.followWithVisits(visitsWaiting, doubtsWaiting ?? 0)
      : followCount > 0
        ? SHELL_TEXT.followWithDoubts(followCount)
        : SHELL_TEXT.follow;

  useEffect(() => {
    const onScroll = () => setFixed(isBarFixed(window.scrollY));
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  const isProject = layout === 'project';
  const title = isProject && studyName ? studyName : productTitle;
  const showPersonal = layout !== 'crf' && Boolean(token);

  const open = (next: Dialog) => {
    setPopoverOpen(false);
    setDialog(next);
  };

  const logout = () => {
    setPopoverOpen(false);
    void endSession();
  };

  const userMenu = (
    <div className="user-popover">
      <div className="user-popover-head">
        <div className="user-popover-name">{user?.name}</div>
        {user?.remark && <div className="user-popover-remark">{user.remark}</div>}
      </div>
      <Button type="text" block icon={<UserOutlined aria-hidden />} onClick={() => open('profile')}>
        {SHELL_TEXT.profile}
      </Button>
      <Button type="text" block icon={<KeyOutlined aria-hidden />} onClick={() => open('password')}>
        {SHELL_TEXT.changePassword}
      </Button>
      <Button type="text" block icon={<QuestionCircleOutlined aria-hidden />} onClick={() => open('help')}>
        {SHELL_TEXT.help}
      </Button>
      <SpeechSwitch />
      <Button type="text" block danger icon={<LogoutOutlined aria-hidden />} onClick={logout}>
        {SHELL_TEXT.logout}
      </Button>
    </div>
  );

  return (
    <>
      {fixed && <div style={{ height: HEADER_HEIGHT }} />}
      <header
        className={`top-bar${fixed ? ' top-bar-fixed' : ''}`}
        style={fixed ? { position: 'fixed', top: 0, left: siderWidth, right: 0 } : undefined}
      >
        {layout !== 'crf' && token && (
          <Button
            type="text"
            aria-label={collapse ? SHELL_TEXT.expandMenu : SHELL_TEXT.collapseMenu}
            icon={collapse ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
            onClick={toggleCollapse}
          />
        )}
        {layout === 'crf' && token && <CrfTopBarLeadSlot />}
        <h1 className="top-bar-title">{title}</h1>
        {isProject && studyId && token && <OpenStudyModeTag studyId={Number(studyId)} />}
        <div className="top-bar-actions">
          {layout === 'crf' && token && <CrfTopBarSlot />}
          {isProject && studyId && token && (
            <>
              <Tooltip title={SHELL_TEXT.qrCode}>
                <Button
                  type="text"
                  aria-label={SHELL_TEXT.qrCode}
                  icon={<QrcodeOutlined aria-hidden />}
                  onClick={() => open('qr')}
                />
              </Tooltip>
              <Tooltip title={calendarCount > 0 ? SHELL_TEXT.calendarWithEvents(calendarCount) : SHELL_TEXT.calendar}>
                <Badge dot={calendarCount > 0} offset={[-6, 6]}>
                  <Button
                    type="text"
                    className="top-bar-calendar"
                    aria-label={calendarCount > 0 ? SHELL_TEXT.calendarWithEvents(calendarCount) : SHELL_TEXT.calendar}
                    icon={<CalendarOutlined aria-hidden />}
                    onClick={() => void navigate(`/project/${studyId}/calendar`)}
                  />
                </Badge>
              </Tooltip>
              <SaeCountButton studyId={Number(studyId)} />
              <Tooltip title={followLabel}>
                <Badge dot={followCount > 0} offset={[-6, 6]}>
                  <Button
                    type="text"
                    className="top-bar-follow"
                    aria-label={followLabel}
                    icon={<BellOutlined aria-hidden />}
                    onClick={() => void navigate(`/project/${studyId}/follow/record`)}
                  />
                </Badge>
              </Tooltip>
            </>
          )}
          {showPersonal && <GlobalSearchBox />}
          {showPersonal && <DataSync />}
          {showPersonal && <JobsButton />}
          {showPersonal && <NoticeBell />}
          {showPersonal && (
            <Popover
              content={userMenu}
              trigger="click"
              placement="bottomRight"
              open={popoverOpen}
              onOpenChange={setPopoverOpen}
            >
              <button type="button" className="top-bar-user" aria-label={user?.name ?? ''}>
                <Avatar size={32} icon={<UserOutlined aria-hidden />} style={{ background: '#099dad' }} />
                <span className="top-bar-user-name">{user?.name}</span>
                <DownOutlined style={{ fontSize: 10 }} />
              </button>
            </Popover>
          )}
        </div>
      </header>
      <ProfileDialog open={dialog === 'profile'} onClose={() => setDialog(null)} />
      <HelpDialog open={dialog === 'help'} onClose={() => setDialog(null)} />
      <ChangePasswordDialog
        open={dialog === 'password'}
        mode="normal"
        target={user ? { userId: user.userId, userName: user.userName } : null}
        onClose={() => setDialog(null)}
      />
      {isProject && (
        <StudyQrDialog open={dialog === 'qr'} studyId={studyId} studyName={studyName} onClose={() => setDialog(null)} />
      )}
    </>
  );
}

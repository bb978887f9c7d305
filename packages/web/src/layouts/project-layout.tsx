import { useMemo } from 'react';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Tooltip } from 'antd';
import { PROJECT_MENU_HIDDEN_CODES, type MenuNode } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { SHELL_TEXT } from '../locales/shell.zh-CN';
import { useAppStore } from '../stores/app.store';
import { DEFAULT_HOME_PATH } from '../router-guard';
import { menuEntries } from './menu-tree';
import { SideMenu } from './side-menu';

/**
 * Side menu of the project layout: the level-1 entries without project.biology and
 * project.crfUpload (SHELL-18), under a back link to the study list (SHELL-20).
 */
export function ProjectLayoutMenu({ menus, collapsed }: { menus: readonly MenuNode[]; collapsed: boolean }) {
  const entries = useMemo(() => menuEntries(menus, 1, PROJECT_MENU_HIDDEN_CODES), [menus]);
  const studyId = useAppStore((s) => s.studyId);
  const leaveStudy = useAppStore((s) => s.leaveStudy);
  const navigate = useNavigate();

  const back = () => {
    leaveStudy();
    void navigate(DEFAULT_HOME_PATH);
  };

  const link = (
    <a
      href={DEFAULT_HOME_PATH}
      className="project-back-link"
      aria-label={SHELL_TEXT.backToStudyList}
      onClick={(event) => {
        event.preventDefault();
        back();
      }}
    >
      <ArrowLeftOutlined />
      {!collapsed && <span>{SHELL_TEXT.backToStudyList}</span>}
    </a>
  );

  return (
    <>
      {collapsed ? (
        <Tooltip title={SHELL_TEXT.backToStudyList} placement="right">
          {link}
        </Tooltip>
      ) : (
        link
      )}
      <SideMenu entries={entries} studyId={studyId} collapsed={collapsed} />
    </>
  );
}

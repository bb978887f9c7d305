import { Dropdown, Tabs, type MenuProps } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { TABS_TEXT } from '../locales/tabs.zh-CN';
import {
  closeAllViews,
  closeOtherViews,
  closeView,
  useAppStore,
  type CloseResult,
  type VisitedView,
} from '../stores/app.store';

type TabAction = 'refresh' | 'close' | 'closeOthers' | 'closeAll';

/** One tab per visited route; the context menu refreshes or closes tabs (SHELL-26..29). */
export function TabStrip() {
  const location = useLocation();
  const navigate = useNavigate();
  const views = useAppStore((s) => s.visitedViews);
  const setViews = useAppStore((s) => s.setVisitedViews);
  const dropCache = useAppStore((s) => s.dropCache);
  const active = location.pathname;

  const apply = ({ views: rest, next }: CloseResult) => {
    setViews(rest);
    if (next !== null) void navigate(next);
  };

  const run = (action: TabAction, view: VisitedView) => {
    switch (action) {
      case 'refresh':
        // A kept-alive page must really remount, so its cached instance is dropped first.
        dropCache(view.pathname);
        void navigate(`/redirect${view.path}`, { replace: true });
        return;
      case 'close':
        apply(closeView(views, view.pathname, active));
        return;
      case 'closeOthers':
        apply(closeOtherViews(views, view.pathname, active));
        return;
      case 'closeAll':
        apply(closeAllViews(views, active));
        return;
    }
  };

  const menuFor = (view: VisitedView): MenuProps => ({
    items: [
      { key: 'refresh', label: TABS_TEXT.refresh },
      { key: 'close', label: TABS_TEXT.close, disabled: Boolean(view.affix) },
      { key: 'closeOthers', label: TABS_TEXT.closeOthers },
      { key: 'closeAll', label: TABS_TEXT.closeAll },
    ],
    onClick: ({ key, domEvent }) => {
      domEvent.stopPropagation();
      run(key as TabAction, view);
    },
  });

  return (
    <div className="tab-strip">
      <Tabs
        type="editable-card"
        hideAdd
        size="small"
        activeKey={active}
        onTabClick={(key) => {
          // Compare with the address bar, not the rendered location: while a page's chunk is
          // still loading the old page stays on screen and its tab must still respond.
          const view = views.find((v) => v.pathname === key);
          if (view && view.path !== `${window.location.pathname}${window.location.search}`) void navigate(view.path);
        }}
        onEdit={(key, action) => {
          if (action !== 'remove') return;
          const view = views.find((v) => v.pathname === key);
          if (view) run('close', view);
        }}
        items={views.map((view) => ({
          key: view.pathname,
          closable: !view.affix,
          label: (
            <Dropdown menu={menuFor(view)} trigger={['contextMenu']}>
              <span className="tab-strip-label">{view.title}</span>
            </Dropdown>
          ),
        }))}
      />
    </div>
  );
}

import { Suspense, useCallback, useEffect, useRef } from 'react';
import { MedicineBoxOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Drawer, Grid, Layout } from 'antd';
import { matchRoutes, useLocation, useMatches, type RouteObject } from 'react-router';
import { ACCOUNT_POLICY_MSG, type MenuNode } from '@ecrf/core';
import { authApi } from '../api/auth.api';
import { ChangePasswordDialog } from '../components/change-password-dialog';
import { PageLoading } from '../components/page-loading';
import type { RouteLayout, RouteMeta } from '../router-guard';
import { MENU_WIDTH_COLLAPSED, MENU_WIDTH_EXPANDED, useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';
import { setSignOutNotice } from '../stores/sign-out-notice';
import { IdleSignOut } from './idle-sign-out';
import { KeepAliveOutlet } from './keep-alive-outlet';
import { MainLayoutMenu } from './main-layout';
import { ProjectLayoutMenu } from './project-layout';
import { TabStrip } from './tab-strip';
import { TopBar } from './top-bar';
import { useLogout } from './use-logout';
import { queryKeys } from '../api/query-keys';

const NO_MENUS: MenuNode[] = [];

/**
 * The signed-in frame around every page: side menu of the main or project layout, top bar,
 * tab strip and the kept-alive content. One shell serves all layouts so that switching
 * between main and project pages keeps the cached pages mounted.
 */
/** The layout of a path as the route table declares it. */
function layoutOf(routes: RouteObject[], pathname: string): RouteLayout {
  const meta = matchRoutes(routes, pathname)?.at(-1)?.route.handle as RouteMeta | undefined;
  return meta?.layout ?? 'main';
}

export default function AppShell({ routes }: { routes: RouteObject[] }) {
  const location = useLocation();
  const meta = useMatches().at(-1)?.handle as RouteMeta | undefined;
  const token = useSession((s) => s.token);
  const user = useSession((s) => s.user);
  const setInfo = useSession((s) => s.setInfo);
  const setPasswordMust = useSession((s) => s.setPasswordMust);
  const passwordChanged = useSession((s) => s.passwordChanged);
  const logout = useLogout();
  const collapse = useAppStore((s) => s.collapse);
  const setCollapse = useAppStore((s) => s.setCollapse);
  const visit = useAppStore((s) => s.visit);
  // Below a tablet's width the menu would leave the page a sliver: it becomes a drawer over the page,
  // closed until the menu button opens it and closed again by choosing a page.
  const phone = Grid.useBreakpoint().md === false;

  // The /redirect hop has no layout of its own: it shows the layout of the page it reloads.
  const layout: RouteLayout = meta?.transient
    ? layoutOf(routes, location.pathname.replace(/^\/redirect/, '') || '/')
    : (meta?.layout ?? 'main');

  const routers = useQuery({
    queryKey: queryKeys.account.routers(),
    queryFn: () => authApi.getRouters().then((res) => res.data),
    enabled: Boolean(token),
    staleTime: 5 * 60 * 1000,
  });

  const info = useQuery({
    queryKey: queryKeys.account.info(),
    queryFn: () => authApi.getInfo().then((res) => res.data),
    enabled: Boolean(token),
    staleTime: 5 * 60 * 1000,
  });

  useEffect(() => {
    if (info.data) setInfo(info.data);
  }, [info.data, setInfo]);

  useEffect(() => {
    if (!meta || meta.transient || meta.name === 'notFound') return;
    visit({
      path: `${location.pathname}${location.search}`,
      pathname: location.pathname,
      name: meta.name,
      title: meta.title,
    });
  }, [location.pathname, location.search, meta, visit]);

  const wasPhone = useRef(false);
  useEffect(() => {
    if (phone) setCollapse(true);
    // Back at a wider screen (a tablet turned), the menu is beside the page again.
    else if (wasPhone.current) setCollapse(false);
    wasPhone.current = phone;
  }, [phone, location.pathname, setCollapse]);

  const menus = routers.data ?? NO_MENUS;
  // Idle sign-out (系统设置 无操作自动退出): the sign-in page then says why.
  const idleMinutes = info.data?.idleTimeoutMinutes;
  const signOutIdle = useCallback(() => {
    setSignOutNotice(ACCOUNT_POLICY_MSG.idleSignedOut);
    void logout('/login');
  }, [logout]);
  // A visitor without a session (the public study home) gets the page alone, without the
  // menus, tabs and study tools that all need a signed-in user.
  const signedIn = Boolean(token);
  const hasSider = signedIn && layout !== 'crf';
  const siderWidth = hasSider && !phone ? (collapse ? MENU_WIDTH_COLLAPSED : MENU_WIDTH_EXPANDED) : 0;
  const menu = (collapsed: boolean) => (
    <>
      <div className="app-sider-brand">
        <MedicineBoxOutlined />
      </div>
      {layout === 'project' ? (
        <ProjectLayoutMenu menus={menus} collapsed={collapsed} />
      ) : (
        <MainLayoutMenu menus={menus} collapsed={collapsed} />
      )}
    </>
  );

  return (
    <Layout className="app-shell" style={{ minHeight: '100vh' }}>
      {hasSider && !phone && (
        <Layout.Sider
          className="app-sider"
          width={MENU_WIDTH_EXPANDED}
          collapsedWidth={MENU_WIDTH_COLLAPSED}
          collapsed={collapse}
          trigger={null}
          style={{ position: 'fixed', insetBlock: 0, left: 0, overflow: 'auto', zIndex: 30 }}
        >
          {menu(collapse)}
        </Layout.Sider>
      )}
      {hasSider && phone && (
        <Drawer
          rootClassName="app-sider-drawer"
          aria-label="菜单"
          placement="left"
          open={!collapse}
          onClose={() => setCollapse(true)}
          closable={false}
          size={MENU_WIDTH_EXPANDED}
          styles={{ body: { padding: 0 } }}
        >
          <nav>{menu(false)}</nav>
        </Drawer>
      )}
      <Layout style={{ marginLeft: siderWidth, transition: 'margin-left 0.2s' }}>
        <TopBar layout={layout} siderWidth={siderWidth} />
        {signedIn && <TabStrip />}
        <Layout.Content className="app-content">
          <Suspense fallback={<PageLoading />}>
            <KeepAliveOutlet routes={routes} />
          </Suspense>
        </Layout.Content>
      </Layout>
      {token && idleMinutes ? (
        <IdleSignOut idleMinutes={idleMinutes} onExpire={signOutIdle} ping={authApi.ping} />
      ) : null}
      {/* A first sign-in with the initial password must change it before anything else. */}
      <ChangePasswordDialog
        open={Boolean(token) && setPasswordMust}
        mode="must"
        target={user ? { userId: user.userId, userName: user.userName } : null}
        onClose={() => undefined}
        onSuccess={passwordChanged}
        onLogout={() => void logout('/login')}
      />
    </Layout>
  );
}

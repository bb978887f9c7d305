import { Suspense, useEffect } from 'react';
import { Navigate, Outlet, useLocation, useMatches } from 'react-router';
import NProgress from 'nprogress';
import { PageLoading } from '../components/page-loading';
import { useProductTitle } from '../hooks/use-product-title';
import { decideNavigation, pageTitle, studyIdOf, type RouteMeta } from '../router-guard';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';

interface RootLayoutProps {
  /** Turns the user's home route name into a path (kept in router.tsx with the route table). */
  resolveHome: (name: string | null | undefined) => string | null;
}

/** Applies the navigation guard, the page title, scroll reset and the current study id. */
export default function RootLayout({ resolveHome }: RootLayoutProps) {
  const location = useLocation();
  const matches = useMatches();
  const match = matches.at(-1);
  const meta = match?.handle as RouteMeta | undefined;
  const token = useSession((s) => s.token);
  const home = useSession((s) => s.user?.home);
  const productTitle = useProductTitle();
  const setStudyId = useAppStore((s) => s.setStudyId);
  const studyId = studyIdOf(meta, match?.params ?? {});

  const decision = decideNavigation({
    hasToken: Boolean(token),
    pathname: location.pathname,
    meta,
    homePath: resolveHome(home),
  });

  useEffect(() => {
    document.title = pageTitle(meta, productTitle);
  }, [meta, productTitle]);

  useEffect(() => {
    window.scrollTo(0, 0);
    NProgress.done();
  }, [location.key]);

  useEffect(() => {
    if (studyId) setStudyId(studyId);
  }, [studyId, setStudyId]);

  if (decision.action === 'redirect') return <Navigate to={decision.to} replace />;
  return (
    <Suspense fallback={<PageLoading />}>
      <Outlet />
    </Suspense>
  );
}

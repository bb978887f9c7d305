import { useMemo, useState } from 'react';
import {
  matchRoutes,
  UNSAFE_RouteContext as RouteContext,
  useLocation,
  useMatches,
  useOutlet,
  useRoutes,
  type RouteObject,
} from 'react-router';
import type { RouteMeta } from '../router-guard';
import { useAppStore } from '../stores/app.store';

// Kept pages are matched from the root on their own, not below the shell's match.
const ROOT_CONTEXT = { outlet: null, matches: [], isDataRoute: false };

function isKeptAlive(routes: RouteObject[], pathname: string): boolean {
  const meta = matchRoutes(routes, pathname)?.at(-1)?.route.handle as RouteMeta | undefined;
  return Boolean(meta?.keepAlive) && !meta?.transient;
}

/** One kept page, rendered for its own location so that hidden it still sees its own path and query. */
function KeptPage({ routes, location }: { routes: RouteObject[]; location: string }) {
  return useRoutes(routes, location);
}

interface KeptEntry {
  pathname: string;
  location: string;
}

/**
 * A small keep-alive (SHELL-14): pages marked keepAlive stay mounted, hidden, while the user
 * works in another tab, so filters, paging and half-typed dialogs survive a tab switch. A page
 * leaves when its tab closes, and remounts when its tab is refreshed (its cache epoch moves).
 */
export function KeepAliveOutlet({ routes }: { routes: RouteObject[] }) {
  const outlet = useOutlet();
  const location = useLocation();
  const meta = useMatches().at(-1)?.handle as RouteMeta | undefined;
  const views = useAppStore((s) => s.visitedViews);
  const epochs = useAppStore((s) => s.cacheEpoch);
  const keepCurrent = Boolean(meta?.keepAlive) && !meta?.transient;
  const current = `${location.pathname}${location.search}`;
  // Only pages opened in this session are kept; a pinned tab never opened stays unmounted.
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  if (keepCurrent && !opened.has(location.pathname)) setOpened(new Set(opened).add(location.pathname));

  const kept = useMemo<KeptEntry[]>(() => {
    const entries = views
      .filter((view) => opened.has(view.pathname) && isKeptAlive(routes, view.pathname))
      .map((view) => ({
        pathname: view.pathname,
        location: view.pathname === location.pathname ? current : view.path,
      }));
    if (keepCurrent && !entries.some((entry) => entry.pathname === location.pathname)) {
      entries.push({ pathname: location.pathname, location: current });
    }
    return entries;
  }, [views, routes, opened, keepCurrent, location.pathname, current]);

  return (
    <>
      {kept.map((entry) => (
        <div
          key={`${entry.pathname}#${epochs[entry.pathname] ?? 0}`}
          className="keep-alive-page"
          hidden={!(keepCurrent && entry.pathname === location.pathname)}
        >
          <RouteContext.Provider value={ROOT_CONTEXT}>
            <KeptPage routes={routes} location={entry.location} />
          </RouteContext.Provider>
        </div>
      ))}
      {!keepCurrent && <div key={`live:${location.pathname}`}>{outlet}</div>}
    </>
  );
}

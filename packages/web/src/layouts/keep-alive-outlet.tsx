import { useRef, type ReactNode } from 'react';
import { useLocation, useMatches, useOutlet } from 'react-router';
import type { RouteMeta } from '../router-guard';
import { useAppStore } from '../stores/app.store';

/**
 * A small keep-alive (SHELL-14): pages marked keepAlive stay mounted, hidden, while the user
 * is on another tab, so filters, paging and half-typed dialogs survive a tab switch. A page
 * leaves the cache when its tab closes or is refreshed.
 */
export function KeepAliveOutlet() {
  const outlet = useOutlet();
  const location = useLocation();
  const meta = useMatches().at(-1)?.handle as RouteMeta | undefined;
  const views = useAppStore((s) => s.visitedViews);
  const epochs = useAppStore((s) => s.cacheEpoch);
  const cache = useRef(new Map<string, ReactNode>());

  const keyOf = (pathname: string) => `${pathname}#${epochs[pathname] ?? 0}`;
  const currentKey = keyOf(location.pathname);
  const keepCurrent = Boolean(meta?.keepAlive) && !meta?.transient;

  if (keepCurrent) cache.current.set(currentKey, outlet);
  for (const key of [...cache.current.keys()]) {
    const pathname = key.slice(0, key.lastIndexOf('#'));
    const stale = key !== keyOf(pathname);
    const tabClosed = key !== currentKey && !views.some((view) => view.pathname === pathname);
    if (stale || tabClosed) cache.current.delete(key);
  }

  return (
    <>
      {[...cache.current.entries()].map(([key, element]) => (
        <div key={key} className="keep-alive-page" hidden={key !== currentKey}>
          {element}
        </div>
      ))}
      {!keepCurrent && <div key={`live:${location.pathname}`}>{outlet}</div>}
    </>
  );
}

/**
 * Pure navigation rules (platform §2 "Navigation guard"), kept apart from React so they are
 * unit-tested directly. The router's root element applies the decision.
 */
export type RouteLayout = 'main' | 'project' | 'crf' | 'blank';

export interface RouteMeta {
  /** Route name: study ids are read from routes whose name contains "project" (SHELL-13). */
  name: string;
  title: string;
  /** Open without a token (login, meil, study home). */
  noAuth?: boolean;
  /** Kept mounted, hidden, while the user works in other tabs (SHELL-14). */
  keepAlive?: boolean;
  layout: RouteLayout;
  /** Not a page of its own (the /redirect hop): no tab, and the shell keeps its last layout. */
  transient?: boolean;
}

export const ROOT_PATH = '/';
export const LOGIN_PATH = '/login';
export const DEFAULT_HOME_PATH = '/studyList';

export type GuardDecision = { action: 'allow' } | { action: 'redirect'; to: string };

export interface GuardInput {
  hasToken: boolean;
  pathname: string;
  meta: Pick<RouteMeta, 'noAuth'> | undefined;
  /** The signed-in user's own landing page, when one is set and resolvable. */
  homePath?: string | null;
}

export function decideNavigation({ hasToken, pathname, meta, homePath }: GuardInput): GuardDecision {
  const path = normalize(pathname);
  if (hasToken) {
    if (path === LOGIN_PATH) return { action: 'redirect', to: ROOT_PATH };
    if (path === ROOT_PATH) return { action: 'redirect', to: homePath || DEFAULT_HOME_PATH };
    // The route-level permission check always passes (platform §6); buttons are guarded instead.
    return { action: 'allow' };
  }
  if (meta?.noAuth) return { action: 'allow' };
  return path === LOGIN_PATH ? { action: 'allow' } : { action: 'redirect', to: LOGIN_PATH };
}

function normalize(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

export function pageTitle(meta: Pick<RouteMeta, 'title'> | undefined, productTitle: string): string {
  return meta?.title || productTitle;
}

/** The study id a navigation sets, or undefined when the route is not a study page. */
export function studyIdOf(
  meta: Pick<RouteMeta, 'name'> | undefined,
  params: Record<string, string | undefined>,
): string | undefined {
  if (!meta?.name.includes('project')) return undefined;
  return params.id || undefined;
}

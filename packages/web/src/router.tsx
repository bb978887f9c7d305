import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import NProgress from 'nprogress';
import { T } from './locales/zh-CN';
import type { RouteMeta } from './router-guard';
import RootLayout from './layouts/root-layout';

type Page = LazyExoticComponent<ComponentType>;

// The signed-in shell (sider, top bar, tabs) loads after sign-in, not with the sign-in page (bench/first-page.ts).
const AppShell = lazy(() => import('./layouts/app-shell'));
const Login = lazy(() => import('./pages/login'));
const StudyList = lazy(() => import('./pages/study-list'));
const UnderConstruction = lazy(() => import('./pages/under-construction'));
const NotFound = lazy(() => import('./pages/not-found'));
const Redirect = lazy(() => import('./pages/redirect'));
const SysOrganization = lazy(() => import('./pages/sys/organization'));
const SysUser = lazy(() => import('./pages/sys/user'));
const SysRole = lazy(() => import('./pages/sys/role'));
const SysMenu = lazy(() => import('./pages/sys/menu'));
const SysNotice = lazy(() => import('./pages/sys/notice'));
const SysSettings = lazy(() => import('./pages/sys/settings'));
const ProjectConsult = lazy(() => import('./pages/project/consult'));
const StudyOperation = lazy(() => import('./pages/study/operation'));
const StudyManage = lazy(() => import('./pages/study/list'));
const StudyConfig = lazy(() => import('./pages/study/config'));
const StudyCrf = lazy(() => import('./pages/study/crf'));
const StudyCrfStage = lazy(() => import('./pages/study/crf-stage'));
const StudyCrfStageSet = lazy(() => import('./pages/study/crf-stage-set'));
const StudyRole = lazy(() => import('./pages/study/role'));
const StudyUser = lazy(() => import('./pages/study/user'));
const StudyAmendmentImpact = lazy(() => import('./pages/study/amendment/impact'));
const CrfRecord = lazy(() => import('./pages/crf'));
const CrfDetail = lazy(() => import('./pages/crf/detail'));
const ProjectDoubtList = lazy(() => import('./pages/project/doubt-list'));
const ProjectSafety = lazy(() => import('./pages/project/safety'));
const ProjectHome = lazy(() => import('./pages/project/home'));
const ProjectSubject = lazy(() => import('./pages/project/subject'));
const ProjectRetrieval = lazy(() => import('./pages/project/retrieval'));
const ProjectCalendar = lazy(() => import('./pages/project/calendar'));
const ProjectFollowOverview = lazy(() => import('./pages/project/follow/overview'));
const ProjectFollowRecord = lazy(() => import('./pages/project/follow/record'));
const ProjectFollowPlan = lazy(() => import('./pages/project/follow/plan'));
const ProjectRandomization = lazy(() => import('./pages/project/randomization'));
const ProjectRandomlySelected = lazy(() => import('./pages/project/randomly-selected'));
const ProjectWeChat = lazy(() => import('./pages/project/wechat'));
const ProjectWechatDisease = lazy(() => import('./pages/project/wechat/disease'));
const ProjectWxUser = lazy(() => import('./pages/project/wxuser'));
const Meil = lazy(() => import('./pages/patient/meil'));
const ProjectKnowledge = lazy(() => import('./pages/project/knowledge'));
const ProjectExpert = lazy(() => import('./pages/project/expert'));
const ProjectDepartment = lazy(() => import('./pages/project/department'));
const ProjectMedical = lazy(() => import('./pages/project/medical'));
const MobileKnowledgeList = lazy(() => import('./pages/m/knowledge/list'));
const MobileKnowledgeDetail = lazy(() => import('./pages/m/knowledge/detail'));

export interface AppRoute extends RouteMeta {
  path: string;
  page: Page;
}

const r = T.route;

/** The route table (platform §2) as data: every route of the spec has its page. */
export const appRoutes: AppRoute[] = [
  { path: '/login', name: 'login', title: r.login, noAuth: true, layout: 'blank', page: Login },
  // The patient side on the phone (docs/patient-portal.md): /meil, /meil/bind and /meil/form/{crfId}, all
  // under the one public, hidden route of the spec.
  { path: '/meil/*', name: 'meil', title: r.meil, noAuth: true, layout: 'blank', page: Meil },
  // Published knowledge articles for patients, public (docs/content.md).
  {
    path: '/m/knowledge',
    name: 'm.knowledge',
    title: '健康知识',
    noAuth: true,
    layout: 'blank',
    page: MobileKnowledgeList,
  },
  {
    path: '/m/knowledge/:id',
    name: 'm.knowledge.detail',
    title: '健康知识',
    noAuth: true,
    layout: 'blank',
    page: MobileKnowledgeDetail,
  },
  { path: '/studyList', name: 'studyList', title: r.studyList, keepAlive: true, layout: 'main', page: StudyList },

  {
    path: '/project/:id/home',
    name: 'project.home',
    title: r.projectHome,
    noAuth: true,
    layout: 'project',
    page: ProjectHome,
  },
  {
    path: '/project/:id/subject',
    name: 'project.subject',
    title: r.projectSubject,
    keepAlive: true,
    layout: 'project',
    page: ProjectSubject,
  },
  {
    path: '/project/:id/follow',
    name: 'project.follow',
    title: r.projectFollow,
    layout: 'project',
    page: ProjectFollowOverview,
  },
  {
    path: '/project/:id/follow/record',
    name: 'project.follow.record',
    title: r.projectFollowRecord,
    layout: 'project',
    page: ProjectFollowRecord,
  },
  {
    path: '/project/:id/follow/plan',
    name: 'project.follow.plan',
    title: r.projectFollowPlan,
    layout: 'project',
    page: ProjectFollowPlan,
  },
  {
    path: '/project/:id/calendar',
    name: 'project.calendar',
    title: r.projectCalendar,
    layout: 'project',
    page: ProjectCalendar,
  },
  {
    path: '/project/:id/retrieval',
    name: 'project.retrieval',
    title: r.projectRetrieval,
    layout: 'project',
    page: ProjectRetrieval,
  },
  {
    path: '/project/:id/randomization',
    name: 'project.randomization',
    title: r.projectRandomization,
    layout: 'project',
    page: ProjectRandomization,
  },
  {
    path: '/project/:id/randomlySelected',
    name: 'project.randomlySelected',
    title: r.projectRandomlySelected,
    layout: 'project',
    page: ProjectRandomlySelected,
  },
  {
    path: '/project/:id/doubtList',
    name: 'project.doubtList',
    title: r.projectDoubtList,
    layout: 'project',
    page: ProjectDoubtList,
  },
  {
    path: '/project/:id/safety',
    name: 'project.safety',
    title: r.projectSafety,
    layout: 'project',
    page: ProjectSafety,
  },
  {
    path: '/project/:id/weChat',
    name: 'project.weChat',
    title: r.projectWeChat,
    layout: 'project',
    page: ProjectWeChat,
  },
  {
    path: '/project/:id/wechat/disease',
    name: 'project.wechat.disease',
    title: r.projectWechatDisease,
    layout: 'project',
    page: ProjectWechatDisease,
  },
  {
    path: '/project/expert',
    name: 'project.expert',
    title: r.projectExpert,
    layout: 'project',
    page: ProjectExpert,
  },
  {
    path: '/project/department',
    name: 'project.department',
    title: r.projectDepartment,
    layout: 'project',
    page: ProjectDepartment,
  },
  {
    path: '/project/consult',
    name: 'project.consult',
    title: r.projectConsult,
    layout: 'project',
    page: ProjectConsult,
  },
  {
    path: '/project/wxuser',
    name: 'project.wxuser',
    title: r.projectWxuser,
    layout: 'project',
    page: ProjectWxUser,
  },
  {
    path: '/project/medical',
    name: 'project.medical',
    title: r.projectMedical,
    layout: 'project',
    page: ProjectMedical,
  },
  // The spec names the knowledge calls but no staff page: 知识库 sits beside the other content pages (docs/content.md).
  {
    path: '/project/knowledge',
    name: 'project.knowledge',
    title: '知识库',
    layout: 'project',
    page: ProjectKnowledge,
  },

  {
    path: '/study/operation',
    name: 'study.operation',
    title: r.studyOperation,
    keepAlive: true,
    layout: 'main',
    page: StudyOperation,
  },
  { path: '/study/list', name: 'study.list', title: r.studyManage, layout: 'main', page: StudyManage },
  { path: '/study/config', name: 'study.config', title: r.studyConfig, layout: 'main', page: StudyConfig },
  { path: '/study/crf', name: 'study.crf', title: r.studyCrf, layout: 'main', page: StudyCrf },
  { path: '/study/crfStage', name: 'study.crfStage', title: r.studyCrfStage, layout: 'main', page: StudyCrfStage },
  // The spec leaves the parameter shape of the ECRF settings route open (STUDY-05): an optional id.
  {
    path: '/study/crfStage/set/:id?',
    name: 'study.crfStage.set',
    title: r.studyCrfStageSet,
    layout: 'main',
    page: StudyCrfStageSet,
  },
  { path: '/study/:id/role', name: 'study.role', title: r.studyRole, layout: 'main', page: StudyRole },
  { path: '/study/:id/user', name: 'study.user', title: r.studyUser, layout: 'main', page: StudyUser },
  // 影响报告 of a CRF draft (?studyId&crfId) or of an amendment's remaining records (?studyId&amendmentId), issue 36.
  {
    path: '/study/amendment/impact',
    name: 'study.amendment.impact',
    title: '影响报告',
    layout: 'main',
    page: StudyAmendmentImpact,
  },

  {
    path: '/sys/organization',
    name: 'sys.organization',
    title: r.sysOrganization,
    keepAlive: true,
    layout: 'main',
    page: SysOrganization,
  },
  { path: '/sys/role', name: 'sys.role', title: r.sysRole, keepAlive: true, layout: 'main', page: SysRole },
  { path: '/sys/menu', name: 'sys.menu', title: r.sysMenu, keepAlive: true, layout: 'main', page: SysMenu },
  { path: '/sys/user', name: 'sys.user', title: r.sysUser, keepAlive: true, layout: 'main', page: SysUser },
  { path: '/sys/notice', name: 'sys.notice', title: '通知公告', keepAlive: true, layout: 'main', page: SysNotice },
  { path: '/sys/settings', name: 'sys.settings', title: '系统设置', layout: 'main', page: SysSettings },

  // Both CRF pages take one id after /crf in the spec; the detail page gets its own segment
  // so the two patterns stay distinguishable.
  { path: '/crf/:subjectRecordId', name: 'crf.record', title: r.crfRecord, layout: 'crf', page: CrfRecord },
  { path: '/crf/detail/:crfId', name: 'crf.detail', title: r.crfDetail, layout: 'crf', page: CrfDetail },

  { path: '/redirect/*', name: 'redirect', title: r.redirect, layout: 'main', transient: true, page: Redirect },
  { path: '*', name: 'notFound', title: r.notFound, layout: 'main', page: NotFound },
];

/**
 * Routes that would answer with the under-construction page: none. router.test.ts keeps it so; a route added
 * without its page shows here (the menus, seeded for every spec route, would offer it).
 */
export const UNBUILT_ROUTE_NAMES: readonly string[] = appRoutes
  .filter((route) => route.page === UnderConstruction && !route.noAuth)
  .map((route) => route.name);

const ROOT_META: RouteMeta = { name: 'root', title: '', layout: 'blank' };

/** Path of a route name without parameters, for a user's own home route (setHome). */
export function pathOfRouteName(name: string | null | undefined): string | null {
  if (!name) return null;
  const route = appRoutes.find((candidate) => candidate.name === name);
  if (!route || route.path.includes(':') || route.path.includes('*')) return null;
  return route.path;
}

function toRouteObject(route: AppRoute): RouteObject {
  const { path, page: Page, ...meta } = route;
  return { path, element: <Page />, handle: meta };
}

export function buildRoutes(): RouteObject[] {
  const shellRoutes = appRoutes.filter((route) => route.layout !== 'blank').map(toRouteObject);
  return [
    {
      element: <RootLayout resolveHome={pathOfRouteName} />,
      handle: ROOT_META,
      children: [
        { path: '/', element: null, handle: ROOT_META },
        ...appRoutes.filter((route) => route.layout === 'blank').map(toRouteObject),
        { element: <AppShell routes={shellRoutes} />, children: shellRoutes },
      ],
    },
  ];
}

export function createAppRouter() {
  const router = createBrowserRouter(buildRoutes());
  // The progress bar starts as soon as the router knows the next location; the root layout
  // finishes it once the new page has committed (after its lazy chunk arrived).
  let lastKey = router.state.location.key;
  router.subscribe((state) => {
    if (state.navigation.state !== 'idle' || state.location.key !== lastKey) {
      lastKey = state.location.key;
      NProgress.start();
    }
  });
  return router;
}

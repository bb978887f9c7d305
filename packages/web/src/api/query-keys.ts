/**
 * Every TanStack Query key of the app, one factory per area. A key starts with its area's `all()`, and the
 * narrower keys of an area start with the wider ones (`doubt.list(7)` starts with `doubt.lists()`), so an
 * invalidation by a prefix reaches every key under it.
 */

const ROUTERS = ['routers'] as const;
const USER_INFO = ['userInfo'] as const;
const CAPTCHA = ['captcha'] as const;
const SYSCONFIG = ['sysconfig'] as const;
const NOTICES = ['notices'] as const;
const USER = ['user'] as const;
const ROLE = ['role'] as const;
const DEPT = ['dept'] as const;
const MENU = ['menu'] as const;
const STUDY = ['study'] as const;
const STUDY_QR = ['study-qr'] as const;
const STUDY_ROLE = ['study-role'] as const;
const STUDY_PERSONNEL = ['study-personnel'] as const;
const STUDY_DISEASE = ['study-disease'] as const;
const STUDY_CONFIG = ['study-config'] as const;
const STUDY_INDEX = ['study-index'] as const;
const CRF = ['crf'] as const;
const CRF_STAGE = ['crf-stage'] as const;
const SUBJECT = ['subject'] as const;
const SUBJECT_RECORD = ['subject-record'] as const;
const DOUBT = ['doubt'] as const;
const OPERLOG = ['operlog'] as const;
const JOBS = ['jobs'] as const;
const AMENDMENT = ['amendment'] as const;
const QUALITY = ['quality'] as const;
const SAFETY = ['safety'] as const;
const LOCKS = ['locks'] as const;
const CRF_RECORD = ['crf-record'] as const;
const SEARCH = ['search'] as const;
const CALENDAR = ['calendar'] as const;
const FOLLOW = ['follow'] as const;
const RANDOMIZATION = ['randomization'] as const;
const CONSULT = ['consult'] as const;
const KNOWLEDGE = ['knowledge'] as const;
const EXPERT = ['expert'] as const;
const HOSPITAL = ['hospital'] as const;
const MEDICAL = ['medical'] as const;
const MOBILE_KNOWLEDGE = ['m', 'knowledge'] as const;
const WECHAT = ['wechat'] as const;
const PATIENT = ['patient'] as const;
const GLOBAL_SEARCH = ['globalSearch'] as const;

/** The version segment of a CRF definition key: a number, or the newest. */
export type CrfVersionKey = number | 'latest';

export const queryKeys = {
  /** The signed-in user's menus and profile. */
  account: {
    routers: () => ROUTERS,
    info: () => USER_INFO,
    captcha: () => CAPTCHA,
    /** The caller's REDCap API tokens (and the studies they may be made for). */
    apiTokens: () => [...USER_INFO, 'api-tokens'] as const,
    /** The studies a token may be made for. */
    apiTokenStudies: () => [...USER_INFO, 'api-tokens', 'studies'] as const,
  },
  sysConfig: {
    all: () => SYSCONFIG,
    title: () => [...SYSCONFIG, 'systemtitle'] as const,
    /** 系统设置: account and session policy, and its change history. */
    security: () => [...SYSCONFIG, 'security'] as const,
    securityHistory: () => [...SYSCONFIG, 'security', 'history'] as const,
  },
  notices: {
    /** The signed-in user's notices (the top bar's bell); a prefix of every notice key. */
    all: () => NOTICES,
    /** 通知公告's list of every notice, paged on the server. */
    manage: () => [...NOTICES, 'manage'] as const,
  },
  user: {
    all: () => USER,
    list: () => [...USER, 'list'] as const,
    detail: (userId: number | undefined) => [...USER, 'detail', userId] as const,
  },
  role: {
    all: () => ROLE,
    list: () => [...ROLE, 'list'] as const,
    /** Every role, for the user dialog's picker. */
    options: () => [...ROLE, 'all'] as const,
    detail: (roleId: number | undefined) => [...ROLE, 'detail', roleId] as const,
  },
  dept: {
    all: () => DEPT,
    lists: () => [...DEPT, 'list'] as const,
    list: (filters: object = {}) => [...DEPT, 'list', filters] as const,
  },
  menu: {
    all: () => MENU,
    lists: () => [...MENU, 'list'] as const,
    list: (filters: object = {}) => [...MENU, 'list', filters] as const,
    roleTrees: () => [...MENU, 'role-tree'] as const,
    roleTree: (roleId: number | undefined) => [...MENU, 'role-tree', roleId ?? 'new'] as const,
  },
  study: {
    all: () => STUDY,
    /** 项目维护: every study, paged on the server. */
    manage: () => [...STUDY, 'manage'] as const,
    /** The studies the user may set up, for pickers. */
    mine: () => [...STUDY, 'mine'] as const,
    openLists: () => [...STUDY, 'open-list'] as const,
    openList: (keyword: string, paging: object) => [...STUDY, 'open-list', keyword, paging] as const,
    details: () => [...STUDY, 'detail'] as const,
    detail: (studyId: number | null) => [...STUDY, 'detail', studyId] as const,
    /** What 上线 would purge now (测试 / 上线). */
    goLive: (studyId: number) => [...STUDY, 'golive', studyId] as const,
  },
  studyQr: {
    all: () => STUDY_QR,
    image: (studyId: number | string | null | undefined) => [...STUDY_QR, studyId] as const,
  },
  studyRole: {
    all: () => STUDY_ROLE,
    list: (studyId: number) => [...STUDY_ROLE, 'list', studyId] as const,
    trees: () => [...STUDY_ROLE, 'tree'] as const,
    tree: (studyId: number) => [...STUDY_ROLE, 'tree', studyId] as const,
  },
  studyPersonnel: {
    all: () => STUDY_PERSONNEL,
    list: (studyId: number) => [...STUDY_PERSONNEL, 'list', studyId] as const,
    uncommitted: (studyId: number) => [...STUDY_PERSONNEL, 'uncommitted', studyId] as const,
    sites: () => [...STUDY_PERSONNEL, 'sites'] as const,
  },
  studyDisease: {
    all: () => STUDY_DISEASE,
    list: (studyId: number) => [...STUDY_DISEASE, 'list', studyId] as const,
    crfs: (diseaseId: number | undefined) => [...STUDY_DISEASE, 'crfs', diseaseId] as const,
  },
  studyConfig: {
    all: () => STUDY_CONFIG,
    doubt: (studyId: number) => [...STUDY_CONFIG, 'doubt', studyId] as const,
    sign: (studyId: number) => [...STUDY_CONFIG, 'sign', studyId] as const,
    serial: (studyId: number) => [...STUDY_CONFIG, 'serial', studyId] as const,
    follow: (studyId: number) => [...STUDY_CONFIG, 'follow', studyId] as const,
  },
  /** The study home's figures. */
  studyIndex: {
    all: () => STUDY_INDEX,
    detail: (studyId: number | null) => [...STUDY_INDEX, studyId] as const,
  },
  crf: {
    all: () => CRF,
    /** CRF管理's list, paged on the server. */
    page: (studyId: number) => [...CRF, 'page', studyId] as const,
    options: (studyId: number) => [...CRF, 'options', studyId] as const,
    details: () => [...CRF, 'detail'] as const,
    detail: (crfId: number | null | undefined, version?: CrfVersionKey | null) =>
      [...CRF, 'detail', crfId, version ?? 'latest'] as const,
  },
  crfStage: {
    all: () => CRF_STAGE,
    tree: (studyId: number) => [...CRF_STAGE, 'tree', studyId] as const,
    crfs: (stageId: number) => [...CRF_STAGE, 'crfs', stageId] as const,
    detail: (stageId: number | null) => [...CRF_STAGE, 'detail', stageId] as const,
  },
  subject: {
    all: () => SUBJECT,
    formModel: (studyId: number) => [...SUBJECT, 'form-model', studyId] as const,
    detail: (subjectId: number | null | undefined, subjectRecordId: number | null | undefined) =>
      [...SUBJECT, 'detail', subjectId ?? null, subjectRecordId ?? null] as const,
  },
  subjectRecord: {
    all: () => SUBJECT_RECORD,
    lists: () => [...SUBJECT_RECORD, 'list'] as const,
    list: (studyId: number) => [...SUBJECT_RECORD, 'list', studyId] as const,
    columns: (studyId: number) => [...SUBJECT_RECORD, 'columns', studyId] as const,
    /** The patients a picker offers for the code typed (a calendar event's patient), refreshed with the list. */
    picker: (studyId: number, keyword: string) => [...SUBJECT_RECORD, 'list', studyId, 'picker', keyword] as const,
    operates: (subjectRecordId: number) => [...SUBJECT_RECORD, 'operates', subjectRecordId] as const,
  },
  doubt: {
    all: () => DOUBT,
    lists: () => [...DOUBT, 'list'] as const,
    list: (studyId: number) => [...DOUBT, 'list', studyId] as const,
    /** The top bar's count of queries waiting for the user, per study. */
    counts: () => [...DOUBT, 'count'] as const,
    count: (studyId: number | string | null) => [...DOUBT, 'count', studyId] as const,
    detail: (doubtId: number | null | undefined) => [...DOUBT, 'detail', doubtId] as const,
  },
  /** The CRF page: one subject's casebook. */
  crfRecord: {
    all: () => CRF_RECORD,
    menu: (subjectRecordId: number) => [...CRF_RECORD, 'menu', subjectRecordId] as const,
    patient: (subjectRecordId: number) => [...CRF_RECORD, 'patient', subjectRecordId] as const,
    doubtFlag: (studyId: number | null) => [...CRF_RECORD, 'doubt-flag', studyId] as const,
    /** A record's field comments (批注), every item's: the item list counts them, an item's drawer lists its own. */
    comments: (crfDataRecordId: number | null) => [...CRF_RECORD, 'comments', crfDataRecordId] as const,
    /** Every open form of a casebook (signing changes all their states). */
    detailsOf: (subjectRecordId: number) => [...CRF_RECORD, 'detail', subjectRecordId] as const,
    /** Every record of one form of a casebook. */
    formDetails: (subjectRecordId: number, crfId: number) => [...CRF_RECORD, 'detail', subjectRecordId, crfId] as const,
    /** One record of a form, or (`'auto'`) the one the page picks. */
    detail: (subjectRecordId: number, crfId: number, record: number | 'new' | 'auto') =>
      [...CRF_RECORD, 'detail', subjectRecordId, crfId, record] as const,
    dataList: (subjectRecordId: number, crfId: number) => [...CRF_RECORD, 'data-list', subjectRecordId, crfId] as const,
    /** The recognition source images of a form of a casebook (SDV). */
    recognitionSources: (subjectRecordId: number, crfId: number) =>
      [...CRF_RECORD, 'recognition-sources', subjectRecordId, crfId] as const,
    audits: () => [...CRF_RECORD, 'audit'] as const,
    audit: (crfDataRecordId: number | undefined, itemName: string | null) =>
      [...CRF_RECORD, 'audit', crfDataRecordId, itemName] as const,
    signatures: (subjectRecordId: number) => [...CRF_RECORD, 'signatures', subjectRecordId] as const,
    signConfig: (studyId: number) => [...CRF_RECORD, 'sign-config', studyId] as const,
    overview: (subjectRecordId: number, crfId: number | null, crfDataRecordId: number | null) =>
      [...CRF_RECORD, 'overview', subjectRecordId, crfId, crfDataRecordId] as const,
  },
  operlog: {
    all: () => OPERLOG,
    /** One study's log, or (`'all'`) the whole log for a system administrator. */
    list: (studyId: number | 'all') => [...OPERLOG, 'list', studyId] as const,
  },
  /** Data retrieval (检索): the builder's dictionary, result pages and saved templates, per study. */
  search: {
    all: () => SEARCH,
    dics: (studyId: number) => [...SEARCH, 'dics', studyId] as const,
    results: (studyId: number) => [...SEARCH, 'results', studyId] as const,
    templates: (studyId: number) => [...SEARCH, 'templates', studyId] as const,
    exportCrfs: (studyId: number) => [...SEARCH, 'export-crfs', studyId] as const,
    /** The study's export log (导出记录), per page. */
    exportLog: (studyId: number, paging: object) => [...SEARCH, 'export-log', studyId, paging] as const,
  },
  /** The signed-in user's own calendar events per study, and the top bar's count of today's (pushed). */
  calendar: {
    all: () => CALENDAR,
    lists: () => [...CALENDAR, 'list'] as const,
    list: (studyId: number, range: { startDate: string; endDate: string }) =>
      [...CALENDAR, 'list', studyId, range] as const,
    counts: () => [...CALENDAR, 'count'] as const,
    count: (studyId: number | string | null) => [...CALENDAR, 'count', studyId] as const,
    /** The study's follow-up visits planned in a range (shown on the calendar). */
    visits: (studyId: number | null, range: { startDate: string; endDate: string }) =>
      [...CALENDAR, 'visits', studyId, range] as const,
    /** The top bar's follow dot: visits 待随访 or 已超窗 the user is responsible for, per study. */
    visitCounts: () => [...CALENDAR, 'visit-count'] as const,
    visitCount: (studyId: number | string | null) => [...CALENDAR, 'visit-count', studyId] as const,
  },
  /** Follow-up plans and patient visits of a study; any change of one may move the other (rescheduling). */
  follow: {
    all: () => FOLLOW,
    plans: (studyId: number) => [...FOLLOW, 'plans', studyId] as const,
    plan: (id: number | null) => [...FOLLOW, 'plan', id] as const,
    crfs: (studyId: number) => [...FOLLOW, 'crfs', studyId] as const,
    records: (studyId: number) => [...FOLLOW, 'records', studyId] as const,
    /** 随访概览's figures (refreshed with any visit change, pushed or made here). */
    overview: (studyId: number) => [...FOLLOW, 'overview', studyId] as const,
    subject: (subjectRecordId: number) => [...FOLLOW, 'subject', subjectRecordId] as const,
    /** The study's staff, offered as the ones responsible for visits. */
    staff: (studyId: number | null) => [...FOLLOW, 'staff', studyId] as const,
  },
  /** Randomization of a study (随机列表, 随机结果 and the patients' results); a randomization or an unblinding changes them all. */
  randomization: {
    all: () => RANDOMIZATION,
    config: (studyId: number) => [...RANDOMIZATION, 'config', studyId] as const,
    depts: (studyId: number) => [...RANDOMIZATION, 'depts', studyId] as const,
    result: (studyId: number) => [...RANDOMIZATION, 'result', studyId] as const,
    list: (studyId: number) => [...RANDOMIZATION, 'list', studyId] as const,
    selected: (studyId: number) => [...RANDOMIZATION, 'selected', studyId] as const,
    subject: (studyId: number, subjectId: number) => [...RANDOMIZATION, 'subject', studyId, subjectId] as const,
  },
  /** 在线咨询: a study's questions from patients; a push (personsignalhub `consult`) reads a study's list again. */
  consult: {
    all: () => CONSULT,
    lists: () => [...CONSULT, 'list'] as const,
    list: (studyId: number) => [...CONSULT, 'list', studyId] as const,
    /** The patients offered when staff enter a question for one, by the code typed. */
    patients: (studyId: number, code: string) => [...CONSULT, 'patients', studyId, code] as const,
  },
  /** 知识库: the article types and a study's articles (the platform's included). */
  knowledge: {
    all: () => KNOWLEDGE,
    types: () => [...KNOWLEDGE, 'types'] as const,
    lists: () => [...KNOWLEDGE, 'list'] as const,
    list: (studyId: number) => [...KNOWLEDGE, 'list', studyId] as const,
  },
  /** The published articles patients read on the phone (/m/knowledge, no sign-in). */
  mobileKnowledge: {
    all: () => MOBILE_KNOWLEDGE,
    list: (studyId: number | undefined, keyword: string) => [...MOBILE_KNOWLEDGE, 'list', studyId, keyword] as const,
    detail: (id: string | undefined) => [...MOBILE_KNOWLEDGE, 'detail', id] as const,
  },
  /** 医生管理: a study's doctors shown to its patients. */
  expert: {
    all: () => EXPERT,
    list: (studyId: number) => [...EXPERT, 'list', studyId] as const,
  },
  /** 项目介绍: a study's sites. */
  hospital: {
    all: () => HOSPITAL,
    list: (studyId: number | null) => [...HOSPITAL, 'list', studyId] as const,
  },
  /** 病历管理: a study's medical records, and what a record's dialogs offer. */
  medical: {
    all: () => MEDICAL,
    lists: () => [...MEDICAL, 'list'] as const,
    list: (studyId: number) => [...MEDICAL, 'list', studyId] as const,
    /** The patients offered for a new record, by the code typed. */
    patients: (studyId: number, code: string) => [...MEDICAL, 'patients', studyId, code] as const,
    /** The patient's CRF records a medical record may be the source of. */
    linkable: (studyId: number, subjectId: number) => [...MEDICAL, 'linkable', studyId, subjectId] as const,
  },
  /** The patient side's staff pages: 公众号 (the binding settings), 公众号病种 and 公众号用户. */
  wechat: {
    all: () => WECHAT,
    settings: (studyId: number | null) => [...WECHAT, 'settings', studyId] as const,
    diseases: (studyId: number | null) => [...WECHAT, 'disease', studyId] as const,
    /** The study's patients with their binding, paged on the server. */
    users: (studyId: number) => [...WECHAT, 'users', studyId] as const,
  },
  /** The patient's own pages on the phone (/meil, a patient session): saving a form refreshes them all. */
  patient: {
    all: () => PATIENT,
    home: () => [...PATIENT, 'home'] as const,
    form: (crfId: number) => [...PATIENT, 'form', crfId] as const,
    consults: () => [...PATIENT, 'consult'] as const,
  },
  /** The top bar's search (全局搜索), per text searched. */
  globalSearch: {
    all: () => GLOBAL_SEARCH,
    hits: (text: string) => [...GLOBAL_SEARCH, text] as const,
  },
  /** A study's locks (数据库锁定): setting or lifting one changes every lock view of the study. */
  lock: {
    all: () => LOCKS,
    list: (studyId: number) => [...LOCKS, 'list', studyId] as const,
    history: (studyId: number) => [...LOCKS, 'history', studyId] as const,
    state: (studyId: number, subjectRecordId: number, crfDataRecordId: number | null) =>
      [...LOCKS, 'state', studyId, subjectRecordId, crfDataRecordId] as const,
  },
  /** The signed-in user's background jobs (the 任务 drawer); a realtime push will refresh this key. */
  jobs: {
    all: () => JOBS,
    list: (paging: object) => [...JOBS, 'list', paging] as const,
  },
  /** CRF drafts and amendments (issue 36): drafts, impact reports and their records, the list, a migration's job. */
  amendment: {
    all: () => AMENDMENT,
    draft: (studyId: number, crfId: number) => [...AMENDMENT, 'draft', studyId, crfId] as const,
    impact: (target: object) => [...AMENDMENT, 'impact', target] as const,
    impactRecords: (target: object) => [...AMENDMENT, 'impact', target, 'records'] as const,
    list: (studyId: number) => [...AMENDMENT, 'list', studyId] as const,
    job: (jobId: string | null) => [...AMENDMENT, 'job', jobId] as const,
  },
  /** 数据核查 (issue 37): a study's runs, one run with its counts, a run's findings, the dashboard. */
  quality: {
    all: () => QUALITY,
    runs: (studyId: number) => [...QUALITY, 'runs', studyId] as const,
    run: (studyId: number, runId: number | null) => [...QUALITY, 'run', studyId, runId] as const,
    findings: (studyId: number, runId: number, ruleKey: string) =>
      [...QUALITY, 'findings', studyId, runId, ruleKey] as const,
    dashboard: (studyId: number) => [...QUALITY, 'dashboard', studyId] as const,
  },
  /** 不良事件 (issue 37): the module switch, the SAE reports and the top bar's count of pending ones. */
  safety: {
    all: () => SAFETY,
    module: (studyId: number) => [...SAFETY, 'module', studyId] as const,
    lists: () => [...SAFETY, 'list'] as const,
    list: (studyId: number) => [...SAFETY, 'list', studyId] as const,
    counts: () => [...SAFETY, 'count'] as const,
    count: (studyId: number | string | null) => [...SAFETY, 'count', studyId] as const,
  },
} as const;

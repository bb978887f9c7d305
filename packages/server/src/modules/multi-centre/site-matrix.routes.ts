/**
 * Every route of the OpenAPI document, by what it holds of a site's patients (site-matrix.test.ts). A route added
 * later fails the matrix until it is entered here, so its site rule is decided, not forgotten.
 *
 * - `public`, `system`: no study member's view of patients (sign-in, the patient's own side, system administration).
 * - `study`: the study's set-up and content; no patient's data.
 * - `patient`: names one patient of site A (`call`); a site-B nurse is answered 404 and nothing is written.
 * - `list`: lists or counts patients (`call`); a site-B nurse's answer never names site A's patient, the
 *   monitor's (all sites) does when `shows` is set.
 * - `elsewhere`: proven by the named test file (files, jobs and tokens that a table cell cannot drive).
 */
export interface SiteFixture {
  studyId: number;
  subjectRecordId: number;
  subjectId: number;
  crfId: number;
  crfDataRecordId: number;
  imagingRecordId: number;
  doubtId: number;
  followRecordId: number;
  followRecordCrfId: number;
  consultationId: number;
  medicalId: number;
  eventId: number;
  auditEventId: number;
  fileKey: string;
}

export interface SiteCall {
  url: string;
  body?: unknown;
}

export type SiteCase =
  | { kind: 'public' | 'system' | 'study'; why?: string }
  | { kind: 'patient'; call: (f: SiteFixture) => SiteCall }
  | { kind: 'list'; call: (f: SiteFixture) => SiteCall; shows?: boolean }
  | { kind: 'elsewhere'; test: string };

const pub = { kind: 'public' } as const;
const sys = { kind: 'system' } as const;
const study = { kind: 'study' } as const;
const patient = (call: (f: SiteFixture) => SiteCall): SiteCase => ({ kind: 'patient', call });
const list = (call: (f: SiteFixture) => SiteCall, shows = true): SiteCase => ({ kind: 'list', call, shows });
const elsewhere = (test: string): SiteCase => ({ kind: 'elsewhere', test });
const q = (url: string) => ({ url });

export const SITE_MATRIX: Record<string, SiteCase> = {
  'GET /api/ignore/common/captcha': pub,
  'POST /api/ignore/sys/login': pub,
  'POST /api/ignore/sys/refresh': pub,
  'POST /api/sys/logout': sys,
  'GET /api/sys/login/getInfo': sys,
  'GET /api/sys/login/getRouters': sys,
  'PUT /api/system/user/password': sys,
  'PUT /api/system/user/password/reset': sys,
  'GET /api/v1/base/sysconfig/getbasesysconfiglist': sys,
  'GET /api/system/notice/list': sys,
  'GET /api/system/notice/unread': sys,
  'PUT /api/system/notice/read': sys,
  'GET /api/system/notice/manage/list': sys,
  'POST /api/system/notice': sys,
  'PUT /api/system/notice/{id}': sys,
  'DELETE /api/system/notice/{id}': sys,
  'GET /api/v1/base/other/searchall': list(() => q(`/api/v1/base/other/searchall?key=${encodeURIComponent('甲院')}`)),
  'POST /api/v1/base/other/addsysdatachangeinfo': study,
  'GET /api/system/dept/list': sys,
  'GET /api/system/dept/{id}': sys,
  'DELETE /api/system/dept/{id}': sys,
  'POST /api/system/dept': sys,
  'PUT /api/system/dept': sys,
  'GET /api/system/users': sys,
  'GET /api/system/user': sys,
  'POST /api/system/user': sys,
  'PUT /api/system/user': sys,
  'DELETE /api/system/user': sys,
  'PUT /api/system/user/status': sys,
  'POST /api/v1/SysUser/setHome': sys,
  'GET /api/system/role/list': sys,
  'GET /api/system/role/{id}': sys,
  'POST /api/system/role': sys,
  'PUT /api/system/role': sys,
  'DELETE /api/system/role': sys,
  'PUT /api/system/role/status': sys,
  'GET /api/system/menu/list': sys,
  'GET /api/system/menu/treeselect': sys,
  'GET /api/system/menu/roleMenuTreeselect/{id}': sys,
  'GET /api/system/menu/{id}': sys,
  'DELETE /api/system/menu/{id}': sys,
  'POST /api/system/menu': sys,
  'PUT /api/system/menu': sys,
  // The system operation log and the chain check are system administration (sys:monitor), not study staff's.
  'GET /api/monitor/operlog/list': sys,
  'GET /api/monitor/audit/verify': sys,
  'GET /api/business/subjectRecord/operates': patient((f) =>
    q(`/api/business/subjectRecord/operates?subjectRecordId=${f.subjectRecordId}`),
  ),
  'GET /api/business/subjectRecord/operate': patient((f) =>
    q(`/api/business/subjectRecord/operate?id=${f.auditEventId}`),
  ),
  'GET /api/business/crf/audit': patient((f) => q(`/api/business/crf/audit?crfDataRecordId=${f.crfDataRecordId}`)),
  'GET /api/business/audit/export': list((f) => q(`/api/business/audit/export?studyId=${f.studyId}`)),
  'GET /api/business/study/list': sys,
  'GET /api/business/study/manage/list': sys,
  'GET /api/business/study/u_qr_code/{id}': study,
  'GET /api/business/study/doubt/{id}': study,
  'POST /api/business/study/doubt': study,
  'GET /api/business/study/sign_config': study,
  'GET /api/business/study/{id}': study,
  'DELETE /api/business/study/{id}': study,
  'POST /api/business/study': study,
  'PUT /api/business/study': study,
  'GET /api/v1/business/study/serial_number': study,
  'GET /api/v2/business/study/serial_number': study,
  'PUT /api/v1/business/study/serial_number/enable': study,
  'PUT /api/v1/business/study/serial_number/close': study,
  'PUT /api/v2/business/study/serial_number/enable': study,
  'PUT /api/v2/business/study/serial_number/close': study,
  'GET /api/v1/business/study/follow_trigger': study,
  'PUT /api/v1/business/study/follow_trigger': study,
  'GET /api/v2/business/study/follow_trigger': study,
  'PUT /api/v2/business/study/follow_trigger': study,
  'GET /api/business/study/missing_codes': study,
  'PUT /api/business/study/missing_codes': study,
  'GET /api/system/studyRoles': study,
  'GET /api/system/studyRole/tree': study,
  'GET /api/system/studyRole': study,
  'POST /api/system/studyRole': study,
  'PUT /api/system/studyRole': study,
  'DELETE /api/system/studyRole': study,
  'GET /api/business/study_personnel/list': study,
  'GET /api/business/study_personnel/uncommitted': study,
  'POST /api/business/study_personnel': study,
  'PUT /api/business/study_personnel': study,
  'DELETE /api/business/study_personnel': study,
  'GET /api/system/crfs': study,
  'GET /api/system/crf/list': study,
  'GET /api/system/crf/template': study,
  'GET /api/system/crf/{id}': study,
  'DELETE /api/system/crf': study,
  'POST /api/system/crf': study,
  'POST /api/system/crf/multi': study,
  'POST /api/system/crf/export': study,
  'GET /api/business/crf_menu/crf_stages': study,
  'GET /api/business/crf_menu/crf_stage': study,
  'POST /api/business/crf_menu/crf_stage': study,
  'PUT /api/business/crf_menu/crf_stage': study,
  'DELETE /api/business/crf_menu/crf_stage': study,
  'GET /api/business/crf_menu/crf_stage/crfs': study,
  'POST /api/business/crf_menu/crf_stage/crf/import': study,
  'PUT /api/business/crf_menu/crf_stage/crf': study,
  'DELETE /api/business/crf_menu/crf_stage/crf': study,
  'GET /api/business/study_disease/disease/crf/{id}': study,
  'GET /api/business/study_disease/{id}': study,
  'PUT /api/business/study_disease/multi_disease': study,
  'POST /api/business/study_disease/disease': study,
  'PUT /api/business/study_disease/disease': study,
  'DELETE /api/business/study_disease/disease': study,
  'PUT /api/business/study_disease/disease/crf': study,
  'GET /api/v2/business/subject/crf': study,
  // Identification codes are unique in the study: the check answers "taken" without naming whose.
  'GET /api/business/subject/unique': { kind: 'study', why: 'answers only whether a code is free in the study' },
  'POST /api/business/subject': elsewhere('site-scope-records.test.ts'),
  'PUT /api/business/subject': patient((f) => ({
    url: '/api/business/subject',
    body: { id: f.subjectId, subjectName: '改名', gender: 1, diseaseCode: 'LSS', identificationCode: 'X-1' },
  })),
  // Moving a patient needs 查看全部中心数据, so a scoped nurse is refused before any site is looked at (403).
  'PUT /api/business/subject/site': elsewhere('site-scope-records.test.ts'),
  'GET /api/business/subject/signatures': patient((f) =>
    q(`/api/business/subject/signatures?subjectRecordId=${f.subjectRecordId}`),
  ),
  'GET /api/business/subject/{id}': patient((f) => q(`/api/business/subject/${f.subjectId}`)),
  'GET /api/business/ducking/patientInfo/{id}': patient((f) =>
    q(`/api/business/ducking/patientInfo/${f.subjectRecordId}`),
  ),
  'PUT /api/v1/business/subject/sign': patient((f) => ({
    url: '/api/v1/business/subject/sign',
    body: { subjectRecordId: f.subjectRecordId, password: 'Passw0rd', meaning: '确认' },
  })),
  'POST /api/v3/business/subjectRecord/list': list((f) => ({
    url: '/api/v3/business/subjectRecord/list',
    body: { studyId: f.studyId, pageNum: 1, pageSize: 50 },
  })),
  'GET /api/v1/business/subjectRecord/list': list((f) => q(`/api/v1/business/subjectRecord/list?studyId=${f.studyId}`)),
  'GET /api/v2/business/subjectRecord/list': list((f) => q(`/api/v2/business/subjectRecord/list?studyId=${f.studyId}`)),
  'GET /api/v1/business/subjectRecord/columns': study,
  'GET /api/v2/business/subjectRecord/columns': study,
  'GET /api/v3/business/subjectRecord/columns': study,
  'PUT /api/business/subjectRecord/state': patient((f) => ({
    url: '/api/business/subjectRecord/state',
    body: { subjectRecordId: f.subjectRecordId, state: 2, reason: '退出' },
  })),
  'DELETE /api/business/subjectRecord': patient((f) =>
    q(`/api/business/subjectRecord?subjectRecordId=${f.subjectRecordId}&reason=x`),
  ),
  'PUT /api/business/subjectRecord/restore': patient((f) => ({
    url: '/api/business/subjectRecord/restore',
    body: { subjectRecordId: f.subjectRecordId, reason: '恢复' },
  })),
  'GET /api/business/crf/menu/{id}': patient((f) => q(`/api/business/crf/menu/${f.subjectRecordId}`)),
  'GET /api/v3/business/crf/{subjectRecordId}': patient((f) =>
    q(`/api/v3/business/crf/${f.subjectRecordId}?crfId=${f.crfId}`),
  ),
  'GET /api/business/crf/data/list/{subjectRecordId}': patient((f) =>
    q(`/api/business/crf/data/list/${f.subjectRecordId}?crfId=${f.crfId}`),
  ),
  'DELETE /api/business/crf/data': patient((f) =>
    q(`/api/business/crf/data?crfDataRecordId=${f.crfDataRecordId}&reason=x`),
  ),
  'PUT /api/business/crf/sdv': patient((f) => ({
    url: '/api/business/crf/sdv',
    body: { crfDataRecordId: f.crfDataRecordId, verified: true },
  })),
  'GET /api/v3/business/overview/{subjectRecordId}': patient((f) =>
    q(`/api/v3/business/overview/${f.subjectRecordId}?crfId=${f.crfId}`),
  ),
  'PUT /api/v3/business/crf': patient((f) => ({
    url: '/api/v3/business/crf',
    body: {
      subjectRecordId: f.subjectRecordId,
      crfId: f.crfId,
      crfDataRecordId: f.crfDataRecordId,
      version: 1,
      values: {},
    },
  })),
  'GET /api/v1/fileupload/downfile': patient((f) => q(`/api/v1/fileupload/downfile?fileKey=${f.fileKey}`)),
  'GET /api/v1/qiniu/upload/token': study,
  'POST /api/v1/qiniu/upload/confirm': study,
  'GET /api/v1/fileupload/object/{*}': elsewhere('site-scope-records.test.ts'),
  'POST /api/common/file/upload': study,
  'POST /api/v1/content/image': study,
  'GET /api/v1/business/crf/print/is_temp': study,
  'GET /api/v1/business/crf/print/temp': study,
  'DELETE /api/v1/business/crf/print/temp': study,
  'POST /api/v1/business/crf/print/temp': study,
  'PUT /api/v1/business/crf/print/temp': study,
  'GET /api/v1/business/crf/print/word': patient((f) =>
    q(`/api/v1/business/crf/print/word?subjectRecordId=${f.subjectRecordId}&crfId=${f.crfId}`),
  ),
  'GET /api/business/index': elsewhere('site-scope-data.test.ts'),
  // A member's calendar is their own: the monitor reads no one else's events, so there is no all-sites control.
  'GET /api/business/events': list((f) => q(`/api/business/events?studyId=${f.studyId}`), false),
  'POST /api/business/events': patient((f) => ({
    url: '/api/business/events',
    body: {
      studyId: f.studyId,
      title: '复诊',
      allDay: true,
      startDate: '2026-12-10',
      endDate: '2026-12-10',
      subjectId: f.subjectId,
    },
  })),
  'GET /api/business/events/count': elsewhere('site-scope-visits.test.ts'),
  'GET /api/business/events/{id}': patient((f) => q(`/api/business/events/${f.eventId}?studyId=${f.studyId}`)),
  'PUT /api/business/events/{id}': patient((f) => ({
    url: `/api/business/events/${f.eventId}`,
    body: {
      studyId: f.studyId,
      title: '改',
      allDay: true,
      startDate: '2026-12-11',
      endDate: '2026-12-11',
      subjectId: f.subjectId,
    },
  })),
  'DELETE /api/business/events/{id}': patient((f) => q(`/api/business/events/${f.eventId}?studyId=${f.studyId}`)),
  'POST /api/business/doubt/open': patient((f) => ({
    url: `/api/business/doubt/open?studyId=${f.studyId}`,
    body: { crfDataRecordId: f.crfDataRecordId, itemName: 'history_note', doubtDescription: '请核实' },
  })),
  'PUT /api/business/doubt/reply': patient((f) => ({
    url: '/api/business/doubt/reply',
    body: { doubtId: f.doubtId, content: '已核实' },
  })),
  'PUT /api/business/doubt/close': patient((f) => ({
    url: '/api/business/doubt/close',
    body: { doubtId: f.doubtId, content: '关闭' },
  })),
  'GET /api/business/doubts/count': elsewhere('site-scope-records.test.ts'),
  'GET /api/business/doubts': list((f) => q(`/api/business/doubts?studyId=${f.studyId}`)),
  'GET /api/business/doubt/{id}': patient((f) => q(`/api/business/doubt/${f.doubtId}`)),
  'GET /api/business/crf/comments': patient((f) =>
    q(`/api/business/crf/comments?studyId=${f.studyId}&crfDataRecordId=${f.crfDataRecordId}`),
  ),
  'POST /api/business/crf/comment': patient((f) => ({
    url: '/api/business/crf/comment',
    body: {
      studyId: f.studyId,
      crfDataRecordId: f.crfDataRecordId,
      itemName: 'history_note',
      content: '来源：门诊病历',
    },
  })),
  // 双份录入 (issue 37): every call names the patient's subjectRecordId, which the guard locates.
  'PUT /api/business/study/crf/double_entry': study,
  'GET /api/business/study/crf/double_entry': study,
  'GET /api/business/double-entry/entry': patient((f) =>
    q(`/api/business/double-entry/entry?studyId=${f.studyId}&subjectRecordId=${f.subjectRecordId}&crfId=${f.crfId}`),
  ),
  'PUT /api/business/double-entry/entry': patient((f) => ({
    url: '/api/business/double-entry/entry',
    body: { studyId: f.studyId, subjectRecordId: f.subjectRecordId, crfId: f.crfId, values: { history_note: '乙' } },
  })),
  'POST /api/business/double-entry/done': patient((f) => ({
    url: '/api/business/double-entry/done',
    body: { studyId: f.studyId, subjectRecordId: f.subjectRecordId, crfId: f.crfId },
  })),
  'GET /api/business/double-entry/compare': patient((f) =>
    q(`/api/business/double-entry/compare?studyId=${f.studyId}&subjectRecordId=${f.subjectRecordId}&crfId=${f.crfId}`),
  ),
  // The reconciler's list needs pairs, which the matrix's fixture has none of: its site scope (each site's nurse
  // sees only their site's pairs) is proven there.
  'GET /api/business/double-entry/pending': elsewhere('double-entry-pending.routes.test.ts'),
  'POST /api/business/double-entry/reconcile': patient((f) => ({
    url: '/api/business/double-entry/reconcile',
    body: { studyId: f.studyId, subjectRecordId: f.subjectRecordId, crfId: f.crfId, decisions: {} },
  })),
  // 数据核查: a run's findings need a run; quality.routes.test.ts proves the scope of a run, site-scope-gcp.test.ts
  // that of its drill-down, counts and batch queries.
  'POST /api/business/quality/run': elsewhere('quality.routes.test.ts'),
  'GET /api/business/quality/runs': list((f) => q(`/api/business/quality/runs?studyId=${f.studyId}`), false),
  'GET /api/business/quality/run': elsewhere('site-scope-gcp.test.ts'),
  'GET /api/business/quality/findings': elsewhere('site-scope-gcp.test.ts'),
  'POST /api/business/quality/queries': elsewhere('site-scope-gcp.test.ts'),
  'GET /api/business/safety/module': study,
  'PUT /api/business/safety/module': study,
  // A report id names no patient the guard can locate: the service scopes by the report's patient (404 elsewhere).
  'GET /api/business/safety/saes': elsewhere('site-scope-gcp.test.ts'),
  'GET /api/business/safety/count': elsewhere('site-scope-gcp.test.ts'),
  'POST /api/business/safety/sae/submit': elsewhere('site-scope-gcp.test.ts'),
  'POST /api/business/safety/sae/followup': elsewhere('site-scope-gcp.test.ts'),
  'GET /api/business/safety/report/export': elsewhere('safety-export.routes.test.ts'),
  'GET /api/business/quality/dashboard': list((f) => q(`/api/business/quality/dashboard?studyId=${f.studyId}`), false),
  // 医学编码: dictionaries and settings hold no patient; a coded item id names none the guard can locate, so the
  // service scopes the list, codes, approvals and the upgrade report by the patient's site (coding.routes.test.ts).
  'POST /api/business/coding/dictionary': study,
  'GET /api/business/coding/dictionaries': study,
  'GET /api/business/coding/settings': study,
  'PUT /api/business/coding/items': study,
  'GET /api/business/coding/search': study,
  'GET /api/business/coding/items': list((f) => q(`/api/business/coding/items?studyId=${f.studyId}`), false),
  'POST /api/business/coding/code': elsewhere('site-scope-gcp.test.ts'),
  'POST /api/business/coding/approve': elsewhere('site-scope-gcp.test.ts'),
  'GET /api/business/coding/upgrade-impact': elsewhere('coding.routes.test.ts'),
  'GET /api/business/follows': study,
  'GET /api/business/follow/crfs': study,
  'GET /api/business/follow/records': list((f) => q(`/api/business/follow/records?studyId=${f.studyId}`)),
  'GET /api/business/follow/overview': elsewhere('site-scope-visits.test.ts'),
  'GET /api/business/follow/{id}': study,
  'DELETE /api/business/follow/{id}': study,
  'POST /api/business/follow': study,
  'PUT /api/business/follow': study,
  'PUT /api/business/follow/record/status': patient((f) => ({
    url: '/api/business/follow/record/status',
    body: { followRecordId: f.followRecordId, action: 'lost', reason: '失访' },
  })),
  'GET /api/business/subject/follows': patient((f) =>
    q(`/api/business/subject/follows?subjectRecordId=${f.subjectRecordId}`),
  ),
  'POST /api/business/subject/follow': patient((f) => ({
    url: '/api/business/subject/follow',
    body: { subjectRecordId: f.subjectRecordId },
  })),
  'PUT /api/business/subject/follow/record': patient((f) => ({
    url: '/api/business/subject/follow/record',
    body: { followRecordId: f.followRecordId, plannedDate: '2027-01-05', reason: '改期' },
  })),
  'DELETE /api/business/subject/follow/record': patient((f) =>
    q(`/api/business/subject/follow/record?followRecordId=${f.followRecordId}&reason=x`),
  ),
  'PUT /api/business/subject/follow/custom': patient((f) => ({
    url: '/api/business/subject/follow/custom',
    body: { subjectRecordId: f.subjectRecordId, visitName: '加访', plannedDate: '2027-01-01', crfIds: [f.crfId] },
  })),
  'GET /api/business/subject/follow/crfs': patient((f) =>
    q(`/api/business/subject/follow/crfs?followRecordId=${f.followRecordId}`),
  ),
  'GET /api/business/subject/follow/crf': patient((f) =>
    q(`/api/business/subject/follow/crf?followRecordId=${f.followRecordId}&crfId=${f.crfId}`),
  ),
  'GET /api/v2/business/subject/follow/crf': patient((f) =>
    q(`/api/v2/business/subject/follow/crf?followRecordCrfId=${f.followRecordCrfId}`),
  ),
  'GET /api/business/search/dics': study,
  'POST /api/business/search/v2': list((f) => ({
    url: '/api/business/search/v2',
    body: { studyId: f.studyId, conditions: { join: 'and', groups: [] }, pageNum: 1, pageSize: 50 },
  })),
  'GET /api/business/search/export/crfs': study,
  'GET /api/business/search/all_templates': study,
  'POST /api/business/search/template': study,
  'DELETE /api/business/search/template/{id}': study,
  'GET /api/system/user/profile/apiToken': sys,
  'POST /api/system/user/profile/apiToken': sys,
  'GET /api/system/user/profile/apiToken/studies': sys,
  'DELETE /api/system/user/profile/apiToken/{id}': sys,
  'POST /api/redcap': elsewhere('site-scope-data.test.ts'),
  'GET /api/business/import/template': study,
  'POST /api/business/import/image_urls': elsewhere('site-scope-data.test.ts'),
  'POST /api/business/import/multi_crf_sheet/multi_thread': elsewhere('site-scope-data.test.ts'),
  'POST /api/v2/business/search/export': elsewhere('site-scope-data.test.ts'),
  'POST /api/v3/business/search/export': elsewhere('site-scope-data.test.ts'),
  'GET /api/business/search/export/log': study,
  'GET /api/system/jobs/list': sys,
  'GET /api/system/jobs/{jobId}': sys,
  'POST /api/system/jobs/{jobId}/cancel': sys,
  'GET /api/system/jobs/{jobId}/result': sys,
  'POST /api/business/randomization': study,
  'GET /api/business/randomization/config': study,
  'GET /api/business/randomization/list/config': elsewhere('site-scope-visits.test.ts'),
  'GET /api/business/randomization/factor/depts': study,
  'POST /api/business/randomization/subject': patient((f) => ({
    url: '/api/business/randomization/subject',
    body: { studyId: f.studyId, subjectId: f.subjectId },
  })),
  'GET /api/business/randomization/subject': patient((f) =>
    q(`/api/business/randomization/subject?studyId=${f.studyId}&subjectId=${f.subjectId}`),
  ),
  'GET /api/business/randomization/randomly_selected': elsewhere('site-scope-visits.test.ts'),
  'GET /api/business/randomization/result': elsewhere('site-scope-visits.test.ts'),
  'PUT /api/business/randomization/unblind': patient((f) => ({
    url: '/api/business/randomization/unblind',
    body: { studyId: f.studyId, subjectId: f.subjectId, password: 'Passw0rd', reason: '紧急' },
  })),
  'PUT /api/business/randomization/unblind/all': study,
  'POST /api/business/randomization/export': elsewhere('site-scope-visits.test.ts'),
  'POST /api/business/randomization/export/randomly_selected': elsewhere('site-scope-visits.test.ts'),
  'POST /api/business/randomization/simulate': study,
  'POST /api/v1/imgrec/temp': patient((f) => ({
    url: `/api/v1/imgrec/temp?studyId=${f.studyId}`,
    body: { fileKey: f.fileKey, crfId: f.crfId, subjectRecordId: f.subjectRecordId },
  })),
  'POST /imgrec/api/ignore/business/image/recognition/common': pub,
  'GET /api/v1/imgrec/sources': patient((f) =>
    q(`/api/v1/imgrec/sources?studyId=${f.studyId}&subjectRecordId=${f.subjectRecordId}&crfId=${f.crfId}`),
  ),
  'GET /api/v1/imgrec/{recognitionId}': elsewhere('site-scope-visits.test.ts'),
  'PUT /api/v1/imgrec/{recognitionId}/record': elsewhere('site-scope-visits.test.ts'),
  'POST /spine_cobb/v2/getprediction': patient((f) =>
    q(`/spine_cobb/v2/getprediction?studyId=${f.studyId}&fileKey=${f.fileKey}`),
  ),
  'GET /api/v1/knowledge/types': study,
  'POST /api/v1/knowledge/types': study,
  'PUT /api/v1/knowledge/types/{id}': study,
  'DELETE /api/v1/knowledge/types/{id}': study,
  'GET /api/v1/knowledges': study,
  'GET /api/v1/knowledge/{id}': study,
  'PUT /api/v1/knowledge/{id}': study,
  'DELETE /api/v1/knowledge/{id}': study,
  'POST /api/v1/knowledge': study,
  'GET /api/ignore/knowledges': pub,
  'GET /api/ignore/knowledge/{id}': pub,
  'GET /api/ignore/content/image/{fileKey}': pub,
  'GET /api/v1/experts': study,
  'GET /api/v1/expert/{id}': study,
  'PUT /api/v1/expert/{id}': study,
  'DELETE /api/v1/expert/{id}': study,
  'POST /api/v1/expert': study,
  'GET /api/ignore/experts': pub,
  'GET /api/v1/hospital': study,
  'POST /api/v1/hospital': study,
  'PUT /api/v1/hospital/{id}': study,
  'GET /api/ignore/hospital': pub,
  'GET /api/v1/medicals': list((f) => q(`/api/v1/medicals?studyId=${f.studyId}`)),
  'GET /api/v1/medical/crfs': patient((f) => q(`/api/v1/medical/crfs?studyId=${f.studyId}&subjectId=${f.subjectId}`)),
  'GET /api/v1/medical/{id}': patient((f) => q(`/api/v1/medical/${f.medicalId}?studyId=${f.studyId}`)),
  'PUT /api/v1/medical/{id}': patient((f) => ({
    url: `/api/v1/medical/${f.medicalId}`,
    body: { studyId: f.studyId, subjectId: f.subjectId, title: '改', category: '其他', files: [], reason: '改' },
  })),
  'DELETE /api/v1/medical/{id}': patient((f) => q(`/api/v1/medical/${f.medicalId}?studyId=${f.studyId}&reason=x`)),
  'GET /api/v1/medical/{id}/file': patient((f) =>
    q(`/api/v1/medical/${f.medicalId}/file?studyId=${f.studyId}&fileKey=${f.fileKey}`),
  ),
  'POST /api/v1/medical': patient((f) => ({
    url: '/api/v1/medical',
    body: { studyId: f.studyId, subjectId: f.subjectId, title: '新病历', category: '其他', files: [] },
  })),
  'PUT /api/v1/medical/crf': patient((f) => ({
    url: '/api/v1/medical/crf',
    body: { studyId: f.studyId, id: f.medicalId, crfDataRecordId: f.crfDataRecordId, reason: '关联' },
  })),
  'PUT /api/business/lock': patient((f) => ({
    url: '/api/business/lock',
    body: { studyId: f.studyId, scope: 'subject', targetId: f.subjectRecordId, locked: false, reason: '解锁' },
  })),
  // The fixture locks site A's casebook with a reason naming it: only who sees site A reads that lock.
  'GET /api/business/lock': list((f) => q(`/api/business/lock?studyId=${f.studyId}`)),
  'GET /api/business/lock/state': patient((f) =>
    q(`/api/business/lock/state?studyId=${f.studyId}&subjectRecordId=${f.subjectRecordId}`),
  ),
  'GET /api/business/lock/history': list((f) => q(`/api/business/lock/history?studyId=${f.studyId}`)),
  'GET /api/business/wechat/settings': study,
  'PUT /api/business/wechat/settings': study,
  'GET /api/business/wechat/users': list((f) => q(`/api/business/wechat/users?studyId=${f.studyId}`)),
  'POST /api/business/wechat/bind-code': patient((f) => ({
    url: '/api/business/wechat/bind-code',
    body: { studyId: f.studyId, subjectId: f.subjectId },
  })),
  'POST /api/business/wechat/unbind': patient((f) => ({
    url: '/api/business/wechat/unbind',
    body: { studyId: f.studyId, subjectId: f.subjectId },
  })),
  'GET /api/business/wechat/disease': study,
  'PUT /api/business/wechat/disease': study,
  'POST /api/ignore/patient/bind': pub,
  'GET /api/ignore/patient/home': pub,
  'GET /api/ignore/patient/forms': pub,
  'GET /api/ignore/patient/forms/{crfId}': pub,
  'POST /api/ignore/patient/forms/{crfId}': pub,
  'POST /api/ignore/patient/logout': pub,
  'GET /api/ignore/patient/consult': pub,
  'POST /api/ignore/patient/consult': pub,
  'GET /api/ignore/patient/messages/opt-out': pub,
  'POST /api/ignore/patient/messages/opt-out': pub,
  'GET /api/v1/advisory/manager/list': list((f) => q(`/api/v1/advisory/manager/list?studyId=${f.studyId}`)),
  'GET /api/v1/advisory/manager/{id}': patient((f) =>
    q(`/api/v1/advisory/manager/${f.consultationId}?studyId=${f.studyId}`),
  ),
  'POST /api/v1/advisory/manager': patient((f) => ({
    url: '/api/v1/advisory/manager',
    body: { studyId: f.studyId, subjectId: f.subjectId, title: '问题', question: '术后能否运动？' },
  })),
  'PUT /api/v1/advisory/manager/{id}/answer': patient((f) => ({
    url: `/api/v1/advisory/manager/${f.consultationId}/answer`,
    body: { studyId: f.studyId, answer: '可以' },
  })),
  'PUT /api/v1/advisory/manager/{id}/close': patient((f) => ({
    url: `/api/v1/advisory/manager/${f.consultationId}/close`,
    body: { studyId: f.studyId },
  })),
  // Accounts and sessions (docs/lifecycle.md): the user's own session, the installation's settings.
  'GET /api/sys/session/ping': sys,
  'GET /api/system/security-settings': sys,
  'PUT /api/system/security-settings': sys,
  'GET /api/system/security-settings/history': sys,
  // 测试/上线: counts of the test patients of every site; 上线 is a study-wide act of its holders.
  'GET /api/business/study/golive': { kind: 'study', why: 'counts only, no patient named' },
  'POST /api/business/study/golive': { kind: 'study', why: 'purges every site’s test patients: a study-wide act' },
  // 参考范围 (issue 37): a site's laboratory set-up, no patient's data; its own site scope (a member lists and changes
  // only their sites' ranges) is proven in lab-ranges.routes.test.ts.
  'GET /api/business/lab-ranges': elsewhere('lab-ranges.routes.test.ts'),
  'POST /api/business/lab-ranges': elsewhere('lab-ranges.routes.test.ts'),
  'PUT /api/business/lab-ranges/{id}': elsewhere('lab-ranges.routes.test.ts'),
  'DELETE /api/business/lab-ranges/{id}': elsewhere('lab-ranges.routes.test.ts'),
  'GET /api/business/lab-ranges/template': elsewhere('lab-ranges.routes.test.ts'),
  'POST /api/business/lab-ranges/import': elsewhere('lab-ranges.routes.test.ts'),
  // The ranges a patient's form would be judged by: names one patient.
  'GET /api/business/lab-ranges/applicable': patient((f) =>
    q(`/api/business/lab-ranges/applicable?studyId=${f.studyId}&subjectRecordId=${f.subjectRecordId}&crfId=${f.crfId}`),
  ),
  // 患者提醒 (issue 38): the rules are the study's; the list, report and outbox need messages, which the matrix's
  // fixture has none of: messaging.routes.test.ts proves their site scope. Opting out names one patient.
  'GET /api/business/messages/rules': study,
  'PUT /api/business/messages/rules': study,
  'GET /api/business/messages': elsewhere('messaging.routes.test.ts'),
  'GET /api/business/messages/report': elsewhere('messaging.routes.test.ts'),
  'GET /api/business/messages/outbox': elsewhere('messaging.routes.test.ts'),
  'GET /api/business/messages/opt-out': patient((f) =>
    q(`/api/business/messages/opt-out?studyId=${f.studyId}&subjectId=${f.subjectId}`),
  ),
  'POST /api/business/messages/opt-out': patient((f) => ({
    url: '/api/business/messages/opt-out',
    body: { studyId: f.studyId, subjectId: f.subjectId, reason: '患者电话要求' },
  })),
  'POST /api/business/messages/opt-in': patient((f) => ({
    url: '/api/business/messages/opt-in',
    body: { studyId: f.studyId, subjectId: f.subjectId, reason: '患者同意恢复' },
  })),
  // CRF drafts and amendments: the summary is counts; drill-down, workbook and migration keep to the caller's sites.
  'GET /api/system/crf/draft': study,
  'POST /api/system/crf/draft': study,
  'DELETE /api/system/crf/draft': study,
  'POST /api/system/crf/draft/publish': study,
  'GET /api/system/crf/draft/impact': { kind: 'study', why: 'counts only, no patient named' },
  'GET /api/system/crf/draft/impact/records': elsewhere('amendment-sites.test.ts'),
  'GET /api/system/crf/draft/impact/export': elsewhere('amendment-sites.test.ts'),
  'GET /api/business/amendments': { kind: 'study', why: 'amendments and counts, no patient named' },
  'GET /api/business/amendment/{id}/impact': { kind: 'study', why: 'counts only, no patient named' },
  'GET /api/business/amendment/{id}/impact/records': elsewhere('amendment-sites.test.ts'),
  'GET /api/business/amendment/{id}/impact/export': elsewhere('amendment-sites.test.ts'),
  'POST /api/business/amendment/migrate': elsewhere('amendment-sites.test.ts'),
  'GET /api/business/follow/draft': study,
  'PUT /api/business/follow/draft': study,
  'DELETE /api/business/follow/draft': study,
  'GET /api/business/follow/draft/impact': elsewhere('follow-draft-sites.test.ts'),
  'POST /api/business/follow/draft/publish': {
    kind: 'study',
    why: 'reschedules every site’s open visits as the plan says: a study-wide act of plan holders',
  },
};

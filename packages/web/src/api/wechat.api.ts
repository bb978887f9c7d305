import type {
  BindCode,
  DiseaseNote,
  DiseaseNoteBody,
  Page,
  PortalSettings,
  PortalSettingsBody,
  WxUserQuery,
  WxUserRow,
} from '@ecrf/core';
import { http } from './request';

/** The patient side's staff calls (docs/patient-portal.md), in core's contract (wechat-contract.ts). */
export type { BindCode, DiseaseNote, PortalSettings, WxUserRow } from '@ecrf/core';

const BASE = '/api/business/wechat';

export const wechatApi = {
  settings: (studyId: number) => http.get<PortalSettings>(`${BASE}/settings`, { params: { studyId } }),
  saveSettings: (body: PortalSettingsBody) => http.put<PortalSettings>(`${BASE}/settings`, body),
  users: (params: WxUserQuery) => http.get<Page<WxUserRow>>(`${BASE}/users`, { params }),
  bindCode: (studyId: number, subjectId: number) => http.post<BindCode>(`${BASE}/bind-code`, { studyId, subjectId }),
  unbind: (studyId: number, subjectId: number) => http.post<null>(`${BASE}/unbind`, { studyId, subjectId }),
  diseases: (studyId: number) => http.get<DiseaseNote[]>(`${BASE}/disease`, { params: { studyId } }),
  saveDisease: (body: DiseaseNoteBody) => http.put<DiseaseNote[]>(`${BASE}/disease`, body),
};

/** The address a patient's phone opens: the binding page, or the message link that carries the code (/meil). */
export const bindUrl = (bindPath: string) => `${window.location.origin}${bindPath}`;
export const messageUrl = (studyId: number, code: string) =>
  `${window.location.origin}/meil?studyId=${studyId}&code=${encodeURIComponent(code)}`;

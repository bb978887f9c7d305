import type { Page } from '@ecrf/core';
import { http } from './request';

/** The patient side's staff calls (docs/patient-portal.md). */
export interface PortalSettings {
  bindEnabled: boolean;
  appId: string;
  welcome: string;
  proCrfIds: number[];
  crfs: { id: number; title: string }[];
  bindPath: string;
  provider: string;
}

export interface WxUserRow {
  subjectId: number;
  subjectRecordId: number;
  identificationCode: string;
  subjectName: string;
  diseaseCode: string;
  bound: boolean;
  openId: string | null;
  boundAt: string | null;
  codeExpiresAt: string | null;
}

export interface BindCode {
  code: string;
  expiresAt: string;
  bindPath: string;
}

export interface DiseaseNote {
  diseaseCode: string;
  diseaseName: string;
  title: string;
  content: string;
  updateTime: string | null;
}

const BASE = '/api/business/wechat';

export const wechatApi = {
  settings: (studyId: number) => http.get<PortalSettings>(`${BASE}/settings`, { params: { studyId } }),
  saveSettings: (body: {
    studyId: number;
    bindEnabled: boolean;
    appId: string;
    welcome: string;
    proCrfIds: number[];
  }) => http.put<PortalSettings>(`${BASE}/settings`, body),
  users: (params: { studyId: number; pageNum: number; pageSize: number; bound?: string; keyword?: string }) =>
    http.get<Page<WxUserRow>>(`${BASE}/users`, { params }),
  bindCode: (studyId: number, subjectId: number) => http.post<BindCode>(`${BASE}/bind-code`, { studyId, subjectId }),
  unbind: (studyId: number, subjectId: number) => http.post<null>(`${BASE}/unbind`, { studyId, subjectId }),
  diseases: (studyId: number) => http.get<DiseaseNote[]>(`${BASE}/disease`, { params: { studyId } }),
  saveDisease: (body: { studyId: number; diseaseCode: string; title: string; content: string }) =>
    http.put<DiseaseNote[]>(`${BASE}/disease`, body),
};

/** The address a patient's phone opens: the binding page, or the message link that carries the code (/meil). */
export const bindUrl = (bindPath: string) => `${window.location.origin}${bindPath}`;
export const messageUrl = (studyId: number, code: string) =>
  `${window.location.origin}/meil?studyId=${studyId}&code=${encodeURIComponent(code)}`;

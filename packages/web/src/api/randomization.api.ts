import type {
  Page,
  RandomizationConfig,
  RandomizationConfigInput,
  RandomizationMethod,
  SimulationResult,
} from '@ecrf/core';
import type { Paging } from '@ecrf/core';
import { http } from './request';

/** GET …/randomization/config: the version in force (block sizes and list length hidden from blinded roles). */
export interface RandomizationConfigView {
  configured: boolean;
  version: number | null;
  method: RandomizationMethod | null;
  listSource: 'generated' | 'uploaded' | 'none' | null;
  config: (Omit<RandomizationConfig, 'blockSizes' | 'listLength'> & Partial<RandomizationConfig>) | null;
  /** A patient has been randomized: a new version needs a reason. */
  locked: boolean;
  randomizedCount: number;
  armsVisible: boolean;
  unblindedAll: { unblindTime: string; unblindBy: string } | null;
  versions: Array<{
    version: number;
    method: RandomizationMethod;
    listSource: string;
    reason: string | null;
    createTime: string;
    createBy: string | null;
  }>;
}

/** One patient's randomization as the caller may see it. */
export interface SubjectRandomization {
  randomizationId: number;
  subjectId: number;
  subjectRecordId: number;
  randomizationNo: string;
  randomizationTime: string;
  kitCode: string;
  blinded: boolean;
  armVisible: boolean;
  arm: string | null;
  armLabel: string | null;
  stratum: string;
  stratumLabel: string;
  emergencyUnblinded: boolean;
}

export interface SelectedRow extends SubjectRandomization {
  identificationCode: string;
  subjectName: string;
  deptName: string;
  randomizeBy: string;
}

export interface AllocationSlotRow {
  stratum: string;
  stratumLabel: string;
  slot: number;
  block: number;
  blockSize: number;
  arm: string;
  armLabel: string;
  kitCode: string;
  used: boolean;
  randomizationNo: string | null;
  subjectId: number | null;
}

type ArmCounts = Record<string, number> | null;

/** GET …/randomization/result: use per arm, stratum and factor level. */
export interface RandomizationResult {
  configured: boolean;
  version?: number;
  method?: RandomizationMethod;
  blinded?: boolean;
  armsVisible: boolean;
  total: number;
  arms: Array<{ code: string; label: string; ratio: number; count: number }> | null;
  strata: Array<{ stratum: string; stratumLabel: string; size: number; used: number; arms: ArmCounts }>;
  factorLevels: Array<{
    factor: string;
    factorLabel: string;
    level: string;
    levelLabel: string;
    count: number;
    arms: ArmCounts;
  }>;
}

export interface SaveConfigBody {
  studyId: number;
  config: RandomizationConfigInput;
  listCsv?: string | null;
  reason?: string | null;
}

export interface SimulateBody {
  studyId: number;
  config?: RandomizationConfigInput | null;
  patients: number;
  runs: number;
  distributions?: Record<string, Record<string, number>>;
  /** Level shares from the study's own patients where `distributions` gives none. */
  fromPatients?: boolean;
}

const BASE = '/api/business/randomization';

/** platform §7 Randomization: every call (issue 15). Randomizing and unblinding show their refusals in their dialogs. */
export const randomizationApi = {
  config: (studyId: number, quiet = false) =>
    http.get<RandomizationConfigView>(`${BASE}/config`, { params: { studyId }, silent: quiet }),
  save: (body: SaveConfigBody) =>
    http.post<{ configId: number; version: number; listSource: string; strata: number; slots: number }>(BASE, body),
  factorDepts: (studyId: number) =>
    http.get<Array<{ deptId: number; deptName: string }>>(`${BASE}/factor/depts`, { params: { studyId } }),
  list: (params: Paging & { studyId: number; stratum?: string }) =>
    http.get<Page<AllocationSlotRow> & { version: number | null; seed: string | null; listSource: string | null }>(
      `${BASE}/list/config`,
      { params },
    ),
  result: (studyId: number) => http.get<RandomizationResult>(`${BASE}/result`, { params: { studyId } }),
  subject: (studyId: number, subjectId: number, quiet = false) =>
    http.get<SubjectRandomization | null>(`${BASE}/subject`, { params: { studyId, subjectId }, silent: quiet }),
  randomize: (studyId: number, subjectId: number) =>
    http.post<SubjectRandomization>(`${BASE}/subject`, { studyId, subjectId }, { silent: true }),
  selected: (params: Paging & { studyId: number; keyword?: string; arm?: string }) =>
    http.get<Page<SelectedRow> & { armsVisible: boolean }>(`${BASE}/randomly_selected`, { params }),
  unblind: (body: { studyId: number; subjectId: number; password: string; reason: string }) =>
    http.put<SubjectRandomization & { unblindTime: string }>(`${BASE}/unblind`, body, { silent: true }),
  unblindAll: (body: { studyId: number; password: string; confirmText: string; reason?: string | null }) =>
    http.put<{ unblindTime: string }>(`${BASE}/unblind/all`, body, { silent: true }),
  simulate: (body: SimulateBody) => http.post<SimulationResult>(`${BASE}/simulate`, body),
  exportList: (studyId: number) => http.download(`${BASE}/export`, { method: 'POST', data: { studyId } }),
  exportSelected: (studyId: number) =>
    http.download(`${BASE}/export/randomly_selected`, { method: 'POST', data: { studyId } }),
};

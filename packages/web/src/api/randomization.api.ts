import type {
  AllocationList,
  EmergencyUnblindBody,
  EmergencyUnblinded,
  FactorDept,
  Paging,
  RandomizationConfigView,
  RandomizationResult,
  RandomizationSaveBody,
  RandomizationSaved,
  SelectedPage,
  SimulateBody,
  SimulationResult,
  SubjectRandomization,
  UnblindAllBody,
} from '@ecrf/core';
import { http } from './request';

/** Randomization's request and answer shapes are core's contract (randomization/contract.ts); pages import them here. */
export type {
  AllocationSlotRow,
  RandomizationConfigView,
  RandomizationResult,
  SelectedRow,
  SimulateBody,
  SubjectRandomization,
} from '@ecrf/core';
/** The body of a new configuration version. */
export type SaveConfigBody = RandomizationSaveBody;

const BASE = '/api/business/randomization';

/** platform §7 Randomization: every call (issue 15). Randomizing and unblinding show their refusals in their dialogs. */
export const randomizationApi = {
  config: (studyId: number, quiet = false) =>
    http.get<RandomizationConfigView>(`${BASE}/config`, { params: { studyId }, silent: quiet }),
  save: (body: SaveConfigBody) => http.post<RandomizationSaved>(BASE, body),
  factorDepts: (studyId: number) => http.get<FactorDept[]>(`${BASE}/factor/depts`, { params: { studyId } }),
  list: (params: Paging & { studyId: number; stratum?: string }) =>
    http.get<AllocationList>(`${BASE}/list/config`, { params }),
  result: (studyId: number) => http.get<RandomizationResult>(`${BASE}/result`, { params: { studyId } }),
  subject: (studyId: number, subjectId: number, quiet = false) =>
    http.get<SubjectRandomization | null>(`${BASE}/subject`, { params: { studyId, subjectId }, silent: quiet }),
  randomize: (studyId: number, subjectId: number) =>
    http.post<SubjectRandomization>(`${BASE}/subject`, { studyId, subjectId }, { silent: true }),
  selected: (params: Paging & { studyId: number; keyword?: string; arm?: string }) =>
    http.get<SelectedPage>(`${BASE}/randomly_selected`, { params }),
  unblind: (body: EmergencyUnblindBody) => http.put<EmergencyUnblinded>(`${BASE}/unblind`, body, { silent: true }),
  unblindAll: (body: UnblindAllBody) =>
    http.put<{ unblindTime: string }>(`${BASE}/unblind/all`, body, { silent: true }),
  simulate: (body: SimulateBody) => http.post<SimulationResult>(`${BASE}/simulate`, body),
  exportList: (studyId: number) => http.download(`${BASE}/export`, { method: 'POST', data: { studyId } }),
  exportSelected: (studyId: number) =>
    http.download(`${BASE}/export/randomly_selected`, { method: 'POST', data: { studyId } }),
};

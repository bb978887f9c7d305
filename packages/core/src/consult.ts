import { z } from 'zod';

/** 在线咨询 states (issue 19): a question waits for staff, is answered, or is closed (with or without an answer). */
export const CONSULT_STATES = [
  [0, '待回复'],
  [1, '已回复'],
  [2, '已关闭'],
] as const;
export type ConsultState = (typeof CONSULT_STATES)[number][0];
export const CONSULT_STATE_LABEL: Readonly<Record<ConsultState, string>> = Object.fromEntries(CONSULT_STATES) as Record<
  ConsultState,
  string
>;

export const CONSULT_TITLE_MAX = 100;
export const CONSULT_TEXT_MAX = 2000;

/** A question entered by staff on a patient's behalf, or asked on the patient side. */
export const consultQuestionInput = z.object({
  title: z.string().trim().min(1, '请输入咨询标题').max(CONSULT_TITLE_MAX, `标题不可超过${CONSULT_TITLE_MAX}字`),
  question: z.string().trim().min(1, '请输入咨询内容').max(CONSULT_TEXT_MAX, `内容不可超过${CONSULT_TEXT_MAX}字`),
});
export type ConsultQuestionInput = z.infer<typeof consultQuestionInput>;

export const consultAnswerInput = z.object({
  answer: z.string().trim().min(1, '请输入回复内容').max(CONSULT_TEXT_MAX, `回复不可超过${CONSULT_TEXT_MAX}字`),
});

/** What the global search (searchall) answers: grouped hits, each with the route the client opens. */
export interface GlobalSearchHit {
  /** The source's name: study, subject, crf, and any registered later (knowledge, expert). */
  type: string;
  id: number;
  title: string;
  /** A second line (a study name, a masked patient name). */
  description: string | null;
  studyId: number | null;
  /** Where the client goes: a route of the web app. */
  path: string;
}
export interface GlobalSearchGroup {
  type: string;
  label: string;
  hits: GlobalSearchHit[];
}
/** At most this many hits per source: the box suggests, the lists search. */
export const SEARCH_HITS_PER_SOURCE = 5;
export const SEARCH_KEY_MAX = 50;

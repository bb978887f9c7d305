// content=arm, event and formEventMapping: the study's stages as REDCap's one arm and its events.
import { refuse, type Project } from './redcap-project.js';

/** The one arm a study is (redcapEventsOf names every event in arm 1), under REDCap's default arm name. */
const REDCAP_ARM = { num: 1, name: 'Arm 1' } as const;

export const LONGITUDINAL_CONTENTS = ['arm', 'event', 'formEventMapping'] as const;
export type LongitudinalContent = (typeof LONGITUDINAL_CONTENTS)[number];

const NOT_LONGITUDINAL: Record<LongitudinalContent, string> = {
  arm: '项目没有阶段，不是纵向项目（REDCap 的经典项目），没有臂可导出',
  event: '项目没有阶段，不是纵向项目（REDCap 的经典项目），没有事件可导出',
  formEventMapping: '项目没有阶段，不是纵向项目（REDCap 的经典项目），没有表单与事件的对应可导出',
};

/** An answer's rows, their columns in REDCap's order, and REDCap's XML shape for them. */
export interface LongitudinalAnswer {
  rows: Array<Record<string, string | number>>;
  columns: string[];
  shape: 'arms' | 'events' | 'formEventMapping';
}

/**
 * A longitudinal project's arms, events or instrument–event mapping, as REDCap exports them; a project without
 * stages is REDCap's classic project and is refused, as REDCap refuses it (PyCap's `is_longitudinal` reads that).
 * `arms[]` narrows to arms: there is one, arm 1; another number is refused, not answered empty.
 */
export function longitudinalAnswer(project: Project, content: LongitudinalContent, arms: string[]): LongitudinalAnswer {
  if (!project.longitudinal) throw refuse(NOT_LONGITUDINAL[content]);
  const unknown = arms.filter((a) => a !== String(REDCAP_ARM.num));
  if (unknown.length > 0) {
    throw refuse(`参数 arms 中的臂不存在：${unknown.join(', ')}（本项目只有臂 ${REDCAP_ARM.num}）`);
  }
  const arm = REDCAP_ARM.num;
  if (content === 'arm') {
    return { rows: [{ arm_num: arm, name: REDCAP_ARM.name }], columns: ['arm_num', 'name'], shape: 'arms' };
  }
  if (content === 'event') {
    return {
      // REDCap's custom event label is a second name we do not have: blank. The event id is the stage's (0: the
      // unscheduled event).
      rows: project.events.map((e) => ({
        event_name: e.label,
        arm_num: arm,
        unique_event_name: e.name,
        custom_event_label: '',
        event_id: e.stageId ?? 0,
      })),
      columns: ['event_name', 'arm_num', 'unique_event_name', 'custom_event_label', 'event_id'],
      shape: 'events',
    };
  }
  // Each form the caller sees, in the one event its data is in (a list group's instrument with its form's).
  const rows = project.events.flatMap((e) =>
    project.instruments
      .filter((i) => i.event === e.name)
      .map((i) => ({ arm_num: arm, unique_event_name: e.name, form: i.form })),
  );
  return { rows, columns: ['arm_num', 'unique_event_name', 'form'], shape: 'formEventMapping' };
}

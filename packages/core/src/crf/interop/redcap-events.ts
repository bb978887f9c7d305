/**
 * A study's stages (阶段) as REDCap events of one arm: the names a REDCap project gives them, for the records'
 * `redcap_event_name`, the API's events, arms and instrument–event mapping, and the data export's files alike.
 */
import { md5Hex } from './md5.js';

const UNIQUE_STEM_MAX = 18;

/**
 * REDCap's unique event name for an event labelled `label` (Project::getUniqueEventNames): letters, digits, `_` and
 * spaces kept, spaces as `_`, the first 18 characters in lower case, `_` trimmed at both ends (a label with nothing
 * left, such as a Chinese one, by the first 10 hexadecimal digits of its MD5), then `_arm_<n>`; when that name is
 * already `taken`, the second gets `b`, the third `c`, …
 */
export function redcapUniqueEventName(label: string, taken: readonly string[], arm = 1): string {
  const text = label.trim();
  const kept = text
    .replace(/[^0-9a-z_ ]/gi, '')
    .replace(/ /g, '_')
    .slice(0, UNIQUE_STEM_MAX)
    .toLowerCase()
    .replace(/^_+|_+$/g, '');
  const stem = `${kept || md5Hex(text).slice(0, 10)}_arm_${arm}`;
  const count = taken.filter((name) => name.startsWith(stem) && /^[a-z]*$/.test(name.slice(stem.length))).length;
  if (count === 0) return stem;
  const letter = (n: number) => String.fromCharCode(97 + n);
  return `${stem}${count < 26 ? letter(count) : `${letter(Math.floor(count / 26) - 1)}${letter(count % 26)}`}`;
}

/** A stage as a REDCap event of arm 1 (`stageId` null: the event of the forms in no stage). */
export interface RedcapStageEvent {
  stageId: number | null;
  uniqueName: string;
  /** The event's label: the stage's name. */
  label: string;
  arm: number;
}

export const UNSCHEDULED_EVENT_LABEL = '未分阶段';

/**
 * The study's stages, in their order, as events of arm 1, with `eventOfForm`: a form's event is the first stage
 * holding it, else the unscheduled event (there only when some form is in no stage). A study without stages is a
 * classic project: no events, and every form's event is null.
 */
export function redcapEventsOf(
  stages: ReadonlyArray<{ id: number; name: string }>,
  links: ReadonlyArray<{ stageId: number; crfId: number }>,
  crfIds: readonly number[],
): { events: RedcapStageEvent[]; eventOfForm: (crfId: number) => RedcapStageEvent | null } {
  if (stages.length === 0) return { events: [], eventOfForm: () => null };
  const taken: string[] = [];
  const events: RedcapStageEvent[] = stages.map((stage) => {
    const uniqueName = redcapUniqueEventName(stage.name, taken);
    taken.push(uniqueName);
    return { stageId: stage.id, uniqueName, label: stage.name, arm: 1 };
  });
  const stageOf = (crfId: number) =>
    events.find((e) => links.some((l) => l.crfId === crfId && l.stageId === e.stageId)) ?? null;
  const unscheduled: RedcapStageEvent = {
    stageId: null,
    uniqueName: redcapUniqueEventName('Unscheduled', taken),
    label: UNSCHEDULED_EVENT_LABEL,
    arm: 1,
  };
  if (crfIds.some((id) => !stageOf(id))) events.push(unscheduled);
  return { events, eventOfForm: (crfId) => stageOf(crfId) ?? unscheduled };
}

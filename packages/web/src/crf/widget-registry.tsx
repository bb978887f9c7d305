import type { ItemType } from '@ecrf/core';
import type { ReactNode } from 'react';
import { SPINE_WIDGETS } from '../components/spine/spine-widgets';
import { CardWidget } from './widgets/card-widget';
import { CheckboxWidget } from './widgets/checkbox-widget';
import { DateWidget } from './widgets/date-widget';
import { DatetimeWidget } from './widgets/datetime-widget';
import { FileUploadWidget } from './widgets/file-upload-widget';
import { GroupWidget } from './widgets/group-widget';
import { ImageUploadWidget } from './widgets/image-upload-widget';
import { InputWidget } from './widgets/input-widget';
import { IntWidget } from './widgets/int-widget';
import { LinkWidget } from './widgets/link-widget';
import { ListGroupWidget } from './widgets/list-group-widget';
import { MultiSelectWidget } from './widgets/multi-select-widget';
import { NumberWidget } from './widgets/number-widget';
import { PartialDateWidget } from './widgets/partial-date-widget';
import { RadioWidget } from './widgets/radio-widget';
import { RealWidget } from './widgets/real-widget';
import { SectionWidget } from './widgets/section-widget';
import { SelectWidget } from './widgets/select-widget';
import { SliderWidget } from './widgets/slider-widget';
import { TableWidget } from './widgets/table-widget';
import { TextWidget } from './widgets/text-widget';
import { TextareaWidget } from './widgets/textarea-widget';
import { TimeWidget } from './widgets/time-widget';
import { TitleWidget } from './widgets/title-widget';
import { VideoUploadWidget } from './widgets/video-upload-widget';
import type { BlockProps, ControlProps, WidgetRegistration } from './widgets/widget-types';

/**
 * The widget of every item type (what the type is and does: its core registration, @ecrf/core's itemTypeOf). A
 * `Record` over ItemType: a type without a widget does not compile. Widgets render nodes in turn through
 * renderControl/renderBlock; the widgets are function declarations, so this map may be built while they load.
 */
const WIDGETS: Readonly<Record<ItemType, WidgetRegistration>> = {
  section: { block: SectionWidget },
  title: { block: TitleWidget },
  group: { block: GroupWidget },
  card: { block: CardWidget },
  link: { block: LinkWidget },
  listGroup: { block: ListGroupWidget },
  table: { block: TableWidget },
  checkbox: { control: CheckboxWidget },
  radio: { control: RadioWidget },
  select: { control: SelectWidget },
  multiSelect: { control: MultiSelectWidget },
  slider: { control: SliderWidget },
  input: { control: InputWidget },
  textarea: { control: TextareaWidget },
  int: { control: IntWidget },
  real: { control: RealWidget },
  text: { control: TextWidget },
  number: { control: NumberWidget },
  date: { control: DateWidget },
  datetime: { control: DatetimeWidget },
  partialDate: { control: PartialDateWidget },
  time: { control: TimeWidget },
  imageUpload: { control: ImageUploadWidget },
  videoUpload: { control: VideoUploadWidget },
  fileUpload: { control: FileUploadWidget },
  ...SPINE_WIDGETS,
};

/** The control of a value item (forms §3), or null for blocks. */
export function renderControl(props: ControlProps): ReactNode | null {
  const Control = WIDGETS[props.node.type].control;
  return Control ? <Control {...props} /> : null;
}

/** A block (container, rows, title, link) rendered for its node, or null for value items. */
export function renderBlock(props: BlockProps): ReactNode | null {
  const Block = WIDGETS[props.node.type].block;
  return Block ? <Block {...props} /> : null;
}

import { lazy, Suspense, type ReactNode } from 'react';
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
import type { BlockProps, ControlProps } from './widgets/widget-types';

// The automatic Cobb angle tool's canvas (konva) loads only with a form that has one.
const SpineCobbWidget = lazy(() =>
  import('../components/spine/cobb/spine-cobb-widget').then((m) => ({ default: m.SpineCobbWidget })),
);

// The canvas (konva) loads only with a form that has a spine measurement item.
const SpineMeasureWidget = lazy(() =>
  import('../components/spine/measure/spine-measure-widget').then((m) => ({ default: m.SpineMeasureWidget })),
);

/** The control of a value item (forms §3), or null for blocks. A switch, so widgets may render nodes in turn. */
export function renderControl(props: ControlProps): ReactNode | null {
  switch (props.node.type) {
    case 'checkbox':
      return <CheckboxWidget {...props} />;
    case 'radio':
      return <RadioWidget {...props} />;
    case 'select':
      return <SelectWidget {...props} />;
    case 'multiSelect':
      return <MultiSelectWidget {...props} />;
    case 'slider':
      return <SliderWidget {...props} />;
    case 'input':
      return <InputWidget {...props} />;
    case 'textarea':
      return <TextareaWidget {...props} />;
    case 'int':
      return <IntWidget {...props} />;
    case 'real':
      return <RealWidget {...props} />;
    case 'text':
      return <TextWidget {...props} />;
    case 'number':
      return <NumberWidget {...props} />;
    case 'date':
      return <DateWidget {...props} />;
    case 'datetime':
      return <DatetimeWidget {...props} />;
    case 'partialDate':
      return <PartialDateWidget {...props} />;
    case 'time':
      return <TimeWidget {...props} />;
    case 'imageUpload':
      return <ImageUploadWidget {...props} />;
    case 'videoUpload':
      return <VideoUploadWidget {...props} />;
    case 'fileUpload':
      return <FileUploadWidget {...props} />;
    case 'spineCobb':
      return (
        <Suspense fallback={null}>
          <SpineCobbWidget {...props} />
        </Suspense>
      );
    case 'spineMeasure':
      return (
        <Suspense fallback={null}>
          <SpineMeasureWidget {...props} />
        </Suspense>
      );
    case 'section':
    case 'title':
    case 'group':
    case 'listGroup':
    case 'link':
    case 'table':
    case 'card':
      return null;
  }
}

/** A block (container, rows, title, link) rendered for its node, or null for value items. */
export function renderBlock(props: BlockProps): ReactNode | null {
  switch (props.node.type) {
    case 'section':
      return <SectionWidget {...props} />;
    case 'title':
      return <TitleWidget {...props} />;
    case 'group':
      return <GroupWidget {...props} />;
    case 'card':
      return <CardWidget {...props} />;
    case 'link':
      return <LinkWidget {...props} />;
    case 'listGroup':
      return <ListGroupWidget {...props} />;
    case 'table':
      return <TableWidget {...props} />;
    case 'checkbox':
    case 'radio':
    case 'select':
    case 'multiSelect':
    case 'slider':
    case 'input':
    case 'textarea':
    case 'int':
    case 'real':
    case 'text':
    case 'number':
    case 'date':
    case 'datetime':
    case 'partialDate':
    case 'time':
    case 'imageUpload':
    case 'videoUpload':
    case 'fileUpload':
    case 'spineMeasure':
    case 'spineCobb':
      return null;
  }
}

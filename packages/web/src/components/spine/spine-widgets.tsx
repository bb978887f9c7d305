import { lazy, Suspense } from 'react';
import type { WidgetRegistration } from '../../crf/widgets/widget-types';
import type { ControlProps } from '../../crf/widgets/widget-types';

// The canvases (konva) load only with a form that has a spine item.
const SpineCobbWidget = lazy(() => import('./cobb/spine-cobb-widget').then((m) => ({ default: m.SpineCobbWidget })));
const SpineMeasureWidget = lazy(() =>
  import('./measure/spine-measure-widget').then((m) => ({ default: m.SpineMeasureWidget })),
);

function SpineCobbControl(props: ControlProps) {
  return (
    <Suspense fallback={null}>
      <SpineCobbWidget {...props} />
    </Suspense>
  );
}

function SpineMeasureControl(props: ControlProps) {
  return (
    <Suspense fallback={null}>
      <SpineMeasureWidget {...props} />
    </Suspense>
  );
}

/** The spine item types' widgets (their core registrations: packages/core/src/spine/item-types.ts). */
export const SPINE_WIDGETS = {
  spineCobb: { control: SpineCobbControl },
  spineMeasure: { control: SpineMeasureControl },
} as const satisfies Record<'spineCobb' | 'spineMeasure', WidgetRegistration>;

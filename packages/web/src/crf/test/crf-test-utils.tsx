import { useState } from 'react';
import { fireEvent, screen } from '@testing-library/react';
import type { CrfDefinition, CrfNode, FormState } from '@ecrf/core';
import { renderWithProviders } from '../../test/render';
import { CrfForm, type CrfFormProps } from '../crf-form';
import { RenderProbeContext, type RenderProbe } from '../render-probe';

export const NOW = new Date('2024-06-15T02:30:00Z'); // 10:30 in Asia/Shanghai

export const item = (
  type: CrfNode['type'],
  name: string,
  title: string,
  option: CrfNode['option'] = {},
  children: CrfNode[] = [],
): CrfNode => ({
  name,
  title,
  type,
  option,
  children,
});

export const form = (children: CrfNode[], extra: Partial<CrfDefinition> = {}): CrfDefinition => ({
  title: '测试表单',
  option: {},
  children,
  ...extra,
});

export interface Harness {
  changes: Array<{ values: Record<string, unknown>; name: string }>;
  last: () => Record<string, unknown>;
  state: () => FormState | undefined;
}

/** Renders a CrfForm the way a page does: values held by the parent and handed back on each change. */
export function renderCrf(
  definition: CrfDefinition,
  initial: Record<string, unknown> = {},
  props: Partial<CrfFormProps> = {},
  probe?: RenderProbe,
) {
  const harness: Harness = { changes: [], last: () => harness.changes.at(-1)?.values ?? initial, state: () => latest };
  let latest: FormState | undefined;
  function Page() {
    const [values, setValues] = useState<Record<string, unknown>>(initial);
    return (
      <CrfForm
        definition={definition}
        values={values}
        context={{ now: NOW, ...props.context }}
        {...props}
        onEvaluate={(state) => {
          latest = state;
          props.onEvaluate?.(state);
        }}
        onChange={(next, name) => {
          harness.changes.push({ values: next, name });
          setValues(next);
          props.onChange?.(next, name);
        }}
      />
    );
  }
  const view = renderWithProviders(
    probe ? (
      <RenderProbeContext.Provider value={probe}>
        <Page />
      </RenderProbeContext.Provider>
    ) : (
      <Page />
    ),
  );
  return { ...view, harness };
}

export function typeInto(label: string | HTMLElement, value: string) {
  const input = typeof label === 'string' ? screen.getByLabelText(label) : label;
  fireEvent.change(input, { target: { value } });
  return input as HTMLInputElement;
}

export function blur(label: string | HTMLElement) {
  const input = typeof label === 'string' ? screen.getByLabelText(label) : label;
  fireEvent.blur(input);
}

import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { exampleCrf, initialValues } from '@ecrf/core';
import { NOW, renderCrf, typeInto } from './test/crf-test-utils';

afterEach(cleanup);

describe('CrfForm', () => {
  it('WID-02: the example CRF of core renders every item type without errors', () => {
    const definition = exampleCrf();
    const { container } = renderCrf(definition, initialValues(definition, { now: NOW }));
    expect(screen.getByText('生命体征')).toBeTruthy();
    expect(screen.getByLabelText('手机号')).toBeTruthy();
    expect(container.querySelectorAll('.crf-field').length).toBeGreaterThan(15);
  });

  it('emits the engine values on typing', () => {
    const definition = exampleCrf();
    const { harness } = renderCrf(definition, {});
    typeInto('研究者', '张三');
    expect(harness.last().investigator).toBe('张三');
    expect((screen.getByLabelText('研究者') as HTMLInputElement).value).toBe('张三');
  });
});

import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { renderWithProviders } from '../../../test/render';
import { CrfForm } from '../../../crf';
import { form, item, NOW } from '../../../crf/test/crf-test-utils';
import { afterEdit } from './identify-templates';

afterEach(cleanup);

const definition = form([
  item('real', 'wbc', '白细胞计数'),
  item('int', 'hgb', '血红蛋白'),
  item('input', 'note', '备注'),
]);

/** The editor's part: values filled by recognition, tagged until confirmed or changed. */
function Page({ fill }: { fill: Record<string, unknown> }) {
  const [values, setValues] = useState<Record<string, unknown>>(fill);
  const [marked, setMarked] = useState<ReadonlySet<string>>(() => new Set(Object.keys(fill)));
  return (
    <CrfForm
      definition={definition}
      values={values}
      context={{ now: NOW }}
      recognised={marked}
      onConfirmRecognised={(name) => setMarked((m) => afterEdit(m, name))}
      onChange={(next, name) => {
        setValues(next);
        setMarked((m) => afterEdit(m, name));
      }}
    />
  );
}

const tagOf = (title: string) => screen.queryByRole('button', { name: `确认识别结果 ${title}` });

describe('the 识别 tag of filled items', () => {
  it('RECOG-01: each filled item is tagged 识别 until the nurse confirms it or changes its value', async () => {
    renderWithProviders(<Page fill={{ wbc: '6.52', hgb: '98' }} />);
    expect(tagOf('白细胞计数')?.textContent).toBe('识别');
    expect(tagOf('血红蛋白')).not.toBeNull();
    expect(tagOf('备注')).toBeNull();
    expect((screen.getByLabelText('白细胞计数') as HTMLInputElement).value).toBe('6.52');

    await act(async () => {
      fireEvent.click(tagOf('白细胞计数')!);
    });
    expect(tagOf('白细胞计数')).toBeNull();
    expect(tagOf('血红蛋白')).not.toBeNull();

    await act(async () => {
      fireEvent.change(screen.getByLabelText('血红蛋白'), { target: { value: '99' } });
    });
    expect(tagOf('血红蛋白')).toBeNull();
    expect((screen.getByLabelText('白细胞计数') as HTMLInputElement).value).toBe('6.52');
  });
});

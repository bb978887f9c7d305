import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { IDENTIFIER_MASK } from '@ecrf/core';
import { form, item, renderCrf, typeInto } from './test/crf-test-utils';

afterEach(cleanup);

const M = IDENTIFIER_MASK;
const contacts = form([
  item('input', 'hospital_no', '住院号', { identifier: 1, required: 1 }),
  item('date', 'visit', '就诊日期', { identifier: 1, required: 1 }),
  item('radio', 'relation', '联系人关系', { identifier: 1, optionsValue: '1,2', optionsText: '配偶,其他' }),
  item('int', 'height', '身高', { units: 'cm' }),
  item('listGroup', 'family', '家属', {}, [
    item('input', 'who', '家属姓名', { identifier: 1 }),
    item('input', 'rel', '关系'),
  ]),
]);
/** The form as the server answers it to a member without 查看患者身份信息. */
const shown = {
  hospital_no: M,
  visit: M,
  relation: M,
  height: '170',
  family: [{ who: M, rel: '父' }, { rel: '母' }],
};

const field = (label: string, index = 0) => screen.getAllByLabelText(label)[index] as HTMLInputElement;

describe('identifiers the reader may not see', () => {
  it('show as the mask in a read-only box whatever the item type, with no message, while the rest stays editable', () => {
    const { harness } = renderCrf(contacts, shown, { showAllErrors: true });
    for (const label of ['住院号', '就诊日期', '联系人关系']) {
      const input = field(label);
      expect(input.value, label).toBe(M);
      expect(input.readOnly && input.disabled, label).toBe(true);
      expect(input.title, label).toBe('身份标识已隐藏（需要“查看患者身份信息”权限）');
    }
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.queryAllByRole('alert')).toEqual([]);
    expect(harness.state()?.valid).toBe(true);
    expect(field('身高').disabled).toBe(false);
    typeInto('身高', '171');
    // The masks go back as they came: the server knows them as "unchanged".
    expect(harness.last()).toEqual({ ...shown, height: '171' });
  });

  it('a list-group row holding a masked identifier is read-only as a whole; the other rows stay editable', () => {
    const { harness } = renderCrf(contacts, shown);
    expect(field('家属姓名', 0).value).toBe(M);
    expect(field('家属姓名', 0).disabled).toBe(true);
    expect(field('关系', 0).disabled).toBe(true);
    expect(field('家属姓名', 1).disabled).toBe(false);
    expect(field('关系', 1).disabled).toBe(false);
    typeInto(field('关系', 1), '继母');
    expect(harness.last().family).toEqual([{ who: M, rel: '父' }, { rel: '继母' }]);
  });

  it('an identifier the reader may see (clear) is an ordinary field', () => {
    renderCrf(contacts, { hospital_no: 'ZY-1', height: '170' });
    expect(field('住院号').value).toBe('ZY-1');
    expect(field('住院号').disabled).toBe(false);
  });
});

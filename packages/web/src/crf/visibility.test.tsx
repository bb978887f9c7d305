import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { exampleCrf } from '@ecrf/core';
import { form, item, renderCrf, typeInto } from './test/crf-test-utils';

afterEach(cleanup);

describe('visibility: the engine decides, the renderer shows visible items only', () => {
  it('VIS-01/VIS-02/VIS-08: trig + tindex shows 末次月经 only for 女, and hiding clears its value', () => {
    const { harness } = renderCrf(exampleCrf(), {});
    expect(screen.queryByLabelText('末次月经')).toBeNull();
    fireEvent.click(screen.getByLabelText('女'));
    typeInto('末次月经', '2024-05');
    expect(harness.last().lmp).toBe('2024-05');
    fireEvent.click(screen.getByLabelText('男'));
    expect(screen.queryByLabelText('末次月经')).toBeNull();
    expect(harness.last()).not.toHaveProperty('lmp');
    fireEvent.click(screen.getByLabelText('女'));
    expect((screen.getByLabelText('末次月经') as HTMLInputElement).value).toBe('');
  });

  it('VIS-01/VIS-08: trigex (name:index pairs) shows a group; unticking hides it and clears what it held', () => {
    const { harness } = renderCrf(exampleCrf(), {});
    expect(screen.queryByLabelText('病程')).toBeNull();
    fireEvent.click(screen.getByRole('checkbox', { name: '糖尿病' }));
    expect(screen.getByText('糖尿病', { selector: '.crf-group-title' })).toBeTruthy();
    typeInto('病程', '5');
    expect(harness.last().dm_years).toBe('5');
    fireEvent.click(screen.getByRole('checkbox', { name: '糖尿病' }));
    expect(screen.queryByLabelText('病程')).toBeNull();
    expect(harness.last()).not.toHaveProperty('dm_years');
  });

  it('VIS-01: trigex in the alternating "name,index" form and any pair suffices', () => {
    renderCrf(
      form([
        item('radio', 'a', '甲', { optionsValue: '1,2', optionsText: '是,否' }),
        item('radio', 'b', '乙', { optionsValue: '1,2', optionsText: '有,无' }),
        item('input', 'c', '丙', { trigex: 'a,0,b,0' }),
      ]),
    );
    expect(screen.queryByLabelText('丙')).toBeNull();
    fireEvent.click(screen.getByLabelText('有'));
    expect(screen.getByLabelText('丙')).toBeTruthy();
  });

  it('VIS-03/VIS-04: a hidden item never shows; an item without trigger shows', () => {
    renderCrf(form([item('input', 'a', '隐藏项', { hidden: 1 }), item('input', 'b', '普通项', { hidden: '0' })]), {
      a: 'x',
    });
    expect(screen.queryByLabelText('隐藏项')).toBeNull();
    expect(screen.getByLabelText('普通项')).toBeTruthy();
  });

  it('an item not displayed (REDCap @HIDDEN) is not on the page, yet its calculation runs and logic reading it works', () => {
    const { harness } = renderCrf(
      form([
        item('int', 'a', '甲'),
        item('int', 'double', '二倍', { calc: 'a * 2', notDisplayed: 1 }),
        item('input', 'note', '备注', { showIf: 'double > 10' }),
      ]),
    );
    typeInto('甲', '6');
    expect(screen.queryByLabelText('二倍')).toBeNull();
    expect(harness.last().double).toBe('12');
    expect(screen.getByLabelText('备注')).toBeTruthy();
  });

  it('showIf: REDCap-style branching; an undecidable condition hides', () => {
    const { harness } = renderCrf(
      form([
        item('int', 'age', '年龄'),
        item('radio', 'smoke', '吸烟', { optionsValue: '1,0', optionsText: '是,否', showIf: 'age >= 18' }),
        item('int', 'packs', '每日包数', { showIf: 'smoke == 1' }),
      ]),
    );
    expect(screen.queryByText('吸烟')).toBeNull();
    typeInto('年龄', '30');
    fireEvent.click(screen.getByLabelText('是'));
    typeInto('每日包数', '2');
    expect(harness.last()).toMatchObject({ age: '30', smoke: '1', packs: '2' });
    typeInto('年龄', '16');
    expect(screen.queryByText('吸烟')).toBeNull();
    expect(screen.queryByText('每日包数')).toBeNull();
    expect(harness.last()).toEqual({ age: '16' });
  });

  it('VIS-08: a hidden section cascades to everything inside it', () => {
    const { harness } = renderCrf(
      form([
        item('radio', 'done', '是否检查', { optionsValue: '1,0', optionsText: '是,否' }),
        item('section', 'sec', '检查结果', { trig: 'done', tindex: '0' }, [
          item('card', 'c', '卡片', {}, [item('input', 'r', '结果')]),
        ]),
      ]),
      { done: '1', r: '正常' },
    );
    expect((screen.getByLabelText('结果') as HTMLInputElement).value).toBe('正常');
    fireEvent.click(screen.getByLabelText('否'));
    expect(screen.queryByText('检查结果')).toBeNull();
    expect(harness.last()).toEqual({ done: '0' });
  });
});

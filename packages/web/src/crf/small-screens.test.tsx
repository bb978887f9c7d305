import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { form, item, renderCrf } from './test/crf-test-utils';

/**
 * The renderer on phones and ward tablets: a media query list that answers as a touch screen of the
 * given width would (antd's Grid breakpoints and the coarse-pointer query both go through matchMedia).
 */
function emulateScreen({ width, touch }: { width: number; touch: boolean }) {
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => {
    const min = /\(min-width:\s*(\d+)px\)/.exec(query);
    const max = /\(max-width:\s*([\d.]+)px\)/.exec(query);
    let matches = false;
    if (/pointer:\s*coarse/.test(query)) matches = touch;
    else if (min) matches = width >= Number(min[1]);
    else if (max) matches = width <= Number(max[1]);
    const answer: MediaQueryList = {
      matches,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    };
    return answer;
  });
}

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const modal = () => [...document.querySelectorAll('.ant-modal')].at(-1) as HTMLElement;

describe('the form on touch screens and phones', () => {
  it('on a touch screen an image is taken with the back camera or chosen from the gallery', () => {
    emulateScreen({ width: 390, touch: true });
    renderCrf(form([item('imageUpload', 'xray', '正侧位片')]), {}, { onUpload: async () => ({ url: 'u' }) });
    fireEvent.click(screen.getByText('上传图片'));
    const inputs = [...modal().querySelectorAll<HTMLInputElement>('input[type=file]')];
    expect(inputs.map((input) => [input.accept, input.getAttribute('capture')])).toEqual([
      ['image/*', 'environment'],
      ['image/*', null],
    ]);
    expect(modal().textContent).toContain('拍照');
    expect(modal().textContent).toContain('从相册选择');
  });

  it('a video is recorded with the back camera on a touch screen', () => {
    emulateScreen({ width: 820, touch: true });
    renderCrf(form([item('videoUpload', 'gait', '步态视频')]), {}, { onUpload: async () => ({ url: 'u' }) });
    fireEvent.click(screen.getByText('上传视频'));
    const capture = modal().querySelector<HTMLInputElement>('input[type=file][capture]')!;
    expect(capture.accept).toBe('video/*');
    expect(modal().textContent).toContain('录像');
  });

  it('a desktop keeps one chooser, without capture', () => {
    emulateScreen({ width: 1366, touch: false });
    renderCrf(form([item('imageUpload', 'xray', '正侧位片')]), {}, { onUpload: async () => ({ url: 'u' }) });
    fireEvent.click(screen.getByText('上传图片'));
    const inputs = [...modal().querySelectorAll<HTMLInputElement>('input[type=file]')];
    expect(inputs).toHaveLength(1);
    expect(inputs[0]!.hasAttribute('capture')).toBe(false);
  });

  it('the calendar button keeps the focus off the text box on touch, so no keyboard covers the calendar', () => {
    emulateScreen({ width: 390, touch: true });
    renderCrf(form([item('date', 'visit', '随访日期')]));
    const text = screen.getByLabelText('随访日期');
    text.focus();
    fireEvent.click(screen.getByRole('button', { name: '选择日期' }));
    expect(document.activeElement).not.toBe(text);
    // The picker under the text box is never typed into: its own input is read-only.
    const anchor = document.querySelector<HTMLInputElement>('.crf-date-anchor input')!;
    expect(anchor.readOnly).toBe(true);
  });

  it('the time picker is read-only to the keyboard on touch (columns are picked by finger)', () => {
    emulateScreen({ width: 390, touch: true });
    renderCrf(form([item('time', 'at', '随访时间')]));
    expect((screen.getByLabelText('随访时间') as HTMLInputElement).readOnly).toBe(true);
  });

  it('a table shows its rows as stacked cards on a phone, as a grid from md up', () => {
    const table = form([
      item('table', 'labs', '其他检验', {}, [item('input', 'lab', '检验项目'), item('real', 'value', '结果')]),
    ]);
    const rows = { labs: [{ lab: '血糖', value: '5.6' }] };
    emulateScreen({ width: 390, touch: true });
    renderCrf(table, rows);
    expect(document.querySelector('.crf-table')).toBeNull();
    const card = document.querySelector('.crf-list-group .crf-list-row')!;
    expect(card.textContent).toContain('第 1 行');
    expect((screen.getByLabelText('检验项目') as HTMLInputElement).value).toBe('血糖');
    cleanup();
    vi.restoreAllMocks();
    emulateScreen({ width: 820, touch: true });
    renderCrf(table, rows);
    expect(document.querySelector('.crf-table table')).not.toBeNull();
  });
});

describe("an item's own control for the page's item panel", () => {
  const definition = form([
    item('section', 's', '分区', {}, [
      item('int', 'sbp', '收缩压'),
      item('int', 'dbp', '舒张压'),
      item('listGroup', 'implants', '植入物', {}, [item('input', 'name', '名称')]),
    ]),
  ]);

  it('shows only when the page asks, carries the mark and names the item it opens', () => {
    const onItemOpen = vi.fn();
    renderCrf(definition, {}, { onItemOpen, itemMarks: { sbp: 'doubt', dbp: 'verified' } });
    const sbp = screen.getByRole('button', { name: '题目操作 收缩压' });
    expect(sbp.getAttribute('data-mark')).toBe('doubt');
    expect(screen.getByRole('button', { name: '题目操作 舒张压' }).getAttribute('data-mark')).toBe('verified');
    fireEvent.click(screen.getByRole('button', { name: '题目操作 植入物' }));
    expect(onItemOpen).toHaveBeenCalledWith('implants');
    fireEvent.click(sbp);
    expect(onItemOpen).toHaveBeenLastCalledWith('sbp');
    cleanup();
    renderCrf(definition, {});
    expect(screen.queryByRole('button', { name: /^题目操作/ })).toBeNull();
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { rememberFileNames } from '../stores/file-names.store';
import { form, item, renderCrf } from './test/crf-test-utils';

afterEach(cleanup);

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function modal() {
  return [...document.querySelectorAll('.ant-modal')].at(-1) as HTMLElement;
}

async function chooseFile(file: File) {
  const input = modal().querySelector('input[type=file]') as HTMLInputElement;
  await act(async () => {
    fireEvent.change(input, { target: { files: [file] } });
  });
}

function button(text: string, scope: ParentNode = modal()) {
  return [...scope.querySelectorAll('button')].find((b) => b.textContent === text) as HTMLElement;
}

const image = (name = 'ecg.png') => new File(['png'], name, { type: 'image/png' });

describe('image and video uploads (forms §2, §4)', () => {
  it('UPL-01/UPL-02/UPL-03/UPL-04/UPL-05: add appends an entry { uploadTime, remarks, dialogImgUrl } and confirm emits the whole list as JSON', async () => {
    const onUpload = vi.fn(async () => ({ url: 'https://oss.example/images/1717/ecg.png' }));
    const stored = JSON.stringify([
      { uploadTime: '2024-06-01 10:00:00', remarks: '第一张', dialogImgUrl: 'https://oss.example/images/1/a.jpg' },
    ]);
    const { harness } = renderCrf(form([item('imageUpload', 'ecg', '心电图')]), { ecg: stored }, { onUpload });
    fireEvent.click(screen.getByText('上传图片'));
    expect(modal().textContent).toContain('添加图片');
    await chooseFile(image());
    expect(onUpload).toHaveBeenCalledWith(expect.any(File), 'image', expect.any(Function));
    await waitFor(() =>
      expect(modal().querySelector('img')?.getAttribute('src')).toBe('https://oss.example/images/1717/ecg.png'),
    );
    fireEvent.change(modal().querySelector('textarea')!, { target: { value: '静息心电图' } });
    fireEvent.click(button('确定'));
    const list = JSON.parse(harness.last().ecg as string) as Array<Record<string, string>>;
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({
      uploadTime: '2024-06-01 10:00:00',
      remarks: '第一张',
      dialogImgUrl: 'https://oss.example/images/1/a.jpg',
    });
    expect(list[1]).toMatchObject({ remarks: '静息心电图', dialogImgUrl: 'https://oss.example/images/1717/ecg.png' });
    expect(list[1]!.uploadTime).toMatch(TIME);
    expect(Object.keys(list[1]!)).toEqual(['uploadTime', 'remarks', 'dialogImgUrl']);
  });

  it('UPL-02/UPL-03/CONV-07: edit replaces the entry at its index; a stored list of plain URLs is read', () => {
    const { harness } = renderCrf(
      form([item('imageUpload', 'ecg', '心电图')]),
      { ecg: '["https://x/a.jpg","https://x/b.jpg"]' },
      { onUpload: async () => ({ url: 'u' }) },
    );
    fireEvent.click(screen.getAllByRole('button', { name: '修改' })[1]!);
    expect(modal().textContent).toContain('修改图片');
    expect(modal().querySelector('img')!.getAttribute('src')).toBe('https://x/b.jpg');
    fireEvent.change(modal().querySelector('textarea')!, { target: { value: '复查' } });
    fireEvent.click(button('确定'));
    expect(JSON.parse(harness.last().ecg as string)).toEqual([
      { uploadTime: '', remarks: '', dialogImgUrl: 'https://x/a.jpg' },
      { uploadTime: '', remarks: '复查', dialogImgUrl: 'https://x/b.jpg' },
    ]);
  });

  it('UPL-07: remarks hold at most 180 characters', () => {
    renderCrf(
      form([item('imageUpload', 'ecg', '心电图')]),
      { ecg: '["https://x/a.jpg"]' },
      { onUpload: async () => ({ url: 'u' }) },
    );
    fireEvent.click(screen.getByRole('button', { name: '修改' }));
    const remarks = modal().querySelector('textarea')!;
    expect(remarks.getAttribute('maxlength')).toBe('180');
    fireEvent.change(remarks, { target: { value: '字'.repeat(200) } });
    expect(remarks.value).toHaveLength(180);
  });

  it('UPL-09: removing asks 此操作将删除该文件，是否继续？ (title 提示, 确定/取消, warning); cancel does nothing', async () => {
    const { harness } = renderCrf(
      form([item('imageUpload', 'ecg', '心电图')]),
      { ecg: '["https://x/a.jpg","https://x/b.jpg"]' },
      { onUpload: async () => ({ url: 'u' }) },
    );
    fireEvent.click(screen.getAllByRole('button', { name: '删除' })[0]!);
    const confirm = await waitFor(() => {
      const found = document.querySelector('.ant-modal-confirm') as HTMLElement;
      expect(found).toBeTruthy();
      return found;
    });
    expect(confirm.className).toContain('ant-modal-confirm-warning');
    expect(confirm.querySelector('.ant-modal-confirm-title')!.textContent).toBe('提示');
    expect(confirm.querySelector('.ant-modal-confirm-content')!.textContent).toBe('此操作将删除该文件，是否继续？');
    fireEvent.click(button('取消', confirm));
    expect(harness.changes).toHaveLength(0);
    fireEvent.click(screen.getAllByRole('button', { name: '删除' })[0]!);
    await waitFor(() => expect(document.querySelectorAll('.ant-modal-confirm').length).toBeGreaterThan(0));
    const second = [...document.querySelectorAll('.ant-modal-confirm')].at(-1) as HTMLElement;
    await act(async () => {
      fireEvent.click(button('确定', second));
    });
    expect(JSON.parse(harness.last().ecg as string)).toEqual([
      { uploadTime: '', remarks: '', dialogImgUrl: 'https://x/b.jpg' },
    ]);
  });

  it('removing the last image of a required item leaves it blank, so 请输入数据 shows', async () => {
    const { harness } = renderCrf(
      form([item('imageUpload', 'ecg', '心电图', { required: 1 })]),
      { ecg: '["https://x/a.jpg"]' },
      { onUpload: async () => ({ url: 'u' }) },
    );
    fireEvent.click(screen.getByRole('button', { name: '删除' }));
    const confirm = await waitFor(() => document.querySelector('.ant-modal-confirm') as HTMLElement);
    await act(async () => {
      fireEvent.click(button('确定', confirm));
    });
    expect(harness.last()).not.toHaveProperty('ecg');
    expect(screen.getByText('请输入数据')).toBeTruthy();
  });

  it('UPL-06/UPL-08: a video of 500 MB or more is refused with 上传文件大小不能超过500MB!; a smaller one becomes { videoTime, remarks, dialogVideoUrl }', async () => {
    const onUpload = vi.fn(async () => ({ url: 'https://oss.example/videos/1/gait.mp4' }));
    const { harness } = renderCrf(form([item('videoUpload', 'gait', '步态视频')]), {}, { onUpload });
    fireEvent.click(screen.getByText('上传视频'));
    expect(modal().textContent).toContain('添加视频');
    const big = new File(['x'], 'big.mp4', { type: 'video/mp4' });
    Object.defineProperty(big, 'size', { value: 500 * 1024 * 1024 });
    await chooseFile(big);
    expect(await screen.findByText('上传文件大小不能超过500MB!')).toBeTruthy();
    expect(onUpload).not.toHaveBeenCalled();
    const ok = new File(['x'], 'gait.mp4', { type: 'video/mp4' });
    Object.defineProperty(ok, 'size', { value: 500 * 1024 * 1024 - 1 });
    await chooseFile(ok);
    expect(onUpload).toHaveBeenCalledWith(ok, 'video', expect.any(Function));
    await waitFor(() => expect(modal().querySelector('video')).toBeTruthy());
    fireEvent.click(button('确定'));
    const [entry] = JSON.parse(harness.last().gait as string) as Array<Record<string, string>>;
    expect(Object.keys(entry!)).toEqual(['videoTime', 'remarks', 'dialogVideoUrl']);
    expect(entry!.dialogVideoUrl).toBe('https://oss.example/videos/1/gait.mp4');
    expect(entry!.videoTime).toMatch(TIME);
  });

  it('UPL-16: a failed upload shows the error message; confirming without a file asks for one', async () => {
    renderCrf(
      form([item('imageUpload', 'ecg', '心电图')]),
      {},
      { onUpload: async () => Promise.reject(new Error('存储服务不可用')) },
    );
    fireEvent.click(screen.getByText('上传图片'));
    await chooseFile(image());
    expect(await screen.findByText('存储服务不可用')).toBeTruthy();
    fireEvent.click(button('确定'));
    expect(await screen.findByText('请先上传文件')).toBeTruthy();
  });

  it('UPL-18: an image that fails to load shows a placeholder', async () => {
    // happy-dom loads no images: fail the broken address the way a browser would.
    const src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src')!;
    const spy = vi.spyOn(HTMLImageElement.prototype, 'src', 'set').mockImplementation(function (
      this: HTMLImageElement,
      value: string,
    ) {
      src.set!.call(this, value);
      if (value.includes('invalid.example')) setTimeout(() => this.onerror?.(new Event('error')), 0);
    });
    try {
      renderCrf(form([item('imageUpload', 'ecg', '心电图')]), { ecg: '["https://invalid.example/a.jpg"]' });
      await waitFor(() =>
        expect((document.querySelector('.crf-media-thumb img') as HTMLImageElement).getAttribute('src')).toMatch(
          /^data:image\/svg\+xml/,
        ),
      );
    } finally {
      spy.mockRestore();
    }
  });

  it('without an upload handler the add tile is off', () => {
    renderCrf(form([item('imageUpload', 'ecg', '心电图')]));
    expect((screen.getByText('上传图片').closest('button') as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('file upload', () => {
  it('CONV-09: a stored value without a slash is a file key shown through /api/v1/fileupload/downfile', () => {
    renderCrf(form([item('fileUpload', 'a', '检查报告'), item('fileUpload', 'b', '知情同意')]), {
      a: 'a1b2c3',
      b: 'files/1717/report.pdf',
    });
    expect(screen.getByText('a1b2c3').closest('a')!.getAttribute('href')).toBe(
      '/api/v1/fileupload/downfile?fileKey=a1b2c3',
    );
    expect(screen.getByText('report.pdf').closest('a')!.getAttribute('href')).toBe('files/1717/report.pdf');
  });

  it('a stored key shows under the name it was uploaded with, in the file item and under an image', () => {
    const pdf = 'a'.repeat(32);
    const png = 'b'.repeat(32);
    rememberFileNames({ [pdf]: '血常规报告.pdf', [png]: '术前正位片.png' });
    renderCrf(form([item('fileUpload', 'a', '检查报告'), item('imageUpload', 'x', '正侧位片')]), {
      a: pdf,
      x: JSON.stringify([{ uploadTime: '2026-03-01 10:00:00', remarks: '', dialogImgUrl: png }]),
    });
    expect(screen.getByText('血常规报告.pdf').closest('a')!.getAttribute('href')).toBe(
      `/api/v1/fileupload/downfile?fileKey=${pdf}`,
    );
    expect(screen.queryByText(pdf)).toBeNull();
    expect(screen.getByText('术前正位片.png')).toBeTruthy();
  });

  it('a stored value that is a script address is shown, never opened', () => {
    renderCrf(form([item('fileUpload', 'a', '检查报告')]), { a: 'java\tscript:alert(1)//x.pdf' });
    const link = screen.getByText('x.pdf').closest('a')!;
    expect(link.hasAttribute('href')).toBe(false);
  });

  it('UPL-01: uploading stores the URL or the key; removing asks first', async () => {
    const onUpload = vi.fn(async () => ({ fileKey: 'k9' }));
    const { harness, container } = renderCrf(form([item('fileUpload', 'a', '检查报告')]), {}, { onUpload });
    const input = container.querySelector('input[type=file]') as HTMLInputElement;
    await act(async () => {
      fireEvent.change(input, { target: { files: [new File(['%PDF'], 'r.pdf', { type: 'application/pdf' })] } });
    });
    expect(onUpload).toHaveBeenCalledWith(expect.any(File), 'file', expect.any(Function));
    expect(harness.last().a).toBe('k9');
    fireEvent.click(screen.getByRole('button', { name: '删除' }));
    const confirm = await waitFor(() => document.querySelector('.ant-modal-confirm') as HTMLElement);
    await act(async () => {
      fireEvent.click(button('确定', confirm));
    });
    expect(harness.last().a).toBe('');
  });
});

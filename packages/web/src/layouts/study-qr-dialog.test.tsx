import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { renderWithProviders } from '../test/render';
import { QR_SIZE, qrFileName, qrImageOf, StudyQrDialog } from './study-qr-dialog';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const api = vi.hoisted(() => ({ qrCode: vi.fn() }));
vi.mock('../api/study.api', () => ({ studyApi: api }));

afterEach(() => {
  cleanup();
  api.qrCode.mockReset();
  vi.restoreAllMocks();
});

describe('study QR dialog', () => {
  it('STUDY-28: the file is named after the study plus 二维码.png', () => {
    expect(qrFileName('脊柱侧弯登记研究')).toBe('脊柱侧弯登记研究二维码.png');
    expect(qrFileName(null)).toBe('二维码.png');
  });

  it('STUDY-29: an answer that is not 200, has no message or no image fails with 您未参与该项目', () => {
    expect(qrImageOf({ code: 200, msg: '获取成功', data: { qrCode: PNG } })).toBe(PNG);
    expect(() => qrImageOf({ code: 200, msg: '', data: { qrCode: PNG } })).toThrow('您未参与该项目');
    expect(() => qrImageOf({ code: 403, msg: '您未参与该项目', data: null })).toThrow('您未参与该项目');
    expect(() => qrImageOf({ code: 200, msg: '获取成功', data: null })).toThrow('您未参与该项目');
  });

  it('STUDY-27/STUDY-28: 项目二维码 shows the server image at 180 px and downloads it under the study name', async () => {
    api.qrCode.mockResolvedValue({ code: 200, msg: '获取成功', data: { qrCode: PNG, content: 'x' } });
    let saved: { href: string; download: string } | null = null;
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved = { href: this.href, download: this.download };
    });
    renderWithProviders(<StudyQrDialog open studyId="7" studyName="脊柱侧弯登记研究" onClose={() => undefined} />);
    expect(screen.getByText('项目二维码')).toBeTruthy();
    const image = (await screen.findByAltText('项目二维码')) as HTMLImageElement;
    expect(image.getAttribute('src')).toBe(PNG);
    expect(image.width).toBe(QR_SIZE);
    expect(image.height).toBe(180);
    expect(api.qrCode).toHaveBeenCalledWith('7');
    fireEvent.click(screen.getByRole('button', { name: '下载二维码' }));
    expect(saved).toEqual({ href: PNG, download: '脊柱侧弯登记研究二维码.png' });
  });

  it('STUDY-29: a refused call shows 您未参与该项目', async () => {
    api.qrCode.mockRejectedValue(new Error('您未参与该项目'));
    renderWithProviders(<StudyQrDialog open studyId="8" studyName="别的项目" onClose={() => undefined} />);
    await waitFor(() => expect(screen.getAllByText('您未参与该项目').length).toBeGreaterThan(0));
    expect((screen.getByRole('button', { name: '下载二维码' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('STUDY-30: a failed download is only logged with 下载二维码失败', async () => {
    api.qrCode.mockResolvedValue({ code: 200, msg: '获取成功', data: { qrCode: PNG } });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {
      throw new Error('blocked');
    });
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderWithProviders(<StudyQrDialog open studyId="7" studyName="脊柱" onClose={() => undefined} />);
    await screen.findByAltText('项目二维码');
    fireEvent.click(screen.getByRole('button', { name: '下载二维码' }));
    expect(log).toHaveBeenCalledWith('下载二维码失败', expect.any(Error));
    expect(document.querySelector('.ant-message-notice')).toBeNull();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QrImage } from './qr-image';

afterEach(cleanup);

describe('QR image', () => {
  it('STUDY-31: a generated QR code is 30 px unless a size is given', async () => {
    render(<QrImage text="f00d" alt="二维码" />);
    const image = await screen.findByRole('img', { name: '二维码' });
    expect(image.getAttribute('width')).toBe('30');
    expect(image.getAttribute('height')).toBe('30');
    expect(image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    cleanup();

    render(<QrImage text="f00d" alt="二维码" size={180} />);
    expect((await screen.findByRole('img', { name: '二维码' })).getAttribute('width')).toBe('180');
  });
});

import { describe, expect, it } from 'vitest';
import type { CrfNode } from './crf-definition.schema.js';
import {
  applyUploadEntry,
  fileReference,
  normalizeValue,
  readChoiceList,
  readMediaList,
  readRows,
  UPLOAD_REMARKS_MAX,
  writeMediaList,
  type ImageEntry,
} from './value-shapes.js';

const node = (type: CrfNode['type'], children: CrfNode[] = []): CrfNode => ({
  name: 'v',
  title: 'V',
  type,
  option: {},
  children,
});

describe('stored value shapes (forms §3)', () => {
  it('CONV-05: a checkbox value is read from an array, a JSON string or a comma string, and written as an array', () => {
    const checkbox = node('checkbox');
    for (const raw of [['1', '3'], '["1","3"]', '1,3', ' 1 , 3 ', [1, 3]]) {
      expect(normalizeValue(checkbox, raw)).toEqual(['1', '3']);
    }
    expect(normalizeValue(checkbox, '')).toEqual([]);
    expect(readChoiceList('[broken')).toEqual(['[broken']);
  });

  it('CONV-06: a multi-select value is written as a comma string', () => {
    const multi = node('multiSelect');
    expect(normalizeValue(multi, ['a', 'b'])).toBe('a,b');
    expect(normalizeValue(multi, 'a,b')).toBe('a,b');
    expect(normalizeValue(multi, '["a","b","a"]')).toBe('a,b');
  });

  it('CONV-07/UPL-05/UPL-06/UPL-07: image and video lists are JSON strings; plain URL lists are read too', () => {
    const urls = '["https://oss.example.cn/images/1/a.jpg","https://oss.example.cn/images/1/b.jpg"]';
    const images = readMediaList('image', urls);
    expect(images.map((e) => e.dialogImgUrl)).toEqual([
      'https://oss.example.cn/images/1/a.jpg',
      'https://oss.example.cn/images/1/b.jpg',
    ]);
    const stored = normalizeValue(node('imageUpload'), urls) as string;
    expect(JSON.parse(stored)).toEqual([
      { uploadTime: '', remarks: '', dialogImgUrl: 'https://oss.example.cn/images/1/a.jpg' },
      { uploadTime: '', remarks: '', dialogImgUrl: 'https://oss.example.cn/images/1/b.jpg' },
    ]);
    const videos = readMediaList('video', [
      { videoTime: '2024-06-01', remarks: '术中', dialogVideoUrl: 'videos/1/a.mp4' },
    ]);
    expect(videos).toEqual([{ videoTime: '2024-06-01', remarks: '术中', dialogVideoUrl: 'videos/1/a.mp4' }]);
    expect(readMediaList('image', writeMediaList(images))).toEqual(images);
    expect(readMediaList('image', 'not json')).toEqual([{ uploadTime: '', remarks: '', dialogImgUrl: 'not json' }]);
    expect(UPLOAD_REMARKS_MAX).toBe(180);
  });

  it('UPL-03/UPL-04: add appends, edit replaces the entry at the index, and the whole list is emitted as JSON', () => {
    const a: ImageEntry = { uploadTime: '1', remarks: '', dialogImgUrl: 'a' };
    const b: ImageEntry = { uploadTime: '2', remarks: '', dialogImgUrl: 'b' };
    const list = applyUploadEntry([a], b);
    expect(list).toEqual([a, b]);
    expect(applyUploadEntry(list, { ...a, remarks: '改' }, 0)).toEqual([{ ...a, remarks: '改' }, b]);
    expect(JSON.parse(writeMediaList(list))).toEqual([a, b]);
  });

  it('CONV-08: table and list-group values are arrays of row objects keyed by child name', () => {
    const lg = node('listGroup', [
      { name: 'drug', title: '药物', type: 'input', option: {}, children: [] },
      { name: 'route', title: '途径', type: 'checkbox', option: {}, children: [] },
    ]);
    const raw = '[{"drug":"阿司匹林","route":"1,2","stray":1},{"drug":"他汀"}]';
    expect(normalizeValue(lg, raw)).toEqual([{ drug: '阿司匹林', route: ['1', '2'] }, { drug: '他汀' }]);
    expect(readRows('nonsense')).toEqual([]);
    expect(readRows([1, null, { a: 1 }])).toEqual([{ a: 1 }]);
  });

  it('CONV-09: a file value without a slash is a key resolved through the download call', () => {
    expect(fileReference('a1b2c3.pdf')).toEqual({
      kind: 'key',
      key: 'a1b2c3.pdf',
      url: '/api/v1/fileupload/downfile?fileKey=a1b2c3.pdf',
    });
    expect(fileReference('https://oss.example.cn/files/1/a.pdf')).toEqual({
      kind: 'url',
      url: 'https://oss.example.cn/files/1/a.pdf',
    });
  });

  it('numbers are kept as the text entered; sliders as numbers; containers hold nothing', () => {
    expect(normalizeValue(node('real'), 12.5)).toBe('12.5');
    expect(normalizeValue(node('real'), '12.50')).toBe('12.50');
    expect(normalizeValue(node('slider'), '7')).toBe(7);
    expect(normalizeValue(node('slider'), '')).toBeUndefined();
    expect(normalizeValue(node('section'), 'x')).toBeUndefined();
  });
});

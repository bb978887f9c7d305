import type { ItemTypeDefinition } from './definition.js';
import { fileLabel } from '../record-values.js';
import { readMediaList, writeMediaList, writeText, type MediaKind } from '../value-shapes.js';

/** An image or video list: counted where it is read, or named (with each entry's remarks) when names are known. */
const media = (
  type: 'imageUpload' | 'videoUpload',
  label: string,
  kind: MediaKind,
  noun: string,
): ItemTypeDefinition => ({
  type,
  label,
  role: 'value',
  normalize: (raw) => writeMediaList(readMediaList(kind, raw)),
  bounded: false,
  hasUnit: false,
  text: (value, _node, { fileNames }) => {
    const entries = readMediaList(kind, value);
    if (fileNames) {
      return entries
        .map((entry) => {
          const url = 'dialogImgUrl' in entry ? entry.dialogImgUrl : entry.dialogVideoUrl;
          const name = fileLabel(url, fileNames);
          return entry.remarks ? `${name}（${entry.remarks}）` : name;
        })
        .join('、');
    }
    return entries.length > 0 ? `${entries.length} ${noun}` : '';
  },
  searchKind: () => 'file',
  exportKind: () => 'text',
  notImportable: 'file',
  odmDataType: () => 'text',
  redcap: {
    shape: 'file',
    warning: () => `${kind === 'image' ? '图片' : '视频'}上传导出为 REDCap 的文件字段，只能上传一个文件`,
  },
});

export const imageUpload = media('imageUpload', '图片上传', 'image', '张图片');
export const videoUpload = media('videoUpload', '视频上传', 'video', '个视频');

export const fileUpload: ItemTypeDefinition = {
  type: 'fileUpload',
  label: '文件上传',
  role: 'value',
  normalize: (raw) => writeText(raw),
  bounded: false,
  hasUnit: false,
  text: (value, _node, { fileNames }) =>
    fileNames && typeof value === 'string' ? fileLabel(value.trim(), fileNames) : undefined,
  searchKind: () => 'file',
  exportKind: () => 'text',
  notImportable: 'file',
  odmDataType: () => 'text',
  redcap: { shape: 'file' },
};

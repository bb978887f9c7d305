import { describe, expect, it } from 'vitest';
import type { CrfNode } from '@ecrf/core';
import { externalViewerUrl, recordFiles } from './record-files';

const node = (type: CrfNode['type'], name: string, children: CrfNode[] = []): CrfNode => ({
  type,
  name,
  title: name,
  option: {},
  children,
});

describe('imaging viewer: the files of a record', () => {
  it('lists image and file uploads (in sections and rows too) and the spine measurement film, each once, in form order', () => {
    const nodes = [
      node('section', 'img', [node('imageUpload', 'xray'), node('fileUpload', 'dicom')]),
      node('spineMeasure', 'spine_manual'),
      node('listGroup', 'follow', [node('fileUpload', 'scan')]),
      node('input', 'note'),
    ];
    const values = {
      xray: JSON.stringify([{ uploadTime: '', remarks: '', dialogImgUrl: 'k1' }]),
      dicom: 'k2',
      spine_manual: JSON.stringify({ imgUrl: 'k1' }),
      follow: [{ scan: '/files/a%20b.dcm' }],
      note: 'k9',
    };
    const files = recordFiles(nodes, values, new Map([['k2', 'lumbar.dcm']]));
    expect(files.map((f) => [f.key, f.name])).toEqual([
      ['k1', 'k1'],
      ['k2', 'lumbar.dcm'],
      ['/files/a%20b.dcm', 'a b.dcm'],
    ]);
    expect(files[1]!.url).toBe('/api/v1/fileupload/downfile?fileKey=k2');
  });

  it('CRF-16: the external viewer, when a site configures one, opens with the patient identification code', () => {
    expect(externalViewerUrl(undefined, 'LSS-0001')).toBeNull();
    expect(externalViewerUrl(' ', 'LSS-0001')).toBeNull();
    expect(externalViewerUrl('/pacs/oviyam2/viewer.html', 'LSS 1')).toBe('/pacs/oviyam2/viewer.html?patientID=LSS%201');
    expect(externalViewerUrl('https://pacs/v?site=1', 'x')).toBe('https://pacs/v?site=1&patientID=x');
  });
});

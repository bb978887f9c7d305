/** Texts of the automatic Cobb angle tool. The spec quotes none but 请上传JPG/PNG/BMP 格式! (core's SPINE_MSG). */
export const COBB_T = {
  uploadHint: '点击或拖拽上传脊柱全长正位X线片',
  uploadTypes: '支持 JPG/PNG/BMP 格式，上传后自动识别椎体关键点',
  recognising: '正在识别…',
  uploadFailed: '上传失败',
  /** The server's answer with no model (docs/spine-tools.md); shown as the server sends it. */
  semiAutomatic: '半自动模式：拖动椎体角点校正，角度实时计算',
  canvas: '脊柱X线片标注画布',
  curveType: '弯曲类型',
  curveC: 'C 型',
  curveS: 'S 型',
  zoom: '缩放',
  detectionScale: '检测框缩放',
  addVertebra: '添加椎体',
  removeVertebra: '删除所选椎体',
  resetZoom: '复位',
  clear: '清除',
  selected: (name: string) => `已选椎体：${name}`,
  noSelection: '点击椎体角点以选中椎体',
} as const;

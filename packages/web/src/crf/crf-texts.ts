/**
 * User-visible texts of the CRF renderer. Rule messages (请输入数据, 请选择选项 …) come from the
 * engine in @ecrf/core and are never repeated here; texts the specification quotes are kept exactly
 * as written there (forms §8).
 */
export const CRF_T = {
  ok: '确定',
  cancel: '取消',
  remove: '删除',
  edit: '修改',
  clear: '清除',
  selectPlaceholder: '请选择',
  inputPlaceholder: '请输入',
  empty: '暂无数据',

  rangeLow: '偏低',
  rangeHigh: '偏高',
  rangeTip: (min: number | null, max: number | null, unit: string) =>
    `参考范围：${min ?? ''}${min !== null && max !== null ? ' ~ ' : min !== null ? ' 以上' : ''}${max ?? ''}${min === null && max !== null ? ' 以下' : ''}${unit ? ` ${unit}` : ''}`,
  unit: '单位',
  calculated: '自动计算',
  identifierMasked: '身份标识已隐藏（需要“查看患者身份信息”权限）',
  recognised: '识别',
  recognisedTip: '由智能识别填入，请核对；核对无误点击确认',
  recognisedConfirm: (title: string) => `确认识别结果 ${title}`,
  missingReason: '缺失原因',
  missingShort: '缺失',
  missingMark: '标记缺失',
  missingClear: '清除缺失标记',
  numberRange: (min: number | null, max: number | null) =>
    min !== null && max !== null ? `${min} ~ ${max}` : min !== null ? `≥ ${min}` : `≤ ${max ?? ''}`,

  addRow: '添加一行',
  rowTitle: (n: number) => `第 ${n} 行`,
  index: '序号',
  actions: '操作',
  confirmRemoveRow: '确定删除该行吗？',

  sliderUnset: '未选择',

  dateHint: '未知部分填 UK，如 2024-UK-UK',
  datePlaceholder: (format: string) =>
    format
      .replace('yyyy', '年')
      .replace('MM', '月')
      .replace('dd', '日')
      .replace('HH', '时')
      .replace('mm', '分')
      .replace('ss', '秒'),
  pickDate: '选择日期',
  calendarKeys: '回车或空格打开日历，方向键选择日期，翻页键换月，回车确定，Esc 关闭',
  unknown: '未知',
  year: '年',
  month: '月',
  day: '日',

  // Upload dialogs (forms §2, §4, §5, §8)
  uploadImage: '上传图片',
  uploadVideo: '上传视频',
  uploadFile: '上传文件',
  addImageTitle: '添加图片',
  editImageTitle: '修改图片',
  addVideoTitle: '添加视频',
  editVideoTitle: '修改视频',
  chooseImage: '选择图片',
  chooseVideo: '选择视频',
  reupload: '重新上传',
  takePhoto: '拍照',
  recordVideo: '录像',
  fromGallery: '从相册选择',
  itemActions: '题目操作',
  uploadTime: '上传时间',
  videoTime: '视频时间',
  remarks: '备注',
  remarksPlaceholder: '请输入备注',
  uploading: '上传中…',
  uploadFailed: '上传失败',
  fileRequired: '请先上传文件',
  uploadUnavailable: '当前不能上传文件',
  play: '播放视频',
  confirmTitle: '提示',
  confirmRemoveFile: '此操作将删除该文件，是否继续？',
  videoTooLarge: '上传文件大小不能超过500MB!',
} as const;

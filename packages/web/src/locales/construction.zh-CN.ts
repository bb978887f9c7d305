export const CONSTRUCTION_TEXT = {
  title: '该功能正在建设中',
} as const;

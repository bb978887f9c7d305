export const NOT_FOUND_TEXT = {
  title: '404',
  subTitle: '抱歉，您访问的页面不存在',
  back: '返回首页',
} as const;

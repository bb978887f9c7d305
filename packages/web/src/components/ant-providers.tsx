import type { ReactNode } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import { MESSAGE_SECONDS } from '../api/request';
import { themeConfig } from '../theme';

/**
 * antd in Chinese with the product theme. Button texts are kept exactly as written (antd
 * would put a space between two Chinese characters); the one spaced label the spec wants,
 * 登 录, carries its space itself.
 */
export function AntProviders({ children }: { children: ReactNode }) {
  return (
    <ConfigProvider locale={zhCN} theme={themeConfig} button={{ autoInsertSpace: false }}>
      <AntApp message={{ duration: MESSAGE_SECONDS, maxCount: 3 }}>{children}</AntApp>
    </ConfigProvider>
  );
}
